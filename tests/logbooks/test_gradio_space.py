"""Gradio-Space logbooks (the 2026 event's other layout: ``app.py``, ``pages/*.md``,
``evidence/*.json``), written here in that layout: read by folder and by ``space:`` id as
testimony pages plus files no run produced; never evidence on their own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_hub import FakeHub, serve_hub
from huggingface_hub import constants

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.space import download_space, is_gradio_space, read_gradio_space
from openrepro.logbooks.submit import read_logbook, submit_logbook
from openrepro.papers import PaperRecord, import_papers

CARD = """---
title: Reproducing p1
sdk: gradio
app_file: app.py
tags:
  - icml2026-repro
  - paper-p1
---
A reproduction of p1.
"""
APP = """import pathlib
import gradio as gr

with gr.Blocks() as demo:
    for page in sorted(pathlib.Path("pages").glob("*.md")):
        with gr.Tab(page.stem):
            gr.Markdown(page.read_text())
demo.launch()
"""
CLAIM_1 = """# Claim 1: accuracy on GLUE

**Verdict: VERIFIED**

| seed | accuracy |
| --- | --- |
| 0 | 88.0 |
| 1 | 88.3 |

See `evidence/c1_results.json`.
"""
CLAIM_2 = """# Claim 2: robustness

## Verdict: partial

Only the first noise level was run.
"""
RESULTS = {"claim": "C1", "accuracy": [88.0, 88.3], "mean": 88.15}


def make_space(root: Path) -> dict[str, bytes]:
    files = {
        "README.md": CARD.encode(),
        "app.py": APP.encode(),
        "pages/claim_1.md": CLAIM_1.encode(),
        "pages/claim_2.md": CLAIM_2.encode(),
        "evidence/c1_results.json": json.dumps(RESULTS).encode(),
        "evidence/noise.csv": b"noise,accuracy\n0.1,87.2\n0.2,85.0\n",
        "requirements.txt": b"gradio\n",
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return files


def test_a_gradio_space_folder_is_read_as_testimony_and_files(tmp_path: Path) -> None:
    make_space(tmp_path)
    assert is_gradio_space(tmp_path)
    record = read_gradio_space(tmp_path)
    assert (record.format, record.format_version, record.title) == (
        "trackio", "gradio-space", "Reproducing p1")  # fmt: skip
    assert record.paper_id == "p1" and "paper-p1" in record.tags
    assert [p.title for p in record.pages] == ["Claim 1: accuracy on GLUE", "Claim 2: robustness"]
    assert record.claims == ["p1/C1", "p1/C2"]
    assert [t.page for t in record.testimony] == ["claim-1", "claim-2"]
    assert "**Verdict: VERIFIED**" in record.testimony[0].text
    assert record.runs == [] and record.metrics == [] and record.artifacts == []
    assert [f.path for f in record.files] == [
        "app.py", "evidence/c1_results.json", "evidence/noise.csv", "requirements.txt"]  # fmt: skip
    csv = next(t for t in record.tables if t.path == "evidence/noise.csv")
    assert (csv.run, csv.run_ok, csv.columns) == ("", False, ["noise", "accuracy"])
    assert read_logbook(tmp_path).model_dump() == record.model_dump()  # the reader dispatch


def test_what_is_not_a_gradio_space(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.md").write_text("# a\n", encoding="utf-8")
    assert not is_gradio_space(tmp_path)  # no app.py
    with pytest.raises(LogbookError, match="Gradio-Space logbook"):
        read_logbook(tmp_path)
    (tmp_path / "app.py").write_text("print()\n", encoding="utf-8")
    assert is_gradio_space(tmp_path)
    (tmp_path / "logbook.json").write_text("{}", encoding="utf-8")
    assert not is_gradio_space(tmp_path)  # a published Trackio logbook


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    with serve_hub() as fake:
        monkeypatch.setattr(constants, "ENDPOINT", fake.url)
        template = fake.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        yield fake


def test_a_gradio_space_is_submitted_by_its_id(
    challenge: ChallengeContext, tmp_path: Path, hub: FakeHub
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    files = make_space(tmp_path / "made")
    files["big_video.mp4"] = b"0" * 1000  # not a logbook file: not downloaded
    hub.add_repo("space", "ada/repro-p1", files, sdk="gradio")
    folder = download_space("ada/repro-p1", tmp_path / "got", endpoint=hub.url)
    assert not (folder / "big_video.mp4").exists() and (folder / "evidence/noise.csv").is_file()
    report = submit_logbook(challenge, "space:ada/repro-p1", handle="ada")
    assert (report.status, report.paper_id) == ("new", "p1")
    assert report.evidence.runs == [] and report.evidence.metrics == {}
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, report.logbook_id)
    assert record.format_version == "gradio-space" and record.claims == ["p1/C1", "p1/C2"]
    assert "evidence/c1_results.json" in {f.path for f in record.files}
    hub.add_repo("space", "ada/empty", {"app.py": b"print()\n"}, sdk="gradio")
    with pytest.raises(LogbookError, match="not a Gradio-Space logbook"):
        submit_logbook(challenge, "space:ada/empty", handle="bob")
