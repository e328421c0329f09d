"""Reading a logbook published as a Space, with the real huggingface_hub client and a fake Hub.

The logbook is made with the trackio CLI (the ``built`` fixture of :mod:`test_trackio_reader`).
What ``trackio logbook publish`` would upload is prepared without the Hub by :data:`PUBLISH`: it
runs the local steps of trackio's own ``logbook._push`` (and of ``_promote_local_deps``, whose
uploads it skips) with trackio's functions, in the same order, and writes the upload folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_trackio_reader
from fake_hub import FakeHub, serve_hub
from huggingface_hub import constants

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.space import download_space, parse_space_ref, read_space_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers

built = test_trackio_reader.built  # its module-scoped fixture, made again for this module

SPACE = "ada/p1-logbook"
# argv: project folder, upload folder, Space id, TRACKIO_DIR or "" (then no metrics export)
PUBLISH = """\
import json, shutil, sys
from pathlib import Path
from trackio import bucket_storage, logbook as lb

proj, out, space_id, data = Path(sys.argv[1]) / ".trackio", Path(sys.argv[2]), *sys.argv[3:]
metadata = lb.read_metadata(proj)
bucket = f"{space_id}-artifacts"
for entry in metadata.get("local_path_artifacts", []):  # as _promote_local_deps rewrites them
    lb._rewrite_in_pages(
        proj, f"{lb.PATH_ARTIFACT_URI_PREFIX}{entry['path']}",
        f"https://huggingface.co/buckets/{bucket}#"
        f"{bucket_storage.LOGBOOK_FILES_BUCKET_PREFIX}/{entry['path']}",
    )
manifest = lb.write_site_files(proj)  # from here on as _push, private repos, no embedding
(lb.logbook_root(proj) / "README.md").write_text(lb._readme(manifest), encoding="utf-8")
shutil.copytree(lb.logbook_root(proj), out)
published = json.loads(json.dumps(manifest))
published["workspace_ref"] = {
    "repo_id": bucket, "repo_type": "bucket",
    "repo_url": f"https://huggingface.co/buckets/{bucket}", "private": True,
}
published["workspace_bucket"] = published["workspace_ref"]["repo_url"]
published["traces"] = []
shutil.rmtree(out / "traces", ignore_errors=True)
ws = out / "workspace.json"
previous = ws.read_text(encoding="utf-8") if ws.is_file() else None
published["workspace"] = {"file": "workspace.json", "file_count": 0, "total_size": 0,
                          "bucket_id": None}
ws.write_text(lb._reference_only_workspace_json(previous), encoding="utf-8")
(out / "logbook.json").write_text(json.dumps(published, indent=2, ensure_ascii=False),
                                  encoding="utf-8")
if data:  # a participant adds Trackio's static export of the project to the Space
    from trackio.sqlite_storage import SQLiteStorage
    SQLiteStorage.export_for_static_space("repro", out, db_path_override=Path(data) / "repro.db")
"""


@pytest.fixture(autouse=True)
def _hub_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The client as on a participant's machine (see test_publish), whatever the shell has set."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with serve_hub() as fake:
        # As HF_ENDPOINT would set them at import (submit_logbook uses the defaults). Both: with
        # only ENDPOINT patched, file URLs would still be built on huggingface.co.
        monkeypatch.setattr(constants, "ENDPOINT", fake.url)
        template = fake.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        yield fake


def _published(built: tuple[Path, Path], top: Path, *, export: bool) -> dict[str, bytes]:
    """The files `trackio logbook publish` would upload, by path in the Space."""
    project, data = built
    copy, out = top / "project", top / "upload"
    subprocess.run(["cp", "-a", str(project), str(copy)], check=True)
    env = {**os.environ, "TRACKIO_DIR": str(data), "HOME": str(top), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PUBLISH, str(copy), str(out), SPACE, str(data) if export else ""],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ignored = {".sync_lock", ".sync_pending", ".sync.log"}  # _push's ignore_patterns
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in ignored
    }


def test_space_refs() -> None:
    assert parse_space_ref("space:ada/p1-logbook") == SPACE
    assert parse_space_ref(" hf:ada/p1-logbook ") == SPACE
    assert parse_space_ref("hf:spaces/ada/p1-logbook") == SPACE
    assert parse_space_ref("https://huggingface.co/spaces/ada/p1-logbook") == SPACE
    assert parse_space_ref("https://hf.co/spaces/ada/p1-logbook/tree/main") == SPACE
    for local in ("ada/p1-logbook", "./space:x", "logbook.tar.gz", "/tmp/a/b", ""):
        assert parse_space_ref(local) is None
    others = ["https://huggingface.co/ada/model", "https://example.com/spaces/a/b"]
    others += ["https://ada-p1-logbook.hf.space", "http://huggingface.co/spaces/a/b"]
    for other in others:
        assert parse_space_ref(other) is None
    for bad in ("space:ada", "hf:a/b/c", "space:a--b/c", "https://huggingface.co/spaces/a/b..c"):
        with pytest.raises(LogbookError, match="not a Space id"):
            parse_space_ref(bad)


def test_published_layout_is_downloaded_and_read(
    built: tuple[Path, Path], tmp_path: Path, hub: FakeHub
) -> None:
    files = _published(built, tmp_path, export=False)
    assert {"README.md", "logbook.json", "pages/index.md", "index.html"} <= set(files)
    assert not any(p.startswith("traces/") or p == "results.csv" for p in files)
    hub.add_repo("space", SPACE, files, sdk="static")
    folder = download_space(SPACE, tmp_path / "dl", endpoint=hub.url)
    got = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert {p for p in got if not p.startswith(".cache/")} == {
        "logbook.json",
        "pages/index.md",
        "pages/claim-c1-accuracy/page.md",
        "pages/claim-c2-robustness/page.md",
    }
    assert hub.unknown == []
    record = read_space_logbook(folder)
    assert (record.format, record.title, record.paper_id) == ("trackio", "Reproducing p1", "p1")
    assert [(r.exit_code, r.command[-1]) for r in record.runs] == [(0, "train.py"), (1, "fail.py")]
    assert "final accuracy 0.7" in record.runs[0].output
    assert record.runs[0].produced == []  # results.csv went to the bucket, not the Space
    assert record.artifacts == [] and record.files == []
    assert any(c.type == "artifact" for p in record.pages for c in p.cells)
    assert record.metrics == []
    assert record.testimony and "exactly as the paper says" in record.testimony[0].text


def test_metrics_from_a_static_export_in_the_space(
    built: tuple[Path, Path], tmp_path: Path, hub: FakeHub
) -> None:
    files = _published(built, tmp_path, export=True)
    assert {"metrics.parquet", "runs.json"} <= set(files)
    hub.add_repo("space", SPACE, files, sdk="static")
    record = read_space_logbook(download_space(SPACE, tmp_path / "dl", endpoint=hub.url))
    accuracy = [
        (m.run, m.step, round(m.value, 6), m.source)
        for m in record.metrics
        if m.key == "claims/p1/C1/accuracy"
    ]
    assert accuracy == [("seed-0", s, round(0.5 + 0.1 * s, 6), "trackio-export") for s in range(3)]
    assert "p1/C1" in record.claims


def test_hub_errors_name_the_space(tmp_path: Path, hub: FakeHub) -> None:
    with pytest.raises(LogbookError, match=r"Space ada/missing: not found \(404\)"):
        download_space("ada/missing", tmp_path / "a", endpoint=hub.url, token="hf_test")
    with pytest.raises(LogbookError, match=r"Space ada/missing: private or not found \(401\)"):
        download_space("ada/missing", tmp_path / "a", endpoint=hub.url)  # anonymous: no telling
    hub.add_repo("space", "ada/secret", {"logbook.json": b"{}"}, private=True)
    with pytest.raises(LogbookError, match=r"Space ada/secret: private .*\(401\)"):
        download_space("ada/secret", tmp_path / "b", endpoint=hub.url)
    assert download_space("ada/secret", tmp_path / "c", endpoint=hub.url, token="hf_test")
    hub.add_repo("space", "ada/site", {"index.html": b"<html></html>"})
    with pytest.raises(LogbookError, match=r"Space ada/site: no logbook\.json in it"):
        download_space("ada/site", tmp_path / "d", endpoint=hub.url)
    hub.add_repo("space", "ada/big", {"logbook.json": b"{}", "pages/index.md": b"x" * 100})
    with pytest.raises(LogbookError, match=r"Space ada/big: .* more than the cap of 50"):
        download_space("ada/big", tmp_path / "e", endpoint=hub.url, max_bytes=50)
    assert not (tmp_path / "e").exists()  # refused before anything was downloaded


def test_submit_a_space(
    challenge: ChallengeContext, built: tuple[Path, Path], tmp_path: Path, hub: FakeHub
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    hub.add_repo("space", SPACE, _published(built, tmp_path, export=True), sdk="static")
    report = submit_logbook(challenge, f"space:{SPACE}", handle="ada")
    assert (report.status, report.paper_id, report.format) == ("new", "p1", "trackio")
    assert [r["exit_code"] for r in report.evidence.runs] == [0, 1]
    assert report.evidence.metrics["claims/p1/C1/accuracy"] == 3
    again = submit_logbook(challenge, f"https://huggingface.co/spaces/{SPACE}", handle="ada")
    assert (again.status, again.logbook_id) == ("unchanged", report.logbook_id)
    with pytest.raises(LogbookError, match="no such file or folder"):
        submit_logbook(challenge, SPACE, handle="ada")  # a bare owner/name is a local path


def test_a_spaces_evidence_map_is_downloaded_and_kept(
    challenge: ChallengeContext, built: tuple[Path, Path], tmp_path: Path, hub: FakeHub
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    files = _published(built, tmp_path, export=True)
    entry = {"accuracy": {"metric": "claims/p1/C1/accuracy"}}
    files["evidence_map.json"] = json.dumps({"format": 1, "claims": {"p1/C1": entry}}).encode()
    hub.add_repo("space", SPACE, files, sdk="static")
    report = submit_logbook(challenge, f"space:{SPACE}", handle="ada")
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, report.logbook_id)
    assert record.evidence_map is not None and "p1/C1" in record.evidence_map.claims
    assert "evidence_map.json" in {f.path for f in record.files}
    files["evidence_map.json"] = b'{"format": 7}'  # a malformed map refuses the submission
    hub.add_repo("space", "ada/other", files, sdk="static")
    with pytest.raises(LogbookError, match=r"evidence_map\.json"):
        submit_logbook(challenge, "space:ada/other", handle="bob")


def test_submit_a_schema_1_space_linked_by_its_tag(
    challenge: ChallengeContext, built: tuple[Path, Path], tmp_path: Path, hub: FakeHub
) -> None:
    """The event's Spaces: schema 1, ``paper: null``, the paper named by a ``paper-<id>`` tag."""
    paper = PaperRecord(venue_id="Qx7Rp2LmNa", title="P", abstract="a")
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    files = _published(built, tmp_path, export=False)
    manifest = json.loads(files["logbook.json"])
    manifest.update(schema_version=1, paper=None, tags=["icml2026-repro", "paper-Qx7Rp2LmNa"])
    manifest.pop("traces", None)
    files["logbook.json"] = json.dumps(manifest).encode()
    hub.add_repo("space", SPACE, files, sdk="static")
    report = submit_logbook(challenge, f"space:{SPACE}", handle="ada")
    assert (report.paper_id, report.linked_by.split()[0]) == ("Qx7Rp2LmNa", "tag")
    assert "Qx7Rp2LmNa/C1" in report.claims
