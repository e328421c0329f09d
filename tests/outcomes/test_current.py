"""One current verdict: every view (outcomes, stats, re-check, outreach, board, freeze) counts the
same value for the same verdict.

The store below is where two copies of "current verdict" used to disagree: with
``min_provenance_verified = "replayed"``, a ``verified`` resting on self-recorded evidence counts
as ``inconclusive`` in outcomes and the frozen dataset, while the re-check path (and through it
the message to the authors) still called it ``verified``.
"""

from __future__ import annotations

import json
from pathlib import Path

from outcome_store import build_outcome_store
from sqlalchemy import select

from openrepro.board.data import recheck_entries, verdict_cells
from openrepro.challenge import ChallengeContext
from openrepro.freeze import export_dataset
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.outcomes import compute_stats, current_verdicts, override_verdict
from openrepro.outreach import draft_messages
from openrepro.recheck import decide, recheck_queue
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit


def _weak_verified(challenge: ChallengeContext) -> dict[int, str]:
    """Verdict id -> the judge's value, for every current verdict whose judge value is verified."""
    with challenge.store.session() as session:
        return {
            cur.verdict.id: cur.verdict.verdict
            for cur in current_verdicts(session, challenge)
            if cur.verdict.verdict == "verified"
        }


def test_every_view_counts_the_provenance_floor(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    build_outcome_store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    with challenge.store.session() as session:
        current = {cur.verdict.id: cur for cur in current_verdicts(session, challenge)}
        edited = {vid for vid, cur in current.items() if cur.last_edit is not None}
    weak = {vid for vid, cur in current.items() if cur.verdict.verdict == "verified"}
    assert weak, "the store must hold self-recorded verified verdicts"
    # the one query: self-recorded verified counts as inconclusive; an organizer's edit stands
    for vid in weak:
        assert current[vid].value == "inconclusive"
    assert all(current[v].value == "verified" for v in edited)

    # the board's cells
    cells = {c.verdict_id: c.value for c in verdict_cells(challenge, public=False)}
    assert cells == {vid: cur.value for vid, cur in current.items()}

    # stats: the counts by value are the current values' counts
    stats = compute_stats(challenge)
    values = [cur.value for cur in current.values()]
    assert stats.verdicts == {v: values.count(v) for v in stats.verdicts}

    # the frozen dataset's effective values
    export_dataset(challenge, tmp_path / "frozen")
    rows = [
        json.loads(line)
        for line in (tmp_path / "frozen" / "json" / "verdicts.jsonl").read_text().splitlines()
    ]
    frozen = {r["verdict_id"]: r["effective"] for r in rows if r["current"]}
    assert frozen == {vid: cur.value for vid, cur in current.items()}

    # the message to the authors about a confirmed finding on P1-full/C1 (alice's verified,
    # self-recorded): it reports what outcomes count, with the judge's value beside it
    decide(challenge, "P1-full/C1", "confirmed", "checked by hand")
    [message] = draft_messages(challenge, claim="P1-full/C1", out_dir=tmp_path / "mail")
    assert "- inconclusive (judge: verified)" in message.body
    assert "- verified," not in message.body


def test_current_verdicts_follow_the_newest_revision(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    with challenge.store.session() as session:
        latest = set(latest_logbook_ids(session, challenge.challenge_id))
        bob_p2 = session.scalars(
            select(Logbook.id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.venue_id == "P2-partial")
            .order_by(Logbook.id)
        ).all()
        current = current_verdicts(session, challenge)
        removed = set(session.scalars(select(Claim.id).where(Claim.status == "removed")))
        every = set(session.scalars(select(Verdict.id)))
    assert bob_p2[0] not in latest and bob_p2[-1] in latest  # bob's old revision is not current
    assert {cur.logbook.id for cur in current} <= latest
    assert not any(cur.verdict.claim_id in removed for cur in current)
    assert len(current) < len(every)
    # restricting to some claims gives the same rows as filtering all of them
    some = sorted({cur.verdict.claim_id for cur in current})[:3]
    with challenge.store.session() as session:
        subset = current_verdicts(session, challenge, some)
        assert [c.verdict.id for c in subset] == [
            c.verdict.id for c in current if c.verdict.claim_id in some
        ]
        assert current_verdicts(session, challenge, []) == []


def test_public_views_leave_out_papers_in_their_window(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    challenge.settings.verdict_window_hours = 24 * 365 * 100  # every paper is still private
    with challenge.store.session() as session:
        assert current_verdicts(session, challenge, public=True) == []
        assert current_verdicts(session, challenge)


def test_recheck_queue_keeps_the_window(challenge: ChallengeContext) -> None:
    """Inside ``verdict_window_hours`` the public re-check queue (the board's /recheck, live and
    static) shows nothing of the paper, as the paper pages and /api/v1/verdicts do; the
    organizer's queue still has the contested claim."""
    build_outcome_store(challenge)
    organizer = {e.claim: e.consensus for e in recheck_queue(challenge)}
    assert organizer["P5-contested/C1"] == "contested"
    assert {e.claim for e in recheck_entries(challenge)} == set(organizer)  # window closed
    challenge.settings.verdict_window_hours = 24 * 365 * 100
    assert recheck_entries(challenge) == []
    assert recheck_queue(challenge, public=True) == []
    assert {e.claim: e.consensus for e in recheck_queue(challenge)} == organizer


def test_an_override_records_the_value_it_replaces(challenge: ChallengeContext) -> None:
    """The old value an override keeps is the effective value outcomes counted, read through
    the current-verdict rules: a ``verified`` below ``min_provenance_verified`` was counted as
    ``inconclusive``, so that is what the override replaces (not the judge's ``verified``)."""
    build_outcome_store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    with challenge.store.session() as session:
        weak = next(
            cur
            for cur in current_verdicts(session, challenge)
            if cur.verdict.verdict == "verified" and cur.last_edit is None
        )
        verdict_id = weak.verdict.id
    assert weak.value == "inconclusive"
    result = override_verdict(challenge, verdict_id, "falsified", reason="checked by hand")
    assert result.old_value == "inconclusive"
    with challenge.store.session() as session:
        stored = session.scalars(
            select(VerdictEdit).where(VerdictEdit.verdict_id == verdict_id)
        ).all()
        [now] = [c for c in current_verdicts(session, challenge) if c.verdict.id == verdict_id]
    assert [(e.old_value, e.new_value) for e in stored] == [("inconclusive", "falsified")]
    assert now.value == "falsified"
    # a second override replaces the first one's value
    again = override_verdict(challenge, verdict_id, "verified", reason="replayed by hand")
    assert again.old_value == "falsified"


def test_an_override_replaces_the_value_every_rule_counts(challenge: ChallengeContext) -> None:
    """Under open registration, a provenance floor and a provisional verdict, each current
    verdict's override records exactly the value the current-verdict query counted (edit,
    unvouched, provisional, below the floor, or the judge's own); a verdict that is not current
    (on a removed claim) records the value the same rules give it."""
    build_outcome_store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    challenge.settings.registration = "open"
    with challenge.store.session() as session:
        first = min(cur.verdict.id for cur in current_verdicts(session, challenge))
        session.get(Verdict, first).provisional = True  # type: ignore[union-attr]
        for person in session.scalars(select(Participant).where(Participant.team.is_(None))):
            person.identity_source = ""  # registered themselves: unvouched
    with challenge.store.session() as session:
        counted = {cur.verdict.id: cur.value for cur in current_verdicts(session, challenge)}
        removed, confirmed = session.execute(
            select(Verdict.id, Participant.team_confirmed)
            .join(Claim, Claim.id == Verdict.claim_id)
            .join(Logbook, Logbook.id == Verdict.logbook_id)
            .join(Participant, Participant.id == Logbook.participant_id)
            .where(Claim.status == "removed")
            .order_by(Participant.team_confirmed)
        ).first() or (None, None)
    assert counted[first] == "inconclusive"
    assert {"verified", "falsified", "inconclusive"} <= set(counted.values())
    for verdict_id, value in counted.items():
        result = override_verdict(challenge, verdict_id, "toy", reason="checked by hand")
        assert result.old_value == value, verdict_id
    assert removed is not None and not confirmed
    # registered by herself, no confirmed team: under open registration not counted
    assert override_verdict(challenge, removed, "toy", reason="x").old_value == "inconclusive"
