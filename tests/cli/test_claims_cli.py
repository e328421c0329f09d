"""`openrepro claims` end to end as a subprocess, with the real embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

ABSTRACT = (
    "We introduce sparse adapters for language models. On GLUE, the method reaches 88.1 average "
    "accuracy with a 350M-parameter backbone. Training is 1.9x faster per step on a single A100."
)


@pytest.fixture
def folder(tmp_path: Path, embedded_model_path: Path) -> Path:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    listing = tmp_path / "papers.json"
    listing.write_text(json.dumps([{"id": "p1", "title": "Sparse", "abstract": ABSTRACT}]))
    folder = tmp_path / "c"
    assert run("papers", "import", str(listing), cwd=folder).returncode == 0
    return folder


def test_extract_then_curate(folder: Path) -> None:
    env = {"OPENREPRO_LLM_THREADS": "1"}
    first = run("claims", "extract", "p1", "-f", "json", cwd=folder, env=env, fresh=True)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["usage"]["calls"] >= 1
    again = run("claims", "extract", "--all", cwd=folder, env=env)
    assert again.returncode == 0, again.stderr
    assert "LLM usage: 0 calls" in again.stdout  # resumed: nothing left to do

    added = run("claims", "add", "p1", "--text", "1.9x faster training.", "--kind",
                "efficiency", "--quote", "Training is 1.9x faster per step", "--by", "ana",
                "-f", "json", cwd=folder)  # fmt: skip
    assert added.returncode == 0, added.stderr
    claim_id = json.loads(added.stdout)["id"]
    assert claim_id.startswith("p1/C")

    refused = run("claims", "add", "p1", "--text", "x", "--kind", "result", "--quote",
                  "Training is 9.9x faster per step", cwd=folder)  # fmt: skip
    assert refused.returncode == 2
    assert "not found verbatim" in refused.stderr

    edited = run("claims", "edit", claim_id, "--kind", "result", "--reason", "test", "--by",
                 "bo", cwd=folder)  # fmt: skip
    assert edited.returncode == 0, edited.stderr
    showing = run("claims", "show", claim_id, "-f", "json", cwd=folder)
    assert showing.returncode == 0, showing.stderr
    shown = json.loads(showing.stdout)
    assert shown["kind"] == "result"
    assert [(e["field"], e["old"], e["new"]) for e in shown["edits"]][-1] == (
        "kind", "efficiency", "result"
    )  # fmt: skip
    people = run("claims", "show", claim_id, cwd=folder)
    assert "Training is 1.9x faster per step" in people.stdout

    assert run("claims", "rm", claim_id, "--reason", "dup", cwd=folder).returncode == 0
    listed = json.loads(run("claims", "ls", "--paper", "p1", "-f", "json", cwd=folder).stdout)
    assert claim_id not in [c["id"] for c in listed]
    with_removed = json.loads(run("claims", "ls", "--removed", "-f", "json", cwd=folder).stdout)
    assert claim_id in [c["id"] for c in with_removed]
    papers = json.loads(run("papers", "ls", "--has-claims", "-f", "json", cwd=folder).stdout)
    assert papers["total"] == (1 if len(listed) else 0)
