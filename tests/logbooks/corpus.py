"""A corpus of logbooks reproducing what the 2026 event's participants really pushed.

The public logbooks of the event carry no licence, so none is copied: :func:`build_base` makes a
logbook with the real ``trackio logbook`` CLI (a run that writes CSV, TSV, JSON, JSONL and
Parquet result files and prints a pandas table and a Markdown table; a figure cell with an
embedded PNG and raw CSV), and each entry of :data:`QUIRKS` turns a copy of it into one observed
quirk, by hand where an older Trackio release's layout (schema 1) must be reproduced.
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from openrepro.papers import PaperRecord

ORID = "Qx7Rp2LmNa"  # an OpenReview-style venue id
ARXIV = "2511.03548"
OTHER_ORID = "Zz9Yy8Xx7W"
OTHER_ARXIV = "2602.01338"
ARXIV_ONLY = "Ar9Only0Id"  # a paper the challenge knows by venue id, linked by its arXiv id
ARXIV_ONLY_ID = "2603.02673"
PAPERS = [
    PaperRecord(venue_id=ORID, title="Ridge regression groks", abstract="a", arxiv_id=ARXIV),
    PaperRecord(venue_id=OTHER_ORID, title="Sampling", abstract="b", arxiv_id=OTHER_ARXIV),
    PaperRecord(venue_id=ARXIV_ONLY, title="ANOVA", abstract="c", arxiv_id=f"{ARXIV_ONLY_ID}v2"),
]
LOGBOOK = ".trackio/logbook"
MANIFEST = f"{LOGBOOK}/logbook.json"
METADATA = ".trackio/metadata.json"

TRAIN = """\
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

os.makedirs("outputs", exist_ok=True)
rows = [{"seed": s, "accuracy": 0.8 + 0.01 * s, "loss": 0.5 - 0.1 * s} for s in range(3)]
with open("outputs/results.csv", "w") as f:
    f.write("seed,accuracy,loss\\n")
    for r in rows:
        f.write(f"{r['seed']},{r['accuracy']},{r['loss']}\\n")
with open("outputs/results.tsv", "w") as f:
    f.write("seed\\taccuracy\\n")
    for r in rows:
        f.write(f"{r['seed']}\\t{r['accuracy']}\\n")
with open("outputs/summary.json", "w") as f:
    json.dump({"accuracy": {"mean": 0.81, "std": 0.01}, "n": 3}, f)
with open("outputs/rows.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\\n")
pq.write_table(pa.Table.from_pylist(rows), "outputs/results.parquet")
print("training done")
print("   accuracy     loss")
print("seed")
for r in rows:
    print(f"{r['seed']}      {r['accuracy']:.3f}   {r['loss']:.3f}")
print()
print("| method | accuracy |")
print("|---|---|")
print("| ours | 0.811 |")
print("| baseline | 0.702 |")
"""
RAW = "step,accuracy\n0,0.5\n1,0.75\n2,0.8125\n"


def png(width: int = 2, height: int = 2) -> bytes:
    """A small valid PNG (grey pixels)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def trackio_command() -> list[str]:
    script = Path(sys.executable).parent / "trackio"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "trackio.cli"]


def build_base(top: Path) -> Path:
    """A schema-2 logbook made by the trackio CLI in ``top/attempt`` (returned)."""
    project, data, home = top / "attempt", top / "trackio-data", top / "home"
    for folder in (project, data, home):
        folder.mkdir(parents=True)
    (project / "train.py").write_text(TRAIN, encoding="utf-8")
    (project / "plot.png").write_bytes(png())
    (project / "raw.csv").write_text(RAW, encoding="utf-8")
    env = {
        **os.environ,
        "TRACKIO_DIR": str(data),
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }

    def trackio(*args: str) -> None:
        done = subprocess.run(
            [*trackio_command(), "logbook", *args],
            cwd=project, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"trackio logbook {args} failed:\n{done.stdout}\n{done.stderr}")

    trackio("open", "--title", "Repro - Ridge regression groks", "--no-serve")
    trackio("page", "Claim 1: accuracy")
    trackio("run", "--", sys.executable, "train.py")
    # trackio records .csv/.tsv/.jsonl/.parquet outputs of a run itself, but not .json: its
    # Python API adds the cell a participant's agent added for it
    add_json = (
        "from pathlib import Path; from trackio import logbook as tl; "
        "tl.add_path_artifact_cell(tl.require_project_dir(), 'claim-1-accuracy', "
        "'outputs/summary.json', Path('outputs/summary.json').stat().st_size, 'dataset')"
    )
    done = subprocess.run([sys.executable, "-c", add_json], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"add_path_artifact_cell failed:\n{done.stderr}")
    trackio("cell", "markdown", "Claim 1 verified: accuracy 0.81, as the paper says.")
    trackio("cell", "figure", "--title", "Accuracy", "--image", "plot.png", "--raw", "raw.csv")
    (project / "plot.png").unlink()
    (project / "raw.csv").unlink()
    return project


# ---- quirks ----


@dataclass
class Expect:
    """What a quirk's logbook must give once submitted."""

    paper: str  # the venue id it links to
    linked_by: str  # the kind of reference that decides: venue_id | tag | arxiv_id
    explicit: str | None = None  # --paper to pass
    warnings: list[str] = field(default_factory=list)  # fragments of expected warnings
    side_kinds: list[str] = field(default_factory=list)


def _load(root: Path, name: str) -> dict[str, object]:
    data = json.loads((root / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _save(root: Path, name: str, data: object) -> None:
    (root / name).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def _meta(root: Path, **changes: object) -> None:
    data = _load(root, METADATA)
    data.update(changes)
    _save(root, METADATA, data)


def _schema1(root: Path, paper: object, tags: object) -> None:
    """The layout older trackio releases wrote: no traces or workspace, a nanosecond revision."""
    data = _load(root, MANIFEST)
    for key in ("traces", "workspace", "trace_view_tokens", "workspace_view_tokens"):
        data.pop(key, None)
    data.update(schema_version=1, paper=paper, tags=tags, revision="1784215399958176243")
    _save(root, MANIFEST, data)


def _pages(root: Path) -> list[Path]:
    return sorted((root / LOGBOOK / "pages").rglob("*.md"))


def _claim_page(root: Path) -> Path:
    return next(p for p in _pages(root) if "claim-1" in str(p))


def v2_arxiv_object(root: Path) -> Expect:
    """Trackio 0.43 as is: ``paper: {"arxiv_id": ...}``, no tags (refused before)."""
    _meta(root, paper={"arxiv_id": ARXIV})
    data = _load(root, MANIFEST)
    data.update(paper={"arxiv_id": ARXIV}, tags=[])
    _save(root, MANIFEST, data)
    return Expect(paper=ORID, linked_by="arxiv_id")


def v1_tag_only(root: Path) -> Expect:
    """Schema 1, ``paper: null``, linked by the event's tags only."""
    _schema1(root, None, ["icml2026-repro", f"paper-{ORID}"])
    return Expect(paper=ORID, linked_by="tag")


def v1_openreview_and_arxiv(root: Path) -> Expect:
    """Schema 1 with both ids in the paper object and the tag: the venue id decides."""
    _schema1(root, {"arxiv_id": ARXIV, "openreview_id": ORID}, ["icml2026-repro", f"paper-{ORID}"])
    return Expect(paper=ORID, linked_by="venue_id")


def v1_several_tags(root: Path) -> Expect:
    """Several paper-* tags, one a submission number the challenge does not know."""
    tags = ["icml2026-repro", "paper-10218", f"paper-{OTHER_ORID}"]
    _schema1(root, {"arxiv_id": OTHER_ARXIV}, tags)
    return Expect(paper=OTHER_ORID, linked_by="tag")


def v1_arxiv_url(root: Path) -> Expect:
    """An arXiv URL with a version, for a paper stored with another version."""
    _schema1(root, {"arxiv_id": f"https://arxiv.org/abs/{ARXIV_ONLY_ID}v1"}, ["icml2026-repro"])
    return Expect(paper=ARXIV_ONLY, linked_by="arxiv_id")


def v1_metadata_only(root: Path) -> Expect:
    """Schema 1 with ``paper`` and ``tags`` null: Trackio's metadata.json names the paper."""
    _schema1(root, None, None)
    _meta(root, paper=None, tags=["icml2026-repro", f"paper-{ORID}"])
    return Expect(paper=ORID, linked_by="tag")


def missing_and_unlisted_pages(root: Path) -> Expect:
    """logbook.json lists a page that is not there and misses one that is."""
    _schema1(root, None, [f"paper-{ORID}"])
    data = _load(root, MANIFEST)
    tree = data["root"]
    assert isinstance(tree, dict)
    tree["children"].append(
        {"slug": "claim-5-gone", "title": "Claim 5", "file": "pages/claim-5-gone/page.md",
         "children": []}
    )  # fmt: skip
    _save(root, MANIFEST, data)
    extra = root / LOGBOOK / "pages" / "conclusion"
    extra.mkdir()
    (extra / "page.md").write_text(
        '# Conclusion\n\n\n---\n<!-- trackio-cell\n{"type": "markdown", "id": "cell_concl0001",'
        ' "title": "Done"}\n-->\nAll claims hold.\n',
        encoding="utf-8",
    )
    return Expect(paper=ORID, linked_by="tag", warnings=["claim-5-gone", "pages/conclusion"])


def windows_line_endings(root: Path) -> Expect:
    """A Windows checkout: every page with CRLF line endings."""
    _schema1(root, {"openreview_id": ORID}, [])
    for page in _pages(root):
        page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    return Expect(paper=ORID, linked_by="venue_id", warnings=["Windows line endings"])


def escaped_marker_close(root: Path) -> Expect:
    """A cell written by a script with ``\\\\n``: its ``-->`` on the header line."""
    _schema1(root, None, [f"paper-{ORID}"])
    page = _claim_page(root)
    with page.open("a", encoding="utf-8") as handle:
        handle.write(
            '\n\n---\n<!-- trackio-cell\n{"type": "markdown", "id": "cell_escaped0001", '
            '"title": "Notes"}\\n-->\nWritten by a script.\n'
        )
    return Expect(paper=ORID, linked_by="tag", warnings=["escaped"])


def odd_cell_ids(root: Path) -> Expect:
    """A numeric id, a missing id and a repeated id (a page pasted twice)."""
    _schema1(root, None, [f"paper-{ORID}"])
    page = _claim_page(root)
    text = page.read_text(encoding="utf-8")
    ids = re.findall(r'"id": "(cell_[0-9a-f]+)"', text)
    text = text.replace(f'"id": "{ids[-1]}"', '"id": 7', 1)  # the figure cell: a number
    text = text.replace(f'"id": "{ids[-2]}", ', "", 1)  # the markdown cell: no id
    again = '{"type": "markdown", "id": "7", "title": "again"}'
    text += f"\n\n---\n<!-- trackio-cell\n{again}\n-->\nx\n"
    page.write_text(text, encoding="utf-8")
    return Expect(paper=ORID, linked_by="tag", warnings=["repeats"])


def side_files(root: Path) -> Expect:
    """A challenge claims copy, a STATUS.md with the event's verdict, the paper's PDF; a poster
    and a one-page PDF beside it are not the paper (not listed)."""
    _schema1(root, {"arxiv_id": ARXIV}, ["icml2026-repro", f"paper-{ORID}"])
    claims = [{"id": f"c{i}", "claim": f"Claim {i} of the paper."} for i in range(1, 6)]
    _save(root, "claims_snapshot.json", {"paper": ORID, "claims": claims})
    (root / "STATUS.md").write_text("# STATUS: published, 5/5 verified\n", encoding="utf-8")
    (root / "paper").mkdir()
    (root / "paper" / "paper.pdf").write_bytes(b"%PDF-1.4\n% not read\n")
    (root / "paper" / "ICML_poster.pdf").write_bytes(b"%PDF-1.4\n% a poster\n")
    one_page = b"%PDF-1.4\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
    (root / "summary.pdf").write_bytes(one_page)
    return Expect(paper=ORID, linked_by="tag", side_kinds=["claims-copy", "paper-pdf", "status"])


def no_paper_named(root: Path) -> Expect:
    """Neither paper nor tags (as some schema-2 logbooks): ``--paper`` names it."""
    _meta(root, paper=None, tags=[])
    data = _load(root, MANIFEST)
    data.update(paper=None, tags=[])
    _save(root, MANIFEST, data)
    return Expect(paper=OTHER_ORID, linked_by="venue_id", explicit=OTHER_ORID)


QUIRKS: dict[str, Callable[[Path], Expect]] = {
    f.__name__: f
    for f in (
        v2_arxiv_object,
        v1_tag_only,
        v1_openreview_and_arxiv,
        v1_several_tags,
        v1_arxiv_url,
        v1_metadata_only,
        missing_and_unlisted_pages,
        windows_line_endings,
        escaped_marker_close,
        odd_cell_ids,
        side_files,
        no_paper_named,
    )
}
