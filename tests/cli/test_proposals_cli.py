"""`openrepro papers text` (the stored text quotes are matched against) and `openrepro check
propose` in a workspace (validated, grounded and written to checks.json), in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openrepro.challenge import init_challenge
from openrepro.claims import add_claim
from openrepro.cli import app
from openrepro.errors import CheckError, NotFoundError
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

TEXT = "Theorem 1. The averaged iterate converges at rateO(1/T) and its gap is at most 0.01."


def test_papers_text_and_check_propose(tmp_path: Path) -> None:
    folder = tmp_path / "ch"
    ctx = init_challenge(folder, "test", database_url=f"sqlite:///{tmp_path / 's.db'}")
    try:
        import_papers(ctx.store, ctx.challenge_id,
                      [PaperRecord(venue_id="t1", title="T", abstract="A bound.", full_text=TEXT)],
                      source="test")  # fmt: skip
        with ctx.store.session() as s:  # a quote copied from the PDF, with its spaces
            view = add_claim(s, ctx.challenge_id, "t1", text="Gap at most 0.01.", kind="theory",
                             quotes=["converges at rate O(1/T) and its gap is at most 0.01"],
                             editor="org", drafting="rules")  # fmt: skip
        assert view.quotes[0].text == "converges at rateO(1/T) and its gap is at most 0.01"
        pull_paper(ctx, "t1", tmp_path / "ws")
    finally:
        ctx.close()
    runner = CliRunner()
    shown = runner.invoke(app, ["--dir", str(folder), "papers", "text", "t1"])
    assert shown.exit_code == 0 and TEXT in shown.stdout.replace("\n", " ")
    data = json.loads(runner.invoke(app, ["--dir", str(folder), "papers", "text", "t1",
                                          "-f", "json"]).stdout)  # fmt: skip
    assert (data["field"], data["chars"], data["text"]) == ("full_text", len(TEXT), TEXT)
    missing = runner.invoke(app, ["--dir", str(folder), "papers", "text", "nope"])
    assert isinstance(missing.exception, NotFoundError)

    ws = tmp_path / "ws"
    check = {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
             "comparator": "le", "constant": {"value": 0.01, "text": "0.01"}}  # fmt: skip
    (tmp_path / "check.json").write_text(json.dumps(check))
    done = runner.invoke(app, ["check", "propose", "C1", "--file", str(tmp_path / "check.json"),
                               "--dir", str(ws), "-f", "json"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["quantities"][0]["key"] == "claims/t1/C1/gap"
    written = json.loads((ws / "checks.json").read_text())
    assert written["format"] == 1 and written["checks"]["t1/C1"]["origin"] == "participant"
    for args, error in (
        (["t1/C7", "--json", json.dumps(check)], NotFoundError),
        (["t1/C1", "--json", "{oops"], CheckError),
        (["t1/C1"], CheckError),  # neither --file nor --json
        (["t1/C1", "--json", json.dumps({**check, "constant": {"value": 7, "text": "7"}})],
         CheckError),
    ):  # fmt: skip
        failed = runner.invoke(app, ["check", "propose", *args, "--dir", str(ws)])
        assert isinstance(failed.exception, error), (args, failed.output)
    assert json.loads((ws / "checks.json").read_text()) == written  # refusals changed nothing


@pytest.mark.parametrize("text", ["not json", '{"format": 1, "checks": []}'])
def test_a_broken_checks_file_is_refused_by_propose(tmp_path: Path, text: str) -> None:
    from openrepro.workspace import propose_in_workspace

    (tmp_path / "claims.json").write_text(json.dumps([{"id": "t1/C1", "key": "C1", "quotes": [
        {"text": "its gap is at most 0.01"}]}]))  # fmt: skip
    (tmp_path / "checks.json").write_text(text)
    check = {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
             "comparator": "le", "constant": {"value": 0.01, "text": "0.01"}}  # fmt: skip
    with pytest.raises(CheckError, match=r"checks\.json"):
        propose_in_workspace(tmp_path, "C1", check)
    assert (tmp_path / "checks.json").read_text() == text
