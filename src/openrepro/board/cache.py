"""Rendered pages and API answers of the board, cached until the store changes."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.store import (
    Challenge,
    Claim,
    ClaimEdit,
    Job,
    Logbook,
    Paper,
    Participant,
    Verdict,
    VerdictEdit,
)
from openrepro.store.tables_organizer import AuthorResponse, RecheckDecision, RecheckRun
from openrepro.store.tables_provenance import Replay

T = TypeVar("T")

__all__ = ["PageCache", "store_version"]


def store_version(ctx: ChallengeContext) -> tuple[Any, ...]:
    """A fingerprint that changes whenever anything the board shows changes: per table the
    row count and the newest id (or update time, for rows updated in place: papers, jobs, a
    verdict judged again after a replay), and the challenge's freeze. One query of scalar
    subqueries over primary keys and indexed columns. A participant's name or team edited in
    place is not seen (``site build --force`` rebuilds everything)."""
    cid = ctx.challenge_id
    parts = [
        select(func.max(Paper.updated_at)).where(Paper.challenge_id == cid),
        select(func.count(Paper.id)).where(Paper.challenge_id == cid),
        select(func.count(Claim.id)),
        select(func.max(Claim.id)),
        select(func.max(ClaimEdit.id)),
        select(func.count(Logbook.id)),
        select(func.max(Logbook.id)),
        select(func.count(Verdict.id)),
        select(func.max(Verdict.id)),
        select(func.max(Verdict.created_at)),
        select(func.count(VerdictEdit.id)),
        select(func.max(VerdictEdit.id)),
        select(func.count(Participant.id)).where(Participant.challenge_id == cid),
        select(func.max(Participant.id)),
        select(func.count(Job.id)),
        select(func.max(Job.updated_at)),
        select(func.max(RecheckRun.id)),
        select(func.max(RecheckDecision.id)),
        select(func.max(AuthorResponse.id)),
        select(func.max(Replay.id)),
        select(Challenge.frozen_at).where(Challenge.id == cid),
    ]
    with ctx.store.session() as session:
        return tuple(session.execute(select(*(q.scalar_subquery() for q in parts))).one())


class PageCache:
    """Rendered responses per key, dropped when the store's fingerprint changes."""

    def __init__(self, ctx: ChallengeContext, seconds: float = 1.0, size: int = 4096) -> None:
        self.ctx, self.seconds, self.size = ctx, seconds, size
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, Any] = OrderedDict()
        self._version: tuple[Any, ...] | None = None
        self._checked = 0.0

    def _fresh(self) -> None:
        now = time.monotonic()
        if now - self._checked < self.seconds:
            return
        version = store_version(self.ctx)
        with self._lock:
            self._checked = now
            if version != self._version:
                self._version = version
                self._pages.clear()

    def peek(self, key: str) -> str | None:
        """The cached page when the store was checked recently enough, else None."""
        if self.seconds <= 0 or time.monotonic() - self._checked >= self.seconds:
            return None
        with self._lock:
            page = self._pages.get(key)
        return page if isinstance(page, str) else None

    def value(self, key: str, build: Callable[[], T]) -> T:
        """The cached value of ``key``, built when absent or when the store changed."""
        if self.seconds <= 0:
            return build()
        self._fresh()
        with self._lock:
            if key in self._pages:
                self._pages.move_to_end(key)
                found: T = self._pages[key]
                return found
        made = build()
        with self._lock:
            self._pages[key] = made
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
        return made

    def get(self, key: str, build: Callable[[], str]) -> str:
        """The rendered page of ``key``."""
        return self.value(key, build)
