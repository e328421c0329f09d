"""The judge decides a claim with a check by its relation, on real Trackio logbooks.

"reaches at least 90 % accuracy" measured 95.1 / 95.3 / 94.9 over three seeds: an equality
comparison with the claim's 90 would falsify it; the check (a bound, >= 90) verifies it, and
falsifies it only when the seeds are below 90 with confidence. Without a check nothing is
decided ("no check yet"), and a changed check re-judges.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from test_judge_flow import _trackio  # the trackio CLI in a workspace, as the flow tests run it

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Check
from openrepro.claims.service import set_check
from openrepro.judge.engine import NO_CHECK_RULE
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim, Verdict
from openrepro.workspace import pull_paper

ABSTRACT = "On CIFAR-10 our method reaches at least 90% accuracy with a small backbone."
TRAIN = """
import sys, trackio
for seed, value in enumerate(float(v) for v in sys.argv[1].split(",")):
    trackio.init(project="repro", name=f"seed{seed}")
    trackio.log({"claims/p1/C1/accuracy": value})
    trackio.finish()
"""


def _attempt(ctx: ChallengeContext, tmp: Path, name: str, values: str) -> int:
    ws = tmp / name
    pages = pull_paper(ctx, "p1", ws).pages
    (ws / "train.py").write_text(TRAIN)
    _trackio(ws, "logbook", "run", "--page", pages["p1/C1"], "--", sys.executable, "train.py",
             values)  # fmt: skip
    return submit_logbook(ctx, ws, handle=name).logbook_id


@pytest.fixture
def bound_claim(challenge: ChallengeContext) -> None:
    paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    with challenge.store.session() as s:
        view = add_claim(
            s, challenge.challenge_id, "p1", text="At least 90% accuracy on CIFAR-10.",
            kind="result", quotes=["reaches at least 90% accuracy"], editor="org", drafting="rules"
        )  # fmt: skip
    assert view.check is not None and view.check.relation == "bound"  # drafted by the rules
    assert view.check.constant is not None and view.check.constant.value == 90


def test_a_bound_is_judged_as_a_bound_both_ways(
    challenge: ChallengeContext, bound_claim: None, tmp_path: Path
) -> None:
    ids = {
        "above": _attempt(challenge, tmp_path, "above", "95.1,95.3,94.9"),
        "below": _attempt(challenge, tmp_path, "below", "85.2,85.0,84.9"),
        "noisy": _attempt(challenge, tmp_path, "noisy", "80.0,99.0,91.0"),
    }
    report = judge_logbooks(challenge, None)
    got = {row.logbook_id: row for row in report.verdicts}
    assert got[ids["above"]].verdict == "verified" and got[ids["above"]].rule.startswith("K:")
    assert got[ids["below"]].verdict == "falsified"
    assert got[ids["noisy"]].verdict == "inconclusive"  # too noisy to decide either way
    with challenge.store.session() as s:
        stored = s.scalar(select(Verdict).where(Verdict.logbook_id == ids["above"]))
        assert stored is not None
        details = stored.details
    # the verdict records what a reader needs to redo it: the check, the values, the test
    assert details["check"]["relation"] == "bound"
    assert sorted(details["bound"][0]["seeds"]) == [94.9, 95.1, 95.3]
    assert all("claims/p1/C1/accuracy" in p for p in details["bound"][0]["pointers"])
    assert details["test"] and details["verdict"] == "verified"


def test_without_the_check_nothing_is_decided_and_a_new_check_rejudges(
    challenge: ChallengeContext, bound_claim: None, tmp_path: Path
) -> None:
    """The check removed, the same logbook is not compared with the claim's 90 for equality
    (the old fallback falsified it): inconclusive, "no check yet". Setting a check again makes
    the stored verdict stale, and the next run of the judge decides it under the new check."""
    book = _attempt(challenge, tmp_path, "above", "95.1,95.3,94.9")
    with challenge.store.session() as s:
        before = s.scalar(select(Claim.check))
        set_check(s, challenge.challenge_id, "p1/C1", None, editor="org", reason="test")
        assert s.scalar(select(Claim.check)) is None
    [row] = judge_logbooks(challenge, None).verdicts
    assert (row.logbook_id, row.verdict, row.rule) == (book, "inconclusive", NO_CHECK_RULE)
    [again] = judge_logbooks(challenge, None).verdicts
    assert again.skipped  # nothing changed: the verdict stands
    assert before is not None
    with challenge.store.session() as s:
        set_check(s, challenge.challenge_id, "p1/C1", Check.from_json(before), editor="org",
                  reason="back")  # fmt: skip
    [row] = judge_logbooks(challenge, None).verdicts
    assert not row.skipped and (row.verdict, row.rule[:2]) == ("verified", "K:")
    with challenge.store.session() as s:  # updated in place: one verdict per (logbook, claim)
        assert len(s.scalars(select(Verdict)).all()) == 1


def test_the_participant_sees_the_check(
    challenge: ChallengeContext, bound_claim: None, tmp_path: Path
) -> None:
    """pull writes the check in words, the exact key to log, and the check as JSON."""
    import json

    pull_paper(challenge, "p1", tmp_path / "ws")
    text = (tmp_path / "ws" / "CLAIMS.md").read_text()
    assert "- check: " in text and ">= 90" in text
    assert "- log as: `claims/p1/C1/<metric>`" in text and "`claims/p1/C1/subject`" in text
    [claim] = json.loads((tmp_path / "ws" / "claims.json").read_text())
    assert claim["check"]["relation"] == "bound" and claim["check"]["constant"]["value"] == 90
    assert "95 % confidence" in (tmp_path / "ws" / "INSTRUCTIONS.md").read_text()
