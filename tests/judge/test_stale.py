"""One rule says when a stored verdict is judged again (:func:`openrepro.judge.stale.stale`), and
every caller asks it: the bulk pre-check of a run (``judged_already``), the per-logbook loop
(``judge_logbook``, which the queue's workers and Ray run) and the list of stale verdicts an
accepted check reports (``stale_verdicts``). Each reason is checked on the rule itself and
through every caller, on a real Trackio logbook, so dropping a reason anywhere fails here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from test_judge_checks import _attempt, bound_claim  # noqa: F401 (a fixture)

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check
from openrepro.claims.service import set_check
from openrepro.judge.service import judge_logbook, judge_logbooks, judged_already
from openrepro.judge.stale import StoredVerdict, VerdictInputs, stale, stale_verdicts
from openrepro.store import Claim, Participant, Verdict, VerdictEdit
from openrepro.store.tables_provenance import Replay
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

JUDGED = datetime(2026, 5, 1, 12, 0)  # naive UTC, as SQLite gives it back
LATER = JUDGED + timedelta(minutes=1)
EARLIER = JUDGED - timedelta(minutes=1)


def test_a_verdict_stands_while_its_inputs_do() -> None:
    verdict = StoredVerdict("d1", JUDGED)
    assert stale(verdict, VerdictInputs("d1")) is None
    assert stale(verdict, VerdictInputs("d1", replayed_at=EARLIER, answered_at=EARLIER)) is None


def test_a_changed_check_makes_it_stale_edited_or_not() -> None:
    assert stale(StoredVerdict("d1", JUDGED), VerdictInputs("d2")) == "its check changed"
    assert stale(StoredVerdict("d1", JUDGED, edited=True), VerdictInputs("d2")) is not None
    assert stale(StoredVerdict("", JUDGED), VerdictInputs("d2")) == "its check changed"  # added


def test_a_later_replay_makes_it_stale_unless_an_organizer_edited_it() -> None:
    why = stale(StoredVerdict("d1", JUDGED), VerdictInputs("d1", replayed_at=LATER))
    assert why == "a replay or attestation of its logbook came after it"
    assert stale(StoredVerdict("d1", JUDGED, edited=True),
                 VerdictInputs("d1", replayed_at=LATER)) is None  # fmt: skip
    # PostgreSQL gives aware times: compared as UTC
    aware = LATER.replace(tzinfo=UTC).astimezone(UTC)
    assert stale(StoredVerdict("d1", JUDGED), VerdictInputs("d1", replayed_at=aware)) is not None


def test_a_later_review_answer_makes_it_stale_edited_or_not() -> None:
    why = stale(StoredVerdict("d1", JUDGED), VerdictInputs("d1", answered_at=LATER))
    assert why == "a review answer for its claim came after it"
    assert stale(StoredVerdict("d1", JUDGED, edited=True),
                 VerdictInputs("d1", answered_at=LATER)) is not None  # fmt: skip


def _answer(ctx: ChallengeContext, logbook: int, claim: int, person: int) -> None:
    """A review answer for the claim on the logbook, stored now."""
    with ctx.store.session() as s:
        task = ReviewTaskRow(name="t", logbook_id=logbook, claim_id=claim, question="usable?",
                             scale="options", options=["usable", "not usable"])  # fmt: skip
        s.add(task)
        s.flush()
        reviewer = ReviewerRow(task_id=task.id, participant_id=person, role="self")
        s.add(reviewer)
        s.flush()
        s.add(ReviewAnswerRow(task_id=task.id, reviewer_id=reviewer.id, slot=0, item="i0",
                              shown_order="A", answer="usable", shown_answer="usable"))  # fmt: skip


@pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
def test_every_caller_judges_again_for_every_reason(
    challenge: ChallengeContext,
    bound_claim: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    book = _attempt(challenge, tmp_path, "ana", "95.1,95.3,94.9")
    config = judge_logbooks(challenge, None).judge_config
    with challenge.store.session() as s:
        claim = s.scalar(select(Claim))
        assert claim is not None
        claim_id, check = claim.id, Check.from_json(claim.check)
        person = s.scalar(select(Participant.id).where(Participant.handle == "ana"))
        assert person is not None

    def after(change: str) -> None:
        """The change made the verdict stale for every caller, with its reason; judged again
        (in place), it stands again for every caller."""
        with challenge.store.session() as s:
            [listed] = stale_verdicts(s, challenge.challenge_id, [claim_id])
        assert (listed.logbook_id, listed.claim, listed.reason) == (book, "p1/C1", change)
        assert book not in judged_already(challenge, [book], config)
        [row] = judge_logbook(challenge, book, config=config)[0]  # the per-logbook loop itself
        assert not row.skipped, change
        [again] = judge_logbooks(challenge, None).verdicts
        assert again.skipped, change
        assert book in judged_already(challenge, [book], config)
        with challenge.store.session() as s:
            assert stale_verdicts(s, challenge.challenge_id, [claim_id]) == []
            assert len(s.scalars(select(Verdict)).all()) == 1

    assert book in judged_already(challenge, [book], config)
    with challenge.store.session() as s:
        set_check(s, challenge.challenge_id, "p1/C1", check.model_copy(
            update={"tolerance": check.tolerance.model_copy(update={"rel": 0.01})}),
            editor="org", reason="a tolerance")  # fmt: skip
    after("its check changed")

    with challenge.store.session() as s:
        s.add(Replay(logbook_id=book, run_id="x", kind="replay", status="matched",
                     level="replayed", details={}))  # fmt: skip
    after("a replay or attestation of its logbook came after it")

    _answer(challenge, book, claim_id, person)
    after("a review answer for its claim came after it")

    # an organizer's edit stands against a later replay, for every caller
    with challenge.store.session() as s:
        verdict = s.scalar(select(Verdict))
        assert verdict is not None
        s.add(VerdictEdit(verdict_id=verdict.id, old_value=verdict.verdict, new_value="toy",
                          editor="org", reason="test"))  # fmt: skip
        s.add(Replay(logbook_id=book, run_id="y", kind="replay", status="matched",
                     level="replayed", details={}))  # fmt: skip
    with challenge.store.session() as s:
        assert stale_verdicts(s, challenge.challenge_id, [claim_id]) == []
    assert book in judged_already(challenge, [book], config)
    assert judge_logbook(challenge, book, config=config)[0][0].skipped
