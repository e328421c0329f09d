"""Cheap stores for the judge-queue tests and bench: papers with checked claims, participants
and logbooks written straight into the store (bundle records whose one run logged every claim's
metric, matched by a stored replay, so the judge's rules decide without a model)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check, Constant, Quantity, Relation
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.store import Claim, Logbook, Paper, Participant
from openrepro.store.tables_provenance import Replay

REPORTED = 80.0
QUOTE = {"text": f"{REPORTED}", "start": 11, "end": 15, "field": "abstract"}


def check_json(claim_id: str, value: float = REPORTED, name: str = "accuracy") -> dict[str, Any]:
    """``name`` = ``value`` (grounded: the claim's text says it)."""
    check = Check(relation=Relation.equal, subject=name, quantities=[Quantity(name=name)],
                  constant=Constant(value=value, text=f"{value}"))  # fmt: skip
    return check.for_claim(claim_id).model_dump(mode="json")


def manifest(venue: str, claims: int, value: float = REPORTED) -> dict[str, Any]:
    record = LogbookRecord(
        format="bundle", format_version="1", paper_id=venue, title=f"Attempt on {venue}",
        claims=[f"{venue}/C{k}" for k in range(1, claims + 1)],
        runs=[Run(id="seed0", command=["python", "train.py"], exit_code=0, duration_s=3.0)],
        metrics=[Metric(run="seed0", key=f"claims/{venue}/C{k}/accuracy", step=0, value=value,
                        source="bundle") for k in range(1, claims + 1)],
    )  # fmt: skip
    return record.model_dump(mode="json")


def add_papers(ctx: ChallengeContext, papers: int, claims: int, start: int = 1) -> list[str]:
    """``papers`` papers (venue ids p0001...) of ``claims`` claims each, every one checked."""
    cid = ctx.challenge_id
    venues = [f"p{n:04d}" for n in range(start, start + papers)]
    with ctx.store.engine.begin() as conn:
        ids = []
        for venue in venues:
            ids.append(conn.execute(
                insert(Paper).values(challenge_id=cid, venue_id=venue, title=f"Paper {venue}",
                                     abstract=f"It reaches {REPORTED} accuracy.", source="t",
                                     authors=[])
                .returning(Paper.id)
            ).scalar_one())  # fmt: skip
        conn.execute(insert(Claim), [
            {"paper_id": pid, "key": f"C{k}", "text": f"It reaches {REPORTED} accuracy ({k}).",
             "kind": "result", "quotes": [QUOTE], "reported": [], "scale": {},
             "provenance": {}, "check": check_json(f"{venue}/C{k}")}
            for pid, venue in zip(ids, venues, strict=True) for k in range(1, claims + 1)
        ])  # fmt: skip
    return venues


def add_people(ctx: ChallengeContext, handles: list[str]) -> dict[str, int]:
    with ctx.store.engine.begin() as conn:
        return {
            h: conn.execute(
                insert(Participant).values(challenge_id=ctx.challenge_id, handle=h, name="")
                .returning(Participant.id)
            ).scalar_one()
            for h in handles
        }  # fmt: skip


def add_logbooks(
    ctx: ChallengeContext, pairs: list[tuple[str, str]], *, value: float = REPORTED
) -> list[int]:
    """One logbook (a new revision) per (participant handle, paper venue id); their ids."""
    with ctx.store.session() as session:
        people = {r[0]: r[1] for r in session.execute(select(Participant.handle, Participant.id))}
        papers = {r[0]: r[1] for r in session.execute(
            select(Paper.venue_id, Paper.id).where(Paper.challenge_id == ctx.challenge_id)
        )}  # fmt: skip
        counts = {r[0]: r[1] for r in session.execute(
            select(Claim.paper_id, func.count(Claim.id)).group_by(Claim.paper_id)
        )}  # fmt: skip
        first = (session.scalar(select(func.max(Logbook.id))) or 0) + 1
    start = datetime(2026, 7, 1, tzinfo=UTC)
    rows = [
        {"id": first + n, "paper_id": papers[venue], "participant_id": people[handle],
         "revision": f"r{first + n:06d}", "format": "bundle", "title": f"Attempt {first + n}",
         "manifest": manifest(venue, counts[papers[venue]], value),
         "submitted_at": start + timedelta(seconds=first + n)}
        for n, (handle, venue) in enumerate(pairs)
    ]  # fmt: skip
    with ctx.store.engine.begin() as conn:
        conn.execute(insert(Logbook), rows)
        conn.execute(insert(Replay), [{"logbook_id": r["id"], "run_id": "seed0", "kind": "replay",
                                       "status": "matched", "level": "replayed", "details": {}}
                                      for r in rows])  # fmt: skip
    if ctx.store.dialect == "postgresql":  # explicit ids: move the sequence past them
        with ctx.store.engine.begin() as conn:
            conn.exec_driver_sql(
                "SELECT setval(pg_get_serial_sequence('logbooks', 'id'), "
                "(SELECT max(id) FROM logbooks))"
            )
    return [r["id"] for r in rows]
