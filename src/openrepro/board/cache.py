"""Rendered pages and API answers of the board, cached until the store changes."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.store import Challenge, Claim, ClaimEdit, Logbook, Paper, Verdict, VerdictEdit

T = TypeVar("T")

__all__ = ["PageCache", "store_version"]


def store_version(ctx: ChallengeContext) -> tuple[Any, ...]:
    """A fingerprint that changes whenever anything the board shows changes."""
    with ctx.store.session() as session:
        return tuple(
            session.execute(
                select(
                    select(func.max(Paper.updated_at))
                    .where(Paper.challenge_id == ctx.challenge_id)
                    .scalar_subquery(),
                    select(func.count(Paper.id))
                    .where(Paper.challenge_id == ctx.challenge_id)
                    .scalar_subquery(),
                    select(func.max(Claim.id)).scalar_subquery(),
                    select(func.max(ClaimEdit.id)).scalar_subquery(),
                    select(func.max(Logbook.id)).scalar_subquery(),
                    select(func.max(Verdict.id)).scalar_subquery(),
                    select(func.max(VerdictEdit.id)).scalar_subquery(),
                    select(Challenge.frozen_at)
                    .where(Challenge.id == ctx.challenge_id)
                    .scalar_subquery(),
                )
            ).one()
        )


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
