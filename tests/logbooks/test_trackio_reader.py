"""The Trackio logbook reader, on a logbook made by the real ``trackio logbook`` CLI.

The logbook is built once per module (two claim pages, a run that logs metrics and writes a file,
a markdown cell, a failing run); each corruption test damages a copy of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from openrepro.errors import LogbookError
from openrepro.evidence.checks import EvidenceLevels, apply_levels, cell_problems
from openrepro.evidence.gather import measurements
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.runs import run_time_problems
from openrepro.logbooks.trackio_reader import read_trackio_export, read_trackio_logbook

TRAIN = """\
import trackio

trackio.init(project="repro", name="seed-0")
for step in range(3):
    trackio.log({"claims/p1/C1/accuracy": 0.5 + 0.1 * step, "phase": "train"})
trackio.finish()
with open("results.csv", "w") as f:
    f.write("accuracy\\n0.7\\n")
print("final accuracy 0.7")
"""
FAIL = """\
import sys

print("boom: out of memory")
sys.exit(1)
"""
TESTIMONY = "We reproduced claim C1: accuracy reached 0.7, exactly as the paper says."
C1_PAGE = ".trackio/logbook/pages/claim-c1-accuracy/page.md"
MANIFEST = ".trackio/logbook/logbook.json"


def _trackio_command() -> list[str]:
    script = Path(sys.executable).parent / "trackio"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "trackio.cli"]


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in args:
            found.append(args)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(project folder, TRACKIO_DIR)`` of a logbook made with the trackio CLI."""
    top = tmp_path_factory.mktemp("trackio")
    project, data, home = top / "attempt", top / "trackio-data", top / "home"
    for folder in (project, data, home):
        folder.mkdir()
    (project / "train.py").write_text(TRAIN, encoding="utf-8")
    (project / "fail.py").write_text(FAIL, encoding="utf-8")
    env = {
        **os.environ,
        "TRACKIO_DIR": str(data),
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }

    def trackio(*args: str, check: bool = True) -> None:
        done = subprocess.run(
            [*_trackio_command(), "logbook", *args],
            cwd=project, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if check and done.returncode != 0:
            pytest.fail(f"trackio logbook {args} failed:\n{done.stdout}\n{done.stderr}")

    trackio("open", "--title", "Reproducing p1", "--no-serve")
    metadata = project / ".trackio" / "metadata.json"  # where trackio keeps `paper`
    meta = json.loads(metadata.read_text(encoding="utf-8"))
    metadata.write_text(json.dumps({**meta, "paper": {"arxiv_id": "p1"}}), encoding="utf-8")
    trackio("page", "Claim C1: accuracy")
    trackio("run", "--", sys.executable, "train.py")
    trackio("cell", "markdown", TESTIMONY)
    trackio("page", "Claim C2: robustness")
    trackio("run", "--", sys.executable, "fail.py", check=False)  # exits 1, as does trackio
    assert _processes_mentioning(str(top)) == []  # no preview server left behind
    return project, data


@pytest.fixture(scope="module")
def record(built: tuple[Path, Path]) -> LogbookRecord:
    project, data = built
    return read_trackio_logbook(project, trackio_dir=data)


@pytest.fixture
def copy(built: tuple[Path, Path], tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(built[0], target, symlinks=True)
    return target


def _edit(path: Path, change: Callable[[str], str]) -> None:
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def _edit_manifest(root: Path, change: Callable[[dict[str, object]], None]) -> None:
    path = root / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


# ---- the logbook as recorded ----


def test_header(record: LogbookRecord) -> None:
    assert record.format == "trackio"
    assert record.format_version == "2"
    assert record.title == "Reproducing p1"
    assert record.paper_id == "p1"
    assert [p.title for p in record.pages] == [
        "Reproducing p1",
        "Claim C1: accuracy",
        "Claim C2: robustness",
    ]


def test_runs_exit_codes_output_and_scripts(record: LogbookRecord) -> None:
    ok, failed = record.runs
    assert (ok.exit_code, failed.exit_code) == (0, 1)
    assert ok.command == [sys.executable, "train.py"]
    assert ok.page == "claim-c1-accuracy"
    assert failed.page == "claim-c2-robustness"
    assert ok.duration_s is not None and ok.duration_s > 0
    assert failed.duration_s is not None and failed.duration_s >= 0
    assert ok.output.endswith("final accuracy 0.7\n")
    assert failed.output == "boom: out of memory\n"
    assert ok.scripts == {"train.py": TRAIN}
    assert failed.scripts == {"fail.py": FAIL}


def test_produced_file_is_hashed(built: tuple[Path, Path], record: LogbookRecord) -> None:
    content = (built[0] / "results.csv").read_bytes()
    ok, failed = record.runs
    assert [(f.path, f.sha256, f.size) for f in ok.produced] == [
        ("results.csv", hashlib.sha256(content).hexdigest(), len(content))
    ]
    assert failed.produced == []
    assert [(a.file.path, a.kind, a.page) for a in record.artifacts] == [
        ("results.csv", "dataset", "claim-c1-accuracy")
    ]
    assert record.files == ok.produced


def test_metrics_from_the_trackio_database(record: LogbookRecord) -> None:
    assert [(m.run, m.key, m.step) for m in record.metrics] == [
        ("seed-0", "claims/p1/C1/accuracy", step) for step in range(3)
    ]  # the string "phase" is not a metric
    assert [m.value for m in record.metrics] == pytest.approx([0.5, 0.6, 0.7])
    assert all(m.source == "trackio-db" and m.timestamp for m in record.metrics)


def test_testimony_is_kept_apart_from_evidence(record: LogbookRecord) -> None:
    assert [(t.page, t.text) for t in record.testimony] == [("claim-c1-accuracy", TESTIMONY)]
    assert all(TESTIMONY not in run.output for run in record.runs)
    assert record.testimony[0].cell not in {run.id for run in record.runs}
    types = [c.type for page in record.pages for c in page.cells]
    assert types == ["code", "artifact", "markdown", "code"]


def test_claims_from_metric_keys_and_page_titles(record: LogbookRecord) -> None:
    assert record.claims == ["p1/C1", "p1/C2"]


def test_revision_is_stable(built: tuple[Path, Path], record: LogbookRecord) -> None:
    project, data = built
    again = read_trackio_logbook(project, trackio_dir=data)
    assert again.revision() == record.revision()
    via_folder = read_trackio_logbook(project / ".trackio" / "logbook", trackio_dir=data)
    assert via_folder.revision() == record.revision()


# ---- options and variants ----


def test_databases_next_to_the_logbook_are_found(built: tuple[Path, Path], copy: Path) -> None:
    assert read_trackio_logbook(copy).metrics == []
    shutil.copy(built[1] / "repro.db", copy / ".trackio" / "repro.db")
    assert [m.value for m in read_trackio_logbook(copy).metrics] == pytest.approx([0.5, 0.6, 0.7])


def test_projects_select_databases(built: tuple[Path, Path]) -> None:
    project, data = built
    assert len(read_trackio_logbook(project, trackio_dir=data, projects=["repro"]).metrics) == 3
    with pytest.raises(LogbookError, match=r"nope\.db"):
        read_trackio_logbook(project, trackio_dir=data, projects=["nope"])


def test_claims_without_a_paper_come_from_metric_keys(built: tuple[Path, Path], copy: Path) -> None:
    _edit_manifest(copy, lambda m: m.update(paper=None))
    metadata = copy / ".trackio" / "metadata.json"  # Trackio's own source of `paper`
    meta = json.loads(metadata.read_text(encoding="utf-8"))
    metadata.write_text(json.dumps({**meta, "paper": None}), encoding="utf-8")
    found = read_trackio_logbook(copy, trackio_dir=built[1])
    assert (found.paper_id, found.claims) == (None, ["p1/C1"])


def test_paper_missing_from_the_manifest_comes_from_trackio_metadata(copy: Path) -> None:
    """Schema-1 logbooks often carry ``paper: null``; Trackio takes it from metadata.json."""
    _edit_manifest(copy, lambda m: m.update(paper=None, tags=[]))
    found = read_trackio_logbook(copy)
    assert found.paper_id == "p1"


def test_paper_may_be_a_string(copy: Path) -> None:
    _edit_manifest(copy, lambda m: m.update(paper="abc123"))
    found = read_trackio_logbook(copy)
    assert (found.paper_id, found.claims) == ("abc123", ["abc123/C1", "abc123/C2"])


# ---- malformed logbooks ----


def _bad_json(root: Path) -> None:
    _edit(root / MANIFEST, lambda t: t.replace('"title"', '"title" "', 1))


def _unknown_version(root: Path) -> None:
    _edit_manifest(root, lambda m: m.update(schema_version=99))


def _unknown_cell_type(root: Path) -> None:
    _edit(root / C1_PAGE, lambda t: t.replace('"type": "markdown"', '"type": "poem"'))


def _invalid_utf8(root: Path) -> None:
    with (root / C1_PAGE).open("ab") as handle:
        handle.write(b"\n\xff\xfe broken\n")


def _page_outside(root: Path) -> None:
    def change(manifest: dict[str, object]) -> None:
        tree = manifest["root"]
        assert isinstance(tree, dict)
        tree["children"][0]["file"] = "../../etc/passwd"

    _edit_manifest(root, change)


def _page_links_outside(root: Path) -> None:
    outside = root.parent / "outside.md"
    shutil.copy(root / C1_PAGE, outside)
    (root / C1_PAGE).unlink()
    (root / C1_PAGE).symlink_to(outside)


def _missing_artifact(root: Path) -> None:
    (root / "results.csv").unlink()


def _absolute_artifact(root: Path) -> None:
    _edit(root / C1_PAGE, lambda t: t.replace('"path": "results.csv"', '"path": "/etc/passwd"'))


def _unclosed_marker(root: Path) -> None:
    with (root / C1_PAGE).open("a", encoding="utf-8") as handle:
        handle.write('\n---\n<!-- trackio-cell\n{"type": "markdown"}\nno closing line\n')


@pytest.mark.parametrize(
    ("corrupt", "names"),
    [
        (_bad_json, [MANIFEST, "invalid JSON"]),
        (_unknown_version, [MANIFEST, "schema_version 99"]),
        (_unknown_cell_type, [C1_PAGE, "'poem'"]),
        (_invalid_utf8, [C1_PAGE, "UTF-8"]),
        (_page_outside, [MANIFEST, "../../etc/passwd"]),
        (_page_links_outside, [MANIFEST, "pages/claim-c1-accuracy/page.md", "outside"]),
        (_missing_artifact, [C1_PAGE, "results.csv", "missing"]),
        (_absolute_artifact, [C1_PAGE, "/etc/passwd"]),
        (_unclosed_marker, [C1_PAGE, "not closed"]),
    ],
    ids=lambda v: getattr(v, "__name__", "")[1:],
)
def test_malformed_logbooks_are_refused(
    copy: Path, corrupt: Callable[[Path], None], names: list[str]
) -> None:
    corrupt(copy)
    with pytest.raises(LogbookError) as caught:
        read_trackio_logbook(copy)
    for name in names:
        assert name in str(caught.value)


def test_broken_cell_marker_names_page_and_line(copy: Path) -> None:
    page = copy / C1_PAGE
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace('{"type": "markdown"', '{"type": "markdown",,'), encoding="utf-8")
    line = 1 + next(i for i, s in enumerate(text.splitlines()) if s.startswith('{"type": "markd'))
    with pytest.raises(LogbookError, match=rf"{C1_PAGE}, line {line}: .*not valid JSON"):
        read_trackio_logbook(copy)


# ---- static exports ----


def test_export_needs_metrics_parquet(tmp_path: Path) -> None:
    with pytest.raises(LogbookError, match=r"metrics\.parquet"):
        read_trackio_export(tmp_path)


def test_export_with_pyarrow(built: tuple[Path, Path], tmp_path: Path) -> None:
    from trackio.sqlite_storage import SQLiteStorage

    SQLiteStorage.export_for_static_space("repro", tmp_path, db_path_override=built[1] / "repro.db")
    metrics = read_trackio_export(tmp_path)
    assert [(m.run, m.key, m.step, m.source) for m in metrics] == [
        ("seed-0", "claims/p1/C1/accuracy", step, "trackio-export") for step in range(3)
    ]
    assert [m.value for m in metrics] == pytest.approx([0.5, 0.6, 0.7])


# ---- the run's times against its metrics' times and the logbook's own ----


def test_an_honest_runs_times_agree_with_its_metrics_and_the_logbook(
    record: LogbookRecord,
) -> None:
    ok = record.runs[0]
    assert record.updated_at is not None  # logbook.json's, rewritten after each cell
    now = datetime.now(UTC).isoformat()
    assert run_time_problems(record, submitted_at=now) == {}
    found = measurements(record, "p1/C1")
    levelled, flags = apply_levels(record, "p1/C1", found, EvidenceLevels(submitted_at=now))
    assert [(m.run, m.level) for m in levelled] == [(ok.id, "self-recorded")], flags


def test_a_minute_long_run_cell_beside_metrics_spanning_300_days_is_testimony(
    built: tuple[Path, Path], copy: Path, tmp_path: Path
) -> None:
    """The attack: the run cell says 60 s (header and body agree, as a forger writes them);
    the metrics database says its Trackio run logged for 300 days. The last step lies in the
    run's window, so it was self-recorded evidence."""
    data = tmp_path / "data"
    shutil.copytree(built[1], data)
    page = copy / C1_PAGE
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("{") and '"command"' in line:
            header = json.loads(line)
            lines[i] = json.dumps({**header, "duration_s": 60.0}) + "\n"
    text = re.sub(r"exit 0 · [\d.]+s", "exit 0 · 60.0s", "".join(lines))
    page.write_text(text, encoding="utf-8")
    with sqlite3.connect(data / "repro.db") as db:
        (first,) = db.execute("SELECT timestamp FROM metrics WHERE step = 0").fetchone()
        early = datetime.fromisoformat(first) - timedelta(days=300)
        db.execute("UPDATE metrics SET timestamp = ? WHERE step = 0", (early.isoformat(),))
    db.close()
    forged = read_trackio_logbook(copy, trackio_dir=data)
    run = forged.runs[0]
    assert (run.duration_s, cell_problems(forged)) == (60.0, {})
    assert "before the run's window" in run_time_problems(forged)[run.id]
    levelled, flags = apply_levels(forged, "p1/C1", measurements(forged, "p1/C1"))
    assert [(m.run, m.level) for m in levelled] == [(run.id, "testimony")]
    assert "run_times_inconsistent" in flags
