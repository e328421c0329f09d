"""The credit ledger (SQLite and PostgreSQL): grants, permissions, settle-once, citations."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import JobError, NotFoundError, PermissionDeniedError
from openrepro.jobs import balance, grant_credit, jobs_cited_by
from openrepro.jobs.ledger import finish_job
from openrepro.logbooks.records import Cell, LogbookRecord, Page
from openrepro.store import Job, Participant
from openrepro.store.tables_jobs import LedgerEntry


def test_grant_balance_and_permissions(challenge: ChallengeContext) -> None:
    with pytest.raises(NotFoundError, match="no participant 'ada'"):
        balance(challenge, "ada")
    money = grant_credit(challenge, "ada", 5.0, reason="GPU paper")
    assert (money.budget_usd, money.granted_usd, money.available_usd) == (20.0, 5.0, 25.0)
    with challenge.store.session() as session:
        session.add(
            Participant(challenge_id=challenge.challenge_id, handle="org", role="organizer")
        )
    with pytest.raises(PermissionDeniedError, match="for organizers; ada is a participant"):
        grant_credit(challenge, "ada", 1.0, reason="self", by="ada")
    assert grant_credit(challenge, "ada", 1.0, reason="ok", by="org").available_usd == 26.0
    with pytest.raises(JobError, match="positive"):
        grant_credit(challenge, "ada", -3, reason="claw back")
    with pytest.raises(JobError, match="--reason"):
        grant_credit(challenge, "ada", 3, reason=" ")
    with challenge.store.session() as session:
        kinds = session.scalars(select(LedgerEntry.actor).order_by(LedgerEntry.id)).all()
    assert kinds == ["organizer", "org"]


def test_settlement_happens_once(challenge: ChallengeContext) -> None:
    grant_credit(challenge, "ada", 1.0, reason="seed")
    with challenge.store.session() as session:
        pid = session.scalar(select(Participant.id).where(Participant.handle == "ada"))
        job = Job(
            challenge_id=challenge.challenge_id, participant_id=pid, backend="local",
            command=["x"], reserved_usd=2.0, price_per_hour_usd=3600.0, timeout_s=2.0,
        )  # fmt: skip
        session.add(job)
        session.flush()
        session.add(
            LedgerEntry(
                challenge_id=challenge.challenge_id, participant_id=pid, job_id=job.id,
                kind="reserve", amount_usd=-2.0,
            )
        )  # fmt: skip
        job_id = job.id
    assert balance(challenge, "ada").reserved_usd == 2.0
    assert finish_job(challenge.store, job_id, status="completed", running_s=30.0)
    assert not finish_job(challenge.store, job_id, status="error", running_s=1.0)
    money = balance(challenge, "ada")
    assert money.spent_usd == 2.0  # 30 s x $1/s, capped at the $2 reservation
    assert money.reserved_usd == 0 and money.available_usd == 19.0


def test_jobs_cited_by_a_logbook() -> None:
    record = LogbookRecord(
        format="trackio",
        format_version="1",
        pages=[
            Page(
                slug="p",
                title="P",
                cells=[
                    Cell(id="a", type="code", page="p", meta={"job_id": "local:12"}),
                    Cell(id="b", type="code", page="p", meta={"job_ids": ["hf:3", "local:12"]}),
                    Cell(id="c", type="code", page="p", meta={"job_id": "rm -rf /"}),
                ],
            )
        ],
        traces=[{"job_id": "hf:0123456789abcdef01234567"}],
    )
    assert jobs_cited_by(record) == ["local:12", "hf:3", "hf:0123456789abcdef01234567"]
