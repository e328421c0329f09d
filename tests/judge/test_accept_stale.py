"""Accepting a check returns the verdicts it made stale: exactly the ones the judge then decides
again. Two participants judged a bound ("at least 90 %") on real Trackio logbooks, one under her
own proposal (provisional); a second claim has no check. The organizer accepts the proposal
(``claims check accept --format json``): the claim's verdicts of both logbooks are listed, the
other claim's are not, and the next run judges exactly those again. Accepting a model's draft
(``--draft``) reports the same way."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select
from test_judge_checks import _attempt, bound_claim  # noqa: F401 (a fixture)
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Check
from openrepro.claims.proposals import propose_check
from openrepro.cli import app
from openrepro.judge.accept import accept_checks
from openrepro.judge.service import judge_logbooks
from openrepro.store import Claim, Participant
from openrepro.store.tables_checks import CheckDraft

#: ana's own reading of "reaches at least 90% accuracy": the same bound, another tolerance
PROPOSAL = {"relation": "bound", "subject": "accuracy", "quantities": [{"name": "accuracy"}],
            "comparator": "ge", "constant": {"value": 90, "text": "90"}, "direction": "higher",
            "tolerance": {"rel": 0}}  # fmt: skip


def _rejudged(ctx: ChallengeContext) -> set[tuple[int, str]]:
    return {(r.logbook_id, r.claim_id) for r in judge_logbooks(ctx, None).verdicts
            if not r.skipped}  # fmt: skip


def test_accepting_returns_exactly_the_verdicts_judged_again(
    challenge: ChallengeContext,
    bound_claim: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    with challenge.store.session() as s:
        add_claim(s, challenge.challenge_id, "p1", text="A small backbone.", kind="result",
                  quotes=["with a small backbone"], editor="org", drafting="rules")  # fmt: skip
    ana = _attempt(challenge, tmp_path, "ana", "95.1,95.3,94.9")
    bo = _attempt(challenge, tmp_path, "bo", "95.0,95.2,95.4")
    with challenge.store.session() as s:
        person = s.scalar(select(Participant).where(Participant.handle == "ana"))
        assert person is not None
        proposed = propose_check(s, challenge.challenge_id, person, "p1/C1", PROPOSAL,
                                 logbook_id=ana)  # fmt: skip
    assert proposed.status == "stored" and proposed.proposal_id is not None
    first = judge_logbooks(challenge, None)
    assert len(first.verdicts) == 4 and "provisional" in next(
        r.flags for r in first.verdicts if (r.logbook_id, r.claim_id) == (ana, "p1/C1")
    )

    runner = CliRunner()
    folder = str(challenge.settings.directory)
    result = runner.invoke(app, ["--dir", folder, "claims", "check", "accept",
                                 str(proposed.proposal_id), "--format", "json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    [accepted] = json.loads(result.stdout)
    assert accepted["status"] == "confirmed"
    made = {(v["logbook_id"], v["claim"]) for v in accepted["stale"]}
    assert made == {(ana, "p1/C1"), (bo, "p1/C1")}
    assert {v["reason"] for v in accepted["stale"]} == {"its check changed"}
    assert {v["participant"] for v in accepted["stale"]} == {"ana", "bo"}
    assert _rejudged(challenge) == made

    assert _rejudged(challenge) == set()  # judged: nothing is stale any more
    # accepted again by another organizer: a new revision of the check, noted with its name:
    # stale again, and judged again
    with challenge.store.session() as s:
        other = accept_checks(s, challenge.challenge_id, proposals=[proposed.proposal_id],
                              editor="another organizer")  # fmt: skip
    assert {(v.logbook_id, v.claim) for v in other.stale} == made
    assert _rejudged(challenge) == made

    # a model's draft accepted in the organizers' queue: the same report, the same re-judging
    with challenge.store.session() as s:
        claim = s.scalar(select(Claim).where(Claim.key == "C1"))
        assert claim is not None
        drafted = Check.from_json(claim.check).model_copy(update={"note": ""})
        loose = drafted.model_copy(
            update={"tolerance": drafted.tolerance.model_copy(update={"rel": 0.02})}
        )
        row = CheckDraft(claim_id=claim.id, drafter="model-b", check=loose.model_dump(mode="json"))
        s.add(row)
        s.flush()
        draft_id = row.id
    result = runner.invoke(app, ["--dir", folder, "claims", "check", "accept", "--draft",
                                 str(draft_id)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2 verdicts made stale" in result.stdout
    assert f"stale: logbook {ana} p1/C1" in result.stdout
    assert f"stale: logbook {bo} p1/C1" in result.stdout
    assert _rejudged(challenge) == {(ana, "p1/C1"), (bo, "p1/C1")}
