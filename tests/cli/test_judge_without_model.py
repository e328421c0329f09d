"""`openrepro judge` without a model: claims decided by their checks are judged; the model is
asked for only by a claim that needs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_judge_flow import _trackio  # the trackio CLI in a workspace, as the flow tests run it
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.cli import app
from openrepro.config import Settings
from openrepro.errors import LLMUnavailableError
from openrepro.llm import open_client
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

ABSTRACT = "On CIFAR-10 our method reaches at least 90% accuracy with a small backbone."
TRAIN = """
import trackio
for seed, value in enumerate([95.1, 95.3, 94.9]):
    trackio.init(project="repro", name=f"seed{seed}")
    trackio.log({"claims/p1/C1/accuracy": value})
    trackio.finish()
"""


def test_judge_runs_the_check_path_without_the_embedded_model(
    challenge: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, "p1", text="At least 90% accuracy.",
                         kind="result", quotes=["reaches at least 90%"], editor="org",
                         drafting="rules")  # fmt: skip
    assert view.check is not None  # decided by code, no model needed
    ws = tmp_path / "ws"
    pages = pull_paper(challenge, "p1", ws).pages
    (ws / "train.py").write_text(TRAIN)
    _trackio(ws, "logbook", "run", "--page", pages["p1/C1"], "--", sys.executable, "train.py")
    logbook_id = submit_logbook(challenge, ws, handle="ada").logbook_id
    # no model: the configured GGUF file does not exist
    monkeypatch.setenv("OPENREPRO_LLM_MODEL_PATH", str(tmp_path / "missing.gguf"))
    result = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "judge",
                                      "--all", "-f", "json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(r["claim_id"], r["verdict"], r["path"]) for r in report["verdicts"]] == [
        ("p1/C1", "verified", "deterministic")
    ]
    assert report["usage"]["calls"] == 0

    # `verdicts ls --logbook/--participant` filter (one logbook here: each filter keeps or drops it)
    def listed(*args: str) -> list[int]:
        done = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "verdicts",
                                        "ls", "-f", "json", *args])  # fmt: skip
        assert done.exit_code == 0, done.output
        return [cell["logbook_id"] for cell in json.loads(done.stdout)]

    assert listed("--participant", "ada") == listed("--logbook", str(logbook_id)) == [logbook_id]
    assert listed("--logbook", str(logbook_id + 1)) == []
    # `status --as` in the challenge folder: the record `GET /api/v1/me/logbooks` serves
    mine = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "status", "--as",
                                    "ada", "-f", "json"])  # fmt: skip
    assert mine.exit_code == 0, mine.output
    (book,) = json.loads(mine.stdout)["logbooks"]
    (claim,) = book["claims"]
    assert (book["logbook_id"], claim["claim"], claim["verdict"]) == (
        logbook_id,
        "p1/C1",
        "verified",
    )
    assert claim["rule"] and [b["how"] for b in claim["bindings"]] == ["key"]
    assert claim["recheck"] is None
    challenge_dir = str(challenge.settings.directory)
    unknown = CliRunner().invoke(app, ["--dir", challenge_dir, "verdicts", "ls", "--participant",
                                       "nobody"])  # fmt: skip
    assert unknown.exit_code != 0 and "nobody" in str(unknown.exception)


def test_a_deferred_model_is_asked_for_by_the_first_call_that_needs_it(tmp_path: Path) -> None:
    settings = Settings(name="t", llm_model_path="missing.gguf", directory=tmp_path)
    client = open_client(settings, defer=True)  # nothing is opened yet
    assert (client.backend.name, client.backend.model) == ("embedded", "missing")
    with pytest.raises(LLMUnavailableError, match=r"missing\.gguf|llama-cpp-python"):
        client.backend.generate([], schema={}, schema_name="x", max_tokens=8, seed=0)


def test_judge_asks_for_the_model_only_for_a_claim_that_needs_it(
    challenge: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstract = "Our sparse model reaches 88.1 average accuracy on GLUE."
    paper = PaperRecord(venue_id="p1", title="Sparse", abstract=abstract)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, "p1", text="Reaches 88.1% GLUE accuracy.",
                         kind="result", quotes=["reaches 88.1 average accuracy"],
                         editor="org", drafting="rules")  # fmt: skip
    assert view.check is not None  # the rules draft the equality
    ws = tmp_path / "ws"
    pages = pull_paper(challenge, "p1", ws).pages
    # a printed table whose column is named after neither the check's quantity nor the
    # claim's metric: binding needs the model to choose among the numbered pointers
    table = "GLUE results\n\ntrial,score\n0,88.0\n1,88.2\n2,87.9\n"
    (ws / "eval.py").write_text(f"print({table!r})\n", encoding="utf-8")
    _trackio(ws, "logbook", "run", "--page", pages["p1/C1"], "--", sys.executable, "eval.py")
    submit_logbook(challenge, ws, handle="ada")
    monkeypatch.setenv("OPENREPRO_LLM_MODEL_PATH", str(tmp_path / "missing.gguf"))
    result = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "judge",
                                      "--all", "-f", "json"])  # fmt: skip
    assert isinstance(result.exception, LLMUnavailableError)
    assert "a claim needs the judge model" in str(result.exception)
    assert "--no-llm" in str(result.exception)
    without = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "judge",
                                       "--all", "--no-llm", "-f", "json"])  # fmt: skip
    assert without.exit_code == 0, without.output
    assert [r["verdict"] for r in json.loads(without.stdout)["verdicts"]] == ["inconclusive"]
