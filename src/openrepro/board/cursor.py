"""Keyset pagination of the board's lists with opaque cursors.

A list is sorted by a key (a paper's venue id; a leaderboard row's rank key). A cursor names
the key of the row a page ends (``next``) or starts (``prev``) at, not a position, so a cursor
stays valid, and shows the rows that follow it, however many rows are inserted or removed
before it. Cursors are URL-safe base64 of a small JSON object; anything else is refused with a
clear :class:`~openrepro.errors.ConfigError` (400).
"""

from __future__ import annotations

import base64
import binascii
import json
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openrepro.errors import ConfigError

__all__ = [
    "Page",
    "anchored_page",
    "decode_cursor",
    "encode_cursor",
    "is_page_boundary",
    "keyset_page",
]

MAX_CURSOR_CHARS = 2000


def encode_cursor(kind: str, key: Sequence[Any], direction: str = "after") -> str:
    """A cursor for the rows of list ``kind`` after (or before) ``key``."""
    raw = json.dumps({"l": kind, direction[0]: list(key)}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(kind: str, cursor: str) -> tuple[tuple[Any, ...], str]:
    """The key and direction (``after``/``before``) of a cursor of list ``kind``."""
    problem = f"bad cursor {cursor[:40]!r}: not a cursor of this list; start from the first page"
    if len(cursor) > MAX_CURSOR_CHARS:
        raise ConfigError(problem)
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw.decode())
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(problem) from exc
    if not isinstance(data, dict) or data.get("l") != kind or len(data) != 2:
        raise ConfigError(problem)
    direction = "after" if "a" in data else "before" if "b" in data else ""
    key = data.get(direction[:1])
    if not direction or not isinstance(key, list) or not key:
        raise ConfigError(problem)
    if not all(isinstance(k, str | int) and not isinstance(k, bool) for k in key):
        raise ConfigError(problem)
    return tuple(key), direction


@dataclass(frozen=True)
class Page:
    start: int
    end: int  # rows[start:end]
    next: str | None  # cursor of the following page
    prev: str | None  # cursor of the page before


def keyset_page(
    kind: str, keys: Sequence[tuple[Any, ...]], cursor: str | None, size: int, offset: int = 0
) -> Page:
    """The page of a list whose rows have the sorted ``keys`` that ``cursor`` points at (without
    one: the page starting at row ``offset``; an offset past the end is a 400, not an empty
    page: every distinct offset would otherwise be a distinct answer to build and keep)."""
    if offset and offset >= len(keys):
        raise ConfigError(f"offset {offset} is past the end of the list ({len(keys)} rows)")
    start = offset
    if cursor:
        key, direction = decode_cursor(kind, cursor)
        try:
            if direction == "after":
                start = bisect_right(keys, key)
            else:
                start = max(0, bisect_left(keys, key) - size)
        except TypeError as exc:  # a key of other types than this list's
            raise ConfigError(f"bad cursor {cursor[:40]!r}: not a cursor of this list") from exc
    return _page(kind, keys, start, size)


def anchored_page(
    kind: str,
    keys: Sequence[tuple[Any, ...]],
    index: Mapping[tuple[Any, ...], int],
    cursor: str | None,
    size: int,
) -> Page:
    """Like :func:`keyset_page` for a list not sorted by its keys (a ranking): ``index`` gives
    each key's position; the page continues after (or before) the cursor's row wherever that
    row is now. A cursor whose row is gone is refused (400)."""
    start = 0
    if cursor:
        key, direction = decode_cursor(kind, cursor)
        if key not in index:
            raise ConfigError(f"cursor {cursor[:40]!r}: its row is no longer in the list; "
                              "start from the first page")  # fmt: skip
        start = index[key] + 1 if direction == "after" else max(0, index[key] - size)
    return _page(kind, keys, start, size)


def _page(kind: str, keys: Sequence[tuple[Any, ...]], start: int, size: int) -> Page:
    end = min(len(keys), start + size)
    return Page(
        start=start,
        end=end,
        next=encode_cursor(kind, keys[end - 1]) if end < len(keys) else None,
        prev=encode_cursor(kind, keys[start], "before") if 0 < start < len(keys) else None,
    )


def is_page_boundary(kind: str, keys: Sequence[tuple[Any, ...]], cursor: str) -> bool:
    """Whether ``cursor`` names a row of the list (a cursor the board itself hands out), as
    opposed to a crafted key between rows: only such cursors are worth a cache entry (a
    crafted one is answered, just not kept)."""
    key, _ = decode_cursor(kind, cursor)
    at = bisect_left(keys, key)
    return at < len(keys) and tuple(keys[at]) == key
