"""The workspace carries the check language (CHECKS.md, with an example of each relation that
reads as a check), INSTRUCTIONS.md states the key rules (sweep keys in lower case), rate texts
are grounded as the claims write them, and `check propose` prints the check in words with its
tolerance and the keys to log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openrepro.challenge import init_challenge
from openrepro.claims import add_claim
from openrepro.claims.checks import Check
from openrepro.cli import app
from openrepro.errors import CheckError
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

TEXT = (
    "Theorem 1. The success probability stays Omega(1) as T grows. "
    "Theorem 2. The optimality gap is O(1/eta T) after T steps. "
    "Theorem 3. The excess risk is \u03a9(\u03b7\u00b2(r\u2212\u03c1)\u00b2T) for every horizon."
)
QUOTES = [
    "The success probability stays Omega(1) as T grows.",
    "The optimality gap is O(1/eta T) after T steps.",
    "The excess risk is \u03a9(\u03b7\u00b2(r\u2212\u03c1)\u00b2T) for every horizon.",
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ch"
    ctx = init_challenge(folder, "test", database_url=f"sqlite:///{tmp_path / 's.db'}")
    try:
        import_papers(ctx.store, ctx.challenge_id,
                      [PaperRecord(venue_id="t1", title="T", abstract="Rates.", full_text=TEXT)],
                      source="test")  # fmt: skip
        with ctx.store.session() as s:
            for quote in QUOTES:
                add_claim(s, ctx.challenge_id, "t1", text=quote, kind="theory", quotes=[quote],
                          editor="org", drafting="none")  # fmt: skip
        pull_paper(ctx, "t1", tmp_path / "ws")
    finally:
        ctx.close()
    return tmp_path / "ws"


def test_the_workspace_carries_the_check_language_and_the_key_rules(workspace: Path) -> None:
    checks = (workspace / "CHECKS.md").read_text()
    assert "$" not in checks  # every placeholder filled in
    assert "claims/t1/C1/t" in checks and "binds nothing" in checks
    examples = checks.split("```json\n")[1:]
    assert len(examples) >= 8
    for block in examples:  # every example the participants copy reads as a check
        Check.model_validate(json.loads(block.split("```", 1)[0]))
    instructions = (workspace / "INSTRUCTIONS.md").read_text()
    assert "Sweep keys are in lower case" in instructions
    assert "`claims/<claim id>/T` binds nothing" in instructions
    agents = (workspace / "AGENTS.md").read_text()
    assert "CHECKS.md" in agents and "docs/checks.md" not in agents


def _rate(order: str, value: float, text: str) -> dict[str, object]:
    exponent = {"value": value, "text": text}
    return {"relation": "rate", "subject": "bound", "sweep": "T",
            "quantities": [{"name": "bound"}],
            "rate": {"order": order, "symbol": "T", "exponent": exponent}}  # fmt: skip


@pytest.mark.parametrize(
    ("claim", "check"),
    [
        ("C1", _rate("Omega", 0, "Omega(1)")),
        ("C2", _rate("O", -1, "O(1/eta T)")),
        ("C3", _rate("Omega", 1, "\u03a9(\u03b7\u00b2(r\u2212\u03c1)\u00b2T)")),
        ("C3", _rate("Omega", 1, "T")),  # the bare variable, where the quote writes the rate
        ("C2", _rate("O", -1, "T")),
    ],
)
def test_rate_texts_are_grounded_as_the_claims_write_them_and_printed_in_words(
    workspace: Path, claim: str, check: dict[str, object]
) -> None:
    done = CliRunner().invoke(app, ["check", "propose", claim, "--json", json.dumps(check),
                                    "--dir", str(workspace)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "- check: bound = " in done.stdout and " in T " in done.stdout
    assert "- tolerance: rate: the fitted exponent within" in done.stdout
    assert f"claims/t1/{claim}/t` = the point's T (this key in lower case" in done.stdout


def test_a_rate_text_the_claim_does_not_write_is_refused(workspace: Path) -> None:
    wrong = _rate("O", -2, "O(1/T^2)")
    done = CliRunner().invoke(app, ["check", "propose", "C2", "--json", json.dumps(wrong),
                                    "--dir", str(workspace)])  # fmt: skip
    assert isinstance(done.exception, CheckError) and "not stated" in str(done.exception)
