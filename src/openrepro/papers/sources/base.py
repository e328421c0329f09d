"""What every paper source returns: an opened reader of records and skipped items."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from openrepro.papers.records import PaperRecord, SkippedItem

__all__ = ["SourceItem", "SourceReader"]

SourceItem = PaperRecord | SkippedItem


@dataclass
class SourceReader:
    """An opened source: a label for messages, a size when known (for progress) and the items."""

    label: str
    items: Callable[[], Iterator[SourceItem]]
    total: int | None = None
