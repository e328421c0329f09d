"""A participant's agent gets every CPU-checkable claim of a small theory paper judged, following
only its workspace: pull, propose checks (``openrepro check propose`` writes ``checks.json``),
log real Trackio runs through ``trackio logbook run``, submit; the verdicts are provisional and
count nowhere until an organizer accepts the proposals in one command; then the judge decides
those claims again and the verdicts count in the claims' consensus and the paper's outcome.

The paper is fictional, written for this test in the style of the event's theory papers: a
bound, an ordering and a monotone trend over a sweep (relations the check language has today),
and a claim no CPU can check (a proof sketch), which stays ``inconclusive`` ("no check yet").
SQLite only: one end-to-end path, kept short (a few seconds, most of it Trackio).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_judge_flow import _trackio  # the trackio CLI in a workspace, as the flow tests run it
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.claims.service import set_check
from openrepro.cli import app
from openrepro.errors import CheckError
from openrepro.judge.engine import NO_CHECK_RULE
from openrepro.judge.service import judge_logbooks
from openrepro.outcomes import claim_consensus, paper_outcomes
from openrepro.papers import PaperRecord, import_papers

ABSTRACT = (
    "We study stochastic gradient descent with tail averaging on noisy quadratic objectives. "
    "After 2000 steps the optimality gap of the tail-averaged iterate is at most 0.01. "
    "The tail-averaged iterate has a lower optimality gap than the last iterate. "
    "The optimality gap of the averaged iterate decreases as the number of steps grows. "
    "Our proof extends to every smooth strongly convex objective."
)
CLAIMS = (
    ("The averaged gap after 2000 steps is at most 0.01.", "theory",
     "After 2000 steps the optimality gap of the tail-averaged iterate is at most 0.01"),
    ("Averaging beats the last iterate.", "theory",
     "The tail-averaged iterate has a lower optimality gap than the last iterate"),
    ("The averaged gap decreases with the number of steps.", "theory",
     "optimality gap of the averaged iterate decreases as the number of steps grows"),
    ("The proof extends to smooth strongly convex objectives.", "theory",
     "Our proof extends to every smooth strongly convex objective"),
)  # fmt: skip

#: what the agent proposes, claim by claim (its own reading of each quote)
PROPOSALS = {
    "t1/C1": {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
              "comparator": "le", "constant": {"value": 0.01, "text": "0.01"},
              "direction": "lower"},
    "t1/C2": {"relation": "ordering", "subject": "averaged", "baselines": ["last"],
              "quantities": [{"name": "averaged"}, {"name": "last"}], "direction": "lower"},
    "t1/C3": {"relation": "trend", "subject": "gap", "quantities": [{"name": "gap"}],
              "trend": "decreasing", "sweep": "steps"},
}  # fmt: skip

#: SGD with step 0.1 on f(x) = x^2 / 2 with gradient noise 0.5, 100 chains per Trackio run;
#: the gaps are f at the last iterate and at the average of the second half of the iterates
SGD = """
import random, trackio

def gaps(steps, seed, chains=100):
    rng = random.Random(seed)
    last = avg = 0.0
    for _ in range(chains):
        x, tail, n = 1.0, 0.0, 0
        for t in range(steps):
            x -= 0.1 * (x + 0.5 * rng.gauss(0.0, 1.0))
            if t >= steps // 2:
                tail, n = tail + x, n + 1
        last += x * x / 2 / chains
        avg += (tail / n) ** 2 / 2 / chains
    return avg, last

for seed in range(3):
    avg, last = gaps(2000, seed)
    trackio.init(project="repro-t1", name=f"seed{seed}", config={"seed": seed})
    trackio.log({"claims/t1/C1/gap": avg, "claims/t1/C2/averaged": avg,
                 "claims/t1/C2/last": last})
    trackio.finish()
for steps in (200, 300, 400, 500, 600, 700):
    avg, _ = gaps(steps, 10 + steps)
    trackio.init(project="repro-t1", name=f"steps{steps}", config={"steps": steps})
    trackio.log({"claims/t1/C3/steps": steps, "claims/t1/C3/gap": avg})
    trackio.finish()
print("done")
"""


@pytest.fixture
def theory(tmp_path: Path) -> Iterator[ChallengeContext]:
    """The fictional theory paper, its four claims, and no check on any of them (what the
    rules draft today is cleared, so the test does not depend on the drafter)."""
    ctx = init_challenge(tmp_path / "ch", "test", venue="Test/2026",
                         database_url=f"sqlite:///{tmp_path / 'store.db'}")  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id,
                  [PaperRecord(venue_id="t1", title="Tail averaging", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    with ctx.store.session() as s:
        for text, kind, quote in CLAIMS:
            view = add_claim(s, ctx.challenge_id, "t1", text=text, kind=kind, quotes=[quote],
                             editor="org", drafting="rules")  # fmt: skip
            if view.check is not None:
                set_check(s, ctx.challenge_id, view.id, None, editor="org", reason="test")
    try:
        yield ctx
    finally:
        ctx.close()


def test_an_agent_gets_every_checkable_claim_judged_and_an_organizer_confirms(
    theory: ChallengeContext, tmp_path: Path
) -> None:
    runner = CliRunner()
    folder = tmp_path / "ch"

    def cli(*args: str) -> str:
        result = runner.invoke(app, ["--dir", str(folder), *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    ws = tmp_path / "ws"
    pages = json.loads(cli("pull", "t1", "--dir", str(ws), "--format", "json"))["pages"]
    claims_md = (ws / "CLAIMS.md").read_text(encoding="utf-8")
    assert claims_md.count("no check yet") == 4  # the workspace says what happens without one
    assert "checks.json" in (ws / "AGENTS.md").read_text(encoding="utf-8")

    # the agent proposes a check per CPU-checkable claim; a wrong constant is refused locally
    wrong = {**PROPOSALS["t1/C1"], "constant": {"value": 0.001, "text": "0.001"}}
    refused = runner.invoke(app, ["check", "propose", "t1/C1", "--json", json.dumps(wrong),
                                  "--dir", str(ws)])  # fmt: skip
    assert isinstance(refused.exception, CheckError)  # main() prints it as one line, exit 2
    assert "not stated in the quote" in str(refused.exception)
    assert not (ws / "checks.json").exists()
    for claim, check in PROPOSALS.items():
        cli("check", "propose", claim, "--json", json.dumps(check), "--dir", str(ws))
    written = json.loads((ws / "checks.json").read_text(encoding="utf-8"))
    assert sorted(written["checks"]) == sorted(PROPOSALS)

    # it reproduces through the logbook, with real Trackio runs
    (ws / "sgd.py").write_text(SGD, encoding="utf-8")
    _trackio(ws, "logbook", "run", "--page", pages["t1/C1"], "--", sys.executable, "sgd.py")

    submitted = json.loads(cli("submit", str(ws), "--as", "ana", "--format", "json"))
    outcomes = {p["claim"]: p for p in submitted["proposals"]}
    assert {c: o["status"] for c, o in outcomes.items()} == dict.fromkeys(PROPOSALS, "stored")
    assert all(o["used"] for o in outcomes.values())
    origins = {b["claim"]: b["origin"] for b in submitted["bindings"]}
    assert origins == {"t1/C1": "proposal", "t1/C2": "proposal", "t1/C3": "proposal",
                       "t1/C4": ""}  # fmt: skip

    # judged under the participant's own proposals: decided, provisional, counted nowhere
    first = {r.claim_id: r for r in judge_logbooks(theory, None).verdicts}
    for claim in PROPOSALS:
        assert first[claim].verdict == "verified", first[claim]
        assert "provisional" in first[claim].flags and first[claim].rule.startswith("K:")
    assert (first["t1/C4"].verdict, first["t1/C4"].rule) == ("inconclusive", NO_CHECK_RULE)
    consensus = {c.key: c.consensus for c in claim_consensus(theory)}
    assert consensus == dict.fromkeys(("C1", "C2", "C3", "C4"), "inconclusive")
    [outcome] = paper_outcomes(theory)
    assert not outcome.partially_reproduced

    # the organizer accepts the three proposals in one command; the judge decides them again
    listed = json.loads(cli("claims", "check", "proposals", "--format", "json"))
    ids = [str(p["id"]) for p in listed]
    accepted = json.loads(cli("claims", "check", "accept", *ids, "--format", "json"))
    assert {a["status"] for a in accepted} == {"confirmed"}
    shown = cli("claims", "show", "t1/C2")
    # an accepted proposal is the organizer's check now, and says whose proposal it was
    assert "check: " in shown and "organizer" in shown and "proposal 2 accepted" in shown
    second = {r.claim_id: r for r in judge_logbooks(theory, None).verdicts}
    for claim in PROPOSALS:
        row = second[claim]
        assert not row.skipped and row.verdict == "verified" and "provisional" not in row.flags
    assert second["t1/C4"].skipped  # its check did not change: the verdict stands
    consensus = {c.key: c.consensus for c in claim_consensus(theory)}
    assert consensus == {"C1": "verified", "C2": "verified", "C3": "verified",
                         "C4": "inconclusive"}  # fmt: skip
    [outcome] = paper_outcomes(theory)
    assert outcome.partially_reproduced and not outcome.fully_reproduced


def test_submit_reports_each_proposal_and_a_broken_checks_file(
    theory: ChallengeContext, tmp_path: Path
) -> None:
    from openrepro.intake import submit
    from openrepro.workspace import pull_paper

    ws = tmp_path / "ws"
    pull_paper(theory, "t1", ws)
    (ws / "checks.json").write_text("{not json", encoding="utf-8")
    report = submit(theory, ws, "bo")
    assert report.proposals == [] and report.status == "new"  # the logbook is stored anyway
    assert any(w.startswith("checks.json: not JSON") and "no check proposal was taken" in w
               for w in report.warnings)  # fmt: skip
    wrong = {**PROPOSALS["t1/C1"], "constant": {"value": 0.5, "text": "0.5"}}
    (ws / "checks.json").write_text(json.dumps({"format": 1, "checks": {
        "C1": wrong, "t1/C2": PROPOSALS["t1/C2"], "t9/C1": PROPOSALS["t1/C1"]}}))  # fmt: skip
    report = submit(theory, ws, "bo")
    assert report.status == "new-revision"  # checks.json is part of the logbook
    got = {p.claim: (p.status, p.reason) for p in report.proposals}
    assert got["t1/C1"][0] == "refused" and "0.5" in got["t1/C1"][1]
    assert got["t1/C2"] == ("stored", "")
    assert got["t9/C1"] == ("refused", "not a claim of t1")
    origins = {b.claim: b.origin for b in report.bindings}
    assert origins["t1/C2"] == "proposal" and origins["t1/C1"] == ""
