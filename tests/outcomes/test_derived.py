"""The derived outcome tables answer exactly what the full current-verdict query answers.

After every operation of a random sequence (judge writes, organizer overrides, re-check
decisions, team changes and confirmation, new logbook revisions, claim removals, the
anti-herding window, the provenance floor), stats, consensus and paper outcomes read from the
derived tables must equal the same figures computed from the base tables with the full query
(``reference=True``), organizer and public views alike, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta

from outcome_store import build_outcome_store
from sqlalchemy import delete, func, select, text

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import remove_claim
from openrepro.identity import Actor
from openrepro.identity.teams import confirm_team, set_team
from openrepro.outcomes import (
    claim_consensus,
    compute_stats,
    current_verdicts,
    override_verdict,
    paper_outcomes,
    verdicts_by_day,
)
from openrepro.outcomes.derived import is_fresh, rebuild, refresh
from openrepro.recheck import recheck_queue
from openrepro.recheck.service import decide
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict
from openrepro.store.tables_outcomes import OutcomeState
from openrepro.vocabulary import VERDICTS


def _same(ctx: ChallengeContext, step: str) -> None:
    for public in (False, True):
        assert compute_stats(ctx, public=public) == compute_stats(
            ctx, public=public, reference=True
        ), f"stats differ after {step} (public={public})"
        assert claim_consensus(ctx, public=public) == claim_consensus(
            ctx, public=public, reference=True
        ), f"consensus differs after {step} (public={public})"
        assert paper_outcomes(ctx, public=public) == paper_outcomes(
            ctx, public=public, reference=True
        ), f"paper outcomes differ after {step} (public={public})"
        assert verdicts_by_day(ctx, public=public) == verdicts_by_day(
            ctx, public=public, reference=True
        ), f"verdicts by day differ after {step} (public={public})"
    with ctx.store.session() as session:
        assert is_fresh(session, ctx)
    reference = {c.claim_id: c.consensus for c in claim_consensus(ctx, reference=True)}
    with ctx.store.session() as session:
        logbooks: dict[int, set[int]] = {}
        for cur in current_verdicts(session, ctx):
            logbooks.setdefault(cur.verdict.claim_id, set()).add(cur.logbook.id)
    for entry in recheck_queue(ctx):
        assert entry.consensus == reference[entry.claim_id], step
        assert set(entry.logbooks) == logbooks.get(entry.claim_id, set()), step


def _judge_write(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    """A new verdict, as the judge writes one (a newer judge config on a current logbook)."""
    with ctx.store.session() as session:
        books = session.scalars(select(Logbook).order_by(Logbook.id)).all()
        book = rng.choice(books)
        claims = session.scalars(
            select(Claim).where(Claim.paper_id == book.paper_id).order_by(Claim.id)
        ).all()
        claim = rng.choice(claims)
        value = rng.choice(VERDICTS)
        level = rng.choice(["testimony", "self-recorded", "replayed"])
        session.add(Verdict(logbook_id=book.id, claim_id=claim.id, verdict=value,
                            judge_config=f"cfg-{n}", flags=["unit_mismatch"] if n % 3 else [],
                            provenance=level))  # fmt: skip
    return f"judge write {value} on logbook {book.id}, claim {claim.id}"


def _override(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    with ctx.store.session() as session:
        ids = [c.verdict.id for c in current_verdicts(session, ctx)]
    verdict_id = rng.choice(ids)
    override_verdict(ctx, verdict_id, rng.choice(VERDICTS), reason=f"override {n}")
    return f"override of verdict {verdict_id}"


def _recheck(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    queue = recheck_queue(ctx)
    if not queue:
        return "no queued claim"
    entry = rng.choice(queue)
    decision = rng.choice(["rejected", "confirmed", "needs-more-evidence"])
    decide(ctx, entry.claim, decision, f"decision {n}")
    return f"re-check {decision} on {entry.claim}"


def _team(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    handle = rng.choice(["alice", "bob", "carol", "dave", "erin"])
    team = rng.choice(["t1", "t2", None])
    set_team(ctx, handle, team, actor=_participant(ctx, handle))  # unconfirmed
    if team is not None and rng.random() < 0.7:
        confirm_team(ctx, handle)
    return f"team {team} for {handle}"


def _participant(ctx: ChallengeContext, handle: str) -> Actor:
    return Actor(handle=handle, role="participant")


def _revision(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    """A new revision of a logbook: its older revision's verdicts stop counting."""
    with ctx.store.session() as session:
        book = rng.choice(session.scalars(select(Logbook).order_by(Logbook.id)).all())
        session.add(Logbook(paper_id=book.paper_id, participant_id=book.participant_id,
                            revision=f"rev-{n}", format="bundle", manifest={
                                "testimony": [{"page": "p", "cell": "c",
                                               "text": "C1: could not reproduce the result."}]},
                            submitted_at=datetime.now(UTC)))  # fmt: skip
    return f"new revision of logbook {book.id}"


def _remove_claim(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    with ctx.store.session() as session:
        rows = session.execute(
            select(Paper.venue_id, Claim.key)
            .join(Claim, Claim.paper_id == Paper.id)
            .where(Claim.status == "active")
            .order_by(Claim.id)
        ).all()
        venue, key = rng.choice(rows)
        remove_claim(session, ctx.challenge_id, f"{venue}/{key}", editor="organizer",
                     reason=f"removed {n}")  # fmt: skip
    return f"removed {venue}/{key}"


def _settings(ctx: ChallengeContext, rng: random.Random, n: int) -> str:
    ctx.settings.min_provenance_verified = rng.choice(["self-recorded", "replayed", "testimony"])
    ctx.settings.verdict_window_hours = rng.choice([0, 12, 24 * 365 * 100])
    return (f"min provenance {ctx.settings.min_provenance_verified}, window "
            f"{ctx.settings.verdict_window_hours} h")  # fmt: skip


OPERATIONS = [_judge_write, _judge_write, _override, _recheck, _team, _revision, _remove_claim,
              _settings]  # fmt: skip


def test_derived_tables_follow_every_write(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    with challenge.store.session() as session:  # one paper still inside a 12 h window
        session.execute(
            text(
                "UPDATE logbooks SET submitted_at = :t"
                " WHERE paper_id = (SELECT MIN(id) FROM papers)"
            ),
            {"t": datetime.now(UTC) - timedelta(hours=1)},
        )
    _same(challenge, "building the store")
    rng = random.Random(2026)
    for n in range(24):
        step = rng.choice(OPERATIONS)(challenge, rng, n)
        _same(challenge, step)


def test_only_marked_papers_are_rebuilt(challenge: ChallengeContext) -> None:
    """A write marks the papers it touches and nothing else; ``rebuild`` redoes them all."""
    ids = build_outcome_store(challenge)
    refresh(challenge)
    assert refresh(challenge) == 0  # nothing changed since
    override_verdict(challenge, _verdict_of(challenge, ids["P3-mixed"]), "verified", reason="x")
    assert refresh(challenge) == 1
    set_team(challenge, "dave", "t9")  # an organizer sets it: confirmed; dave's P7 and P9
    assert refresh(challenge) == 2
    assert rebuild(challenge) == len(ids)
    _same(challenge, "rebuild")


def _verdict_of(ctx: ChallengeContext, paper_id: int) -> int:
    with ctx.store.session() as session:
        return int(
            session.scalar(
                select(func.max(Verdict.id))
                .join(Logbook, Logbook.id == Verdict.logbook_id)
                .where(Logbook.paper_id == paper_id)
            )
            or 0
        )


def test_raw_sql_writes_are_seen(challenge: ChallengeContext) -> None:
    """A change made in plain SQL, outside openrepro's code, still marks its paper."""
    build_outcome_store(challenge)
    _same(challenge, "start")
    with challenge.store.session() as session:
        session.execute(text("UPDATE participants SET team = 'solo', team_confirmed = true "
                             "WHERE handle = 'erin'"))  # fmt: skip
        session.execute(text("UPDATE verdicts SET verdict = 'falsified' WHERE id = "
                             "(SELECT MIN(id) FROM verdicts)"))  # fmt: skip
        session.execute(text("DELETE FROM papers WHERE venue_id = 'P1-full'"))
        assert session.scalar(select(func.count(Participant.id))) == 6
    _same(challenge, "raw SQL")


def test_two_first_refreshes_at_once(challenge: ChallengeContext) -> None:
    """A board's threads (pages built ahead, aggregates) may refresh a store never built at
    the same moment: on PostgreSQL both once inserted the state row, and one failed."""
    build_outcome_store(challenge)
    with challenge.store.session() as session:
        session.execute(delete(OutcomeState))  # as if never built
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def first_refresh() -> None:
        start.wait(10)
        try:
            refresh(challenge)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=first_refresh) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    with challenge.store.session() as session:
        assert session.scalar(select(func.count()).select_from(OutcomeState)) == 1
    _same(challenge, "four first refreshes at once")
