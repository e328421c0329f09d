"""Caps on what one logbook may make the board store and show.

A small upload can name the same file or page many times: a bundle whose 60 runs all name one
log, a Trackio logbook with 2,000 page entries pointing at one page, a metrics "table" that is a
recursive view. Every reader counts what it reads into the record against a :class:`Budget` and
stops with a :class:`~openrepro.errors.LogbookError` naming the cap as soon as one is passed, so
the work is bounded while reading, not only after. :func:`check_record` checks a finished record
(any reader, a Space included) against the same caps, and the serialised size of what would be
stored. The bytes a participant may keep on the board in all are a setting
(``participant_max_bytes``), checked when a submission is stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from openrepro.errors import LogbookError
from openrepro.logbooks.records import LogbookRecord

__all__ = [
    "MAX_CELLS",
    "MAX_CSV_FIELD_CHARS",
    "MAX_JSON_VALUES",
    "MAX_MARKDOWN_BRACKET_WORK",
    "MAX_MARKDOWN_CHARS",
    "MAX_METRICS",
    "MAX_METRIC_BYTES",
    "MAX_METRIC_LABEL_CHARS",
    "MAX_METRIC_ROWS",
    "MAX_METRIC_VALUE_BYTES",
    "MAX_PAGES",
    "MAX_RECORD_BYTES",
    "MAX_RUNS",
    "MAX_TABLE_MEMORY",
    "MAX_TABLE_ROWS",
    "MAX_TEXT_BYTES",
    "METRICS_SECONDS",
    "Budget",
    "check_record",
    "markdown_within_budget",
]

MAX_PAGES = 500  # page entries of a Trackio logbook
MAX_CELLS = 20_000  # cells over all pages
MAX_RUNS = 2_000  # recorded runs
MAX_METRICS = 200_000  # logged metric values
MAX_METRIC_ROWS = 200_000  # rows read from one Trackio metrics database
MAX_TEXT_BYTES = 32 * 1024 * 1024  # text read into the record: pages, logs, scripts, write-ups
MAX_RECORD_BYTES = 64 * 1024 * 1024  # the stored record (JSON), all of it
METRICS_SECONDS = 10.0  # time one Trackio metrics database may take to read
MAX_METRIC_VALUE_BYTES = 1024 * 1024  # one row's `metrics` JSON in a Trackio database
MAX_METRIC_BYTES = 256 * 1024 * 1024  # all rows of one Trackio database, as stored
MAX_METRIC_LABEL_CHARS = 1_000  # a metrics row's run name or timestamp (cut to this)
MAX_CSV_FIELD_CHARS = 128 * 1024  # one CSV/TSV field (the csv module's limit, set explicitly)
MAX_MARKDOWN_CHARS = 100_000  # Markdown parsed in one render (longer text is shown plain)
MAX_MARKDOWN_BRACKET_WORK = 200_000  # unmatched '[' times their paragraph's length
# one budget for every table reader (CSV/TSV, JSON, JSONL, Parquet: openrepro.logbooks.tables)
MAX_TABLE_ROWS = 10_000_000  # rows a Parquet footer may declare
MAX_TABLE_MEMORY = 256 * 1024 * 1024  # bytes one column of a table file may hold when read
MAX_JSON_VALUES = 1_000_000  # objects, lists and values of a JSON table (parsed whole)
# the caps on a check read from JSON (a logbook's checks.json): openrepro.claims.checks.records


@dataclass
class Budget:
    """What one logbook has read so far; each ``add_*`` raises once a cap is passed."""

    name: str = "the logbook"
    counts: dict[str, int] = field(default_factory=dict)

    def _add(self, what: str, n: int, cap: int) -> None:
        total = self.counts.get(what, 0) + n
        self.counts[what] = total
        if total > cap:
            raise LogbookError(f"{self.name}: more than {cap:,} {what} (a logbook's limit)")

    def pages(self, n: int = 1) -> None:
        self._add("pages", n, MAX_PAGES)

    def cells(self, n: int = 1) -> None:
        self._add("cells", n, MAX_CELLS)

    def runs(self, n: int = 1) -> None:
        self._add("runs", n, MAX_RUNS)

    def metrics(self, n: int = 1) -> None:
        self._add("metric values", n, MAX_METRICS)

    def text(self, chars: str) -> str:
        """Count ``chars`` (read into the record) against the text cap; returns it."""
        self._add("bytes of text", len(chars.encode("utf-8", "surrogatepass")), MAX_TEXT_BYTES)
        return chars


def check_record(record: LogbookRecord, name: str = "the logbook") -> int:
    """Check a read record against every cap; returns the size of its stored JSON in bytes."""
    budget = Budget(name)
    budget.pages(len(record.pages))
    budget.cells(sum(len(p.cells) for p in record.pages))
    budget.runs(len(record.runs))
    budget.metrics(len(record.metrics))
    for page in record.pages:
        for cell in page.cells:
            budget.text(cell.body)
    for run in record.runs:
        budget.text(run.output)
        for script in run.scripts.values():
            budget.text(script)
    for statement in record.testimony:
        if not statement.cell:  # a cell's testimony is its body, counted above
            budget.text(statement.text)
    size = len(record.model_dump_json())
    if size > MAX_RECORD_BYTES:
        raise LogbookError(
            f"{name}: its record would take {size:,} bytes, above the limit of {MAX_RECORD_BYTES:,}"
        )
    return size


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def markdown_within_budget(text: str) -> bool:
    """Can ``text`` be parsed as Markdown in bounded time? The parser (markdown-it) is linear
    on most input but scans to the end of the paragraph for each ``[`` it cannot close, so
    ``"![" * 300000`` (10.5 KB) cost ~2 minutes per render. Counted here in one linear pass:
    at most :data:`MAX_MARKDOWN_CHARS` characters, and per paragraph its unmatched ``[`` times
    its length within :data:`MAX_MARKDOWN_BRACKET_WORK`."""
    if len(text) > MAX_MARKDOWN_CHARS:
        return False
    work = 0
    for paragraph in _PARAGRAPH_BREAK.split(text):
        if "[" not in paragraph:
            continue
        open_, unmatched = 0, 0
        for char in paragraph:
            if char == "[":
                open_ += 1
            elif char == "]" and open_:
                open_ -= 1
        unmatched = open_
        work += unmatched * len(paragraph)
        if work > MAX_MARKDOWN_BRACKET_WORK:
            return False
    return True
