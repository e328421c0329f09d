"""The store's deadline (openrepro.store.db.deadline): statements past it are interrupted, on
SQLite (a progress handler on every connection) and PostgreSQL (``statement_timeout``), and the
deadline follows the context into worker threads."""

from __future__ import annotations

import contextvars
import threading
import time

import pytest
from sqlalchemy import text

from openrepro.challenge import ChallengeContext
from openrepro.errors import StoreError
from openrepro.store.db import deadline, deadline_remaining

#: A statement that runs for many seconds on either database unless interrupted.
SLOW = text(
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000) "
    "SELECT count(*) FROM c"
)


def test_a_statement_past_the_deadline_is_interrupted(challenge: ChallengeContext) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError), deadline(0.3), challenge.store.session() as session:
        session.execute(SLOW).scalar()
    assert time.monotonic() - started < 30
    # the connection is usable afterwards, and without a deadline nothing is interrupted
    with challenge.store.session() as session:
        assert session.execute(text("SELECT 1")).scalar() == 1
    assert deadline_remaining() is None


def test_the_deadline_follows_the_context_into_a_thread(challenge: ChallengeContext) -> None:
    """Starlette runs a route in a thread with a copy of the request's context: a request
    answered 503 must not leave its query running there."""
    outcome: list[str] = []

    def work() -> None:
        try:
            with challenge.store.session() as session:
                session.execute(SLOW).scalar()
            outcome.append("finished")
        except StoreError:
            outcome.append("interrupted")

    with deadline(0.3):
        context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,))
    started = time.monotonic()
    thread.start()
    thread.join(timeout=60)
    assert outcome == ["interrupted"]
    assert time.monotonic() - started < 30


def test_an_inner_deadline_never_extends_an_outer_one() -> None:
    with deadline(0.5):
        with deadline(60):
            left = deadline_remaining()
            assert left is not None and left <= 0.5
        with deadline(0.1):
            left = deadline_remaining()
            assert left is not None and left <= 0.1
