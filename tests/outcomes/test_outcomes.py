"""Claim consensus, paper outcome rows and stats on a store covering every row."""

from __future__ import annotations

from outcome_store import EXPECTED, EXPECTED_CREDIT, build_outcome_store

from openrepro.challenge import ChallengeContext
from openrepro.outcomes import claim_consensus, compute_stats, paper_outcomes, render_markdown


def test_every_outcome_row_is_counted(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    stats = compute_stats(challenge)
    got = {row.key: row.count for row in stats.rows}
    assert got == EXPECTED
    by_key = {row.key: row for row in stats.rows}
    assert by_key["examined"].percent == round(100 * 9 / 9, 1)  # all attempted were judged
    assert by_key["fully_reproduced"].percent == round(100 * 2 / 9, 1)
    assert stats.totals.papers == 10
    assert stats.totals.papers_attempted == 9
    assert stats.totals.participants == 6
    assert stats.totals.participants_active == 5
    # bob's old revision of P2 is not counted
    assert stats.totals.logbooks == 12


def test_consensus_per_claim(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    rows = {(c.paper, c.key): c for c in claim_consensus(challenge)}
    assert rows[("P5-contested", "C1")].consensus == "contested"
    assert rows[("P9-sameteam", "C1")].consensus == "inconclusive"
    assert rows[("P2-partial", "C1")].consensus == "verified"  # newest revision wins
    assert rows[("P6-toy", "C1")].consensus == "toy-only"
    assert rows[("P6-toy", "C2")].consensus == "unattempted"
    assert rows[("P10-override", "C1")].consensus == "verified"
    assert rows[("P10-override", "C1")].overridden == 1
    assert ("P1-full", "C9") not in rows  # removed claims are not part of the record


def test_paper_status_labels(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    status = {p.paper: p.status for p in paper_outcomes(challenge)}
    assert status["P1-full"] == "fully reproduced"
    assert status["P3-mixed"] == "mixed"
    assert status["P4-allfalse"] == "all falsified"
    assert status["P8-unattempted"] == "unattempted"
    assert status["P6-toy"] == "toy only"


def test_credit_counts_agreeing_evidence(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    credit = {c.handle: c.credit for c in compute_stats(challenge).credit}
    assert credit == EXPECTED_CREDIT


def test_min_provenance_turns_weak_verified_into_inconclusive(
    challenge: ChallengeContext,
) -> None:
    build_outcome_store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    got = {row.key: row.count for row in compute_stats(challenge).rows}
    # only the organizer override still verifies (edits are applied as decided)
    assert got["any_verified"] == 1
    assert got["fully_reproduced"] == 1
    assert got["contested"] == 0


def test_verdict_window_hides_recent_papers(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    challenge.settings.verdict_window_hours = 24 * 365 * 100  # nothing is public yet
    public = compute_stats(challenge, public=True)
    assert {row.key: row.count for row in public.rows}["examined"] == 0
    private = compute_stats(challenge)
    assert {row.key: row.count for row in private.rows}["examined"] == 9


def test_markdown_lists_every_row(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    text = render_markdown(compute_stats(challenge))
    assert "| Mixed (≥ 1 verified and ≥ 1 falsified or contested) | 1 | 11.1 % |" in text
    assert "| alice |" in text


def test_filtered_queries_agree_with_the_whole(challenge: ChallengeContext) -> None:
    """Per-paper, per-logbook and per-participant queries push their filter down into the
    SQL; they must give exactly the rows of the unfiltered query."""
    from openrepro.board.data import verdict_cells

    ids = build_outcome_store(challenge)
    everything = verdict_cells(challenge, public=False)
    whole = {o.paper: o for o in paper_outcomes(challenge)}
    for venue_id, paper_id in ids.items():
        cells = verdict_cells(challenge, paper_id=paper_id, public=False)
        assert cells == [c for c in everything if c.paper == venue_id]
        assert paper_outcomes(challenge, paper_ids=[paper_id]) == [whole[venue_id]]
    for logbook_id in {c.logbook_id for c in everything}:
        cells = verdict_cells(challenge, logbook_id=logbook_id, public=False)
        assert cells == [c for c in everything if c.logbook_id == logbook_id]
    from openrepro.identity import get_participant

    for handle in ("alice", "dave"):
        person = get_participant(challenge, handle).id
        cells = verdict_cells(challenge, participant_id=person, public=False)
        assert cells == [c for c in everything if c.participant == handle]
