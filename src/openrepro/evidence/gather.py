"""Gather the evidence of one claim from a logbook record, and re-check pointers by code.

* :func:`measurements` reads the values logged under ``claims/<claim-id>/<metric>`` and ties each
  to the recorded run it came from. A bundle metric names its run id. A Trackio metric names the
  *Trackio* run name, which is not a run cell id, so it is tied by time: it belongs to the run
  cell whose window ``[created_at - duration_s - 2 s, created_at + 2 s]`` holds its timestamp
  (``created_at`` is when the run cell was written, i.e. when the run ended). When a series has
  several steps, the **last step** is the measured value.
* :func:`evidence_items` numbers the metrics, result-like output lines and produced files for an
  LLM extractor, ranked by relevance and cut to a character budget. Testimony is never an item;
  item text is neutralised (control, bidi and zero-width characters removed, whitespace
  collapsed, at most 200 characters).
* :func:`evidence_index` lists every number the logbook holds, each at its level: metrics, cells
  of tables a recorded run produced or printed (also its ``key=value`` lines and printed JSON)
  are self-recorded; Markdown tables in pages, figure raw data and files no run is known to have
  produced are testimony. A testimony number is *corroborated* when the same value (as people
  round it) stands at a higher level; the entry then names that pointer.
* :func:`check_pointer` re-checks, by code, that a pointer exists and holds a value.
* :func:`looks_like_injection` spots text aimed at the judge (see :data:`INJECTION_PATTERNS`).
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from openrepro.errors import LogbookError
from openrepro.evidence.levels import ProvenanceLevel
from openrepro.evidence.records import EvidenceItem, Measurement, Pointer
from openrepro.logbooks.records import FileRef, LogbookRecord, Metric, Run, TableRef, TableValue
from openrepro.logbooks.runs import WINDOW_SLACK_S, RunFinder
from openrepro.logbooks.tables import read_value

__all__ = [
    "CLAIM_METRICS",
    "INJECTION_PATTERNS",
    "WINDOW_SLACK_S",
    "IndexEntry",
    "check_pointer",
    "check_table_pointer",
    "claim_metric_prefix",
    "evidence_index",
    "evidence_items",
    "looks_like_injection",
    "measurements",
    "metric_measurements",
    "neutralise",
    "table_items",
    "within_recorded_run",
]

ITEM_MAX_CHARS = 200

# ---- text hygiene ----

# Bidi controls and zero-width characters (all are Unicode category Cf, removed with the rest).
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u061c\u180e\ufeff"
)


def _strip_invisible(text: str) -> str:
    """Drop format characters (bidi, zero-width) and turn other control characters into spaces."""
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if char in _INVISIBLE or category == "Cf":
            continue
        out.append(" " if category in ("Cc", "Zl", "Zp") else char)
    return "".join(out)


def neutralise(text: str, limit: int = ITEM_MAX_CHARS) -> str:
    """Make untrusted text safe to show: no control/bidi/zero-width chars, one line, capped."""
    flat = " ".join(_strip_invisible(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _lines(output: str) -> list[str]:
    """A run's output lines; pointers number them from 1 in this list."""
    return output.splitlines()


# ---- runs and time ----


#: where every claim's exact metric keys live: ``claims/<claim id>/<quantity>``
CLAIM_METRICS = "claims/"


def claim_metric_prefix(claim_id: str) -> str:
    """The metric key prefix a logbook uses for one claim: ``claims/<claim_id>/``."""
    return f"{CLAIM_METRICS}{claim_id}/"


def _last_steps(metrics: Iterable[Metric]) -> list[Metric]:
    """One metric per (run, key): the one with the highest step (the later one on a tie)."""
    last: dict[tuple[str, str], Metric] = {}
    for metric in metrics:
        held = last.get((metric.run, metric.key))
        if held is None or metric.step >= held.step:
            last[(metric.run, metric.key)] = metric
    return list(last.values())


def _metric_pointer(metric: Metric) -> Pointer:
    return Pointer(kind="metric", run=metric.run, key=metric.key, step=metric.step)


def measurements(record: LogbookRecord, claim_id: str) -> list[Measurement]:
    """The values logged under ``claims/<claim_id>/<metric>``, each tied to its run.

    A series logged at several steps gives one measurement: its last step logged during a
    successful run (else during a failed run, else outside any). Non-finite values (NaN,
    infinity) are not measurements and are left out. ``within_run`` says a
    recorded run was found for the metric (a Trackio metric without a timestamp never is);
    ``run_ok`` says that run exited 0.
    """
    prefix = claim_metric_prefix(claim_id)
    return metric_measurements(
        record, lambda key: key[len(prefix) :] if key.startswith(prefix) else None
    )


def metric_measurements(
    record: LogbookRecord, name_of: Callable[[str], str | None]
) -> list[Measurement]:
    """The values of the metrics whose key ``name_of`` names (``None``: not wanted; the name
    becomes the measurement's ``metric``), each tied to its run as :func:`measurements` does."""
    finder = RunFinder(record)
    found: list[Measurement] = []
    found_metrics: list[Metric] = []
    names: dict[int, str] = {}
    for m in record.metrics:
        name = name_of(m.key) if math.isfinite(m.value) else None
        if name:
            names[id(m)] = name
    chosen = [m for m in record.metrics if id(m) in names]
    runs = {id(m): finder.run_of(m) for m in chosen}
    # The last step is taken among the values that count (from a successful run), else among
    # those from a failed run, else the rest: a series continued outside a recorded run or in a
    # failed one neither replaces nor hides what a successful run logged.
    for quality in (2, 1, 0):
        rank = [m for m in chosen if _quality(runs[id(m)]) == quality]
        taken = {(m.run, m.key) for m in found_metrics}
        found_metrics.extend(m for m in _last_steps(rank) if (m.run, m.key) not in taken)
    for metric in found_metrics:
        run = runs[id(metric)]
        found.append(
            Measurement(
                value=metric.value,
                metric=names[id(metric)],
                run=run.id if run else "",
                seed=metric.run,
                pointer=_metric_pointer(metric),
                run_ok=run is not None and run.exit_code == 0,
                within_run=run is not None,
            )
        )
    return found


def _quality(run: Run | None) -> int:
    """2: logged during a successful run; 1: during a failed one; 0: outside any."""
    return 0 if run is None else 2 if run.exit_code == 0 else 1


def within_recorded_run(record: LogbookRecord, pointer: Pointer) -> bool:
    """Was the evidence at ``pointer`` produced while a recorded run was running? Output lines
    always were; a metric is if it can be tied to a run cell (see :func:`measurements`)."""
    if pointer.kind == "output_line":
        return any(run.id == pointer.run for run in record.runs)
    if pointer.kind != "metric":
        return False
    finder = RunFinder(record)
    return any(
        finder.run_of(m) is not None
        for m in record.metrics
        if (m.run, m.key, m.step) == (pointer.run, pointer.key, pointer.step)
    )


# ---- evidence items ----

_RESULT_WORD_RE = re.compile(
    r"(?i)(?:\b(?:acc|accuracy|loss|f1|bleu|rouge|score|speed|speedup|time|ms|s|sec|x|"
    r"precision|recall|perplexity|ppl|throughput|latency|error|mse|mae|auc)\b"
    r"|%|\d(?:x|s|ms)\b)"
)
_KEY_VALUE_RE = re.compile(r"[A-Za-z_][\w./-]*\s*[:=]\s*[-+]?\.?\d")
_TOKEN_RE = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    {
        *("a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it"),
        *("of", "on", "or", "that", "the", "this", "to", "with", "we", "our", "than"),
        *("claims", "claim", "run", "step", "file"),
    }
)


def _looks_like_result(line: str) -> bool:
    if not any(c.isdigit() for c in line):
        return False
    return bool(_RESULT_WORD_RE.search(line) or _KEY_VALUE_RE.search(line))


def _tokens(text: str) -> set[str]:
    words = _TOKEN_RE.findall(text.lower())
    return {w for w in words if len(w) > 1 and w not in _STOPWORDS}


@dataclass(frozen=True)
class _Candidate:
    text: str
    pointer: Pointer
    value: float | None
    run_ok: bool
    kind_rank: int  # 0 metrics, 1 output lines, 2 files
    minor_rank: int  # within a kind: 0 preferred (a series' last step), 1 otherwise


def _metric_candidates(record: LogbookRecord, prefix: str) -> Iterator[_Candidate]:
    finder = RunFinder(record)
    last = {id(m) for m in _last_steps(record.metrics)}
    for metric in record.metrics:
        if metric.key.startswith(CLAIM_METRICS) and not metric.key.startswith(prefix):
            continue  # another claim's exact key is that claim's evidence, never this one's
        run = finder.run_of(metric)
        where = f"run {run.id}" if run else "not within a recorded run"
        text = f"{metric.key} = {metric.value!r} (series {metric.run}, step {metric.step}, {where})"
        yield _Candidate(
            text=neutralise(text),
            pointer=_metric_pointer(metric),
            value=metric.value,
            run_ok=run is not None and run.exit_code == 0,
            kind_rank=0,
            minor_rank=0 if id(metric) in last else 1,
        )


def _line_candidates(record: LogbookRecord) -> Iterator[_Candidate]:
    for run in record.runs:
        for number, line in enumerate(_lines(run.output), start=1):
            if not _looks_like_result(line):
                continue
            yield _Candidate(
                text=neutralise(f"run {run.id}, output line {number}: {line}"),
                pointer=Pointer(kind="output_line", run=run.id, line=number),
                value=None,
                run_ok=run.exit_code == 0,
                kind_rank=1,
                minor_rank=0,
            )


def _file_candidate(ref: FileRef, origin: str, run_ok: bool) -> _Candidate:
    text = f"file {ref.path} ({origin}; sha256 {ref.sha256[:16]}, {ref.size} bytes)"
    return _Candidate(
        text=neutralise(text),
        pointer=Pointer(kind="file", path=ref.path, sha256=ref.sha256),
        value=None,
        run_ok=run_ok,
        kind_rank=2,
        minor_rank=0 if run_ok else 1,
    )


def _file_candidates(record: LogbookRecord) -> Iterator[_Candidate]:
    seen: set[str] = set()
    for run in record.runs:
        for ref in run.produced:
            if ref.path not in seen:
                seen.add(ref.path)
                yield _file_candidate(ref, f"produced by run {run.id}", run.exit_code == 0)
    for artifact in record.artifacts:
        if artifact.file.path not in seen:
            seen.add(artifact.file.path)
            yield _file_candidate(artifact.file, "artifact, not produced by a run", False)


def evidence_items(
    record: LogbookRecord, claim_id: str, *, budget_chars: int = 6000, claim_text: str = ""
) -> list[EvidenceItem]:
    """Numbered evidence (1..N) for an extractor: metrics, result-like output lines, files.

    Items are ranked by how many words of the claim (its id, ``claim_text`` and the metric names
    logged under its prefix) they share; ties go to metrics, then output lines, then files, and
    within metrics to a series' last step. Items are kept in that order while their texts fit in
    ``budget_chars`` in total. Testimony never becomes an item, nor a metric logged under another
    claim's prefix (``claims/p1/C2/...`` is C2's evidence, not C1's).
    """
    prefix = claim_metric_prefix(claim_id)
    wanted = _tokens(claim_id) | _tokens(claim_text)
    for metric in record.metrics:
        if metric.key.startswith(prefix):
            wanted |= _tokens(metric.key[len(prefix) :])
    candidates = [
        *_metric_candidates(record, prefix),
        *_line_candidates(record),
        *_file_candidates(record),
    ]
    order = sorted(
        range(len(candidates)),
        key=lambda i: (
            -len(wanted & _tokens(candidates[i].text)),
            candidates[i].kind_rank,
            candidates[i].minor_rank,
            i,
        ),
    )
    items: list[EvidenceItem] = []
    used = 0
    for index in order:
        candidate = candidates[index]
        if used + len(candidate.text) > budget_chars:
            continue
        used += len(candidate.text)
        items.append(
            EvidenceItem(
                number=len(items) + 1,
                pointer=candidate.pointer,
                text=candidate.text,
                value=candidate.value,
                run_ok=candidate.run_ok,
            )
        )
    return items


# ---- pointer checks ----

# A number as written: not glued to a word or another number before it ("seed0", "C1", "v1.2").
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _numbers(line: str) -> list[float]:
    return [float(match) for match in _NUMBER_RE.findall(line)]


def _same(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0)


def _check_metric(record: LogbookRecord, pointer: Pointer, value: float | None, tol: float) -> bool:
    if pointer.step is None:
        return False
    for metric in record.metrics:
        if (metric.run, metric.key, metric.step) != (pointer.run, pointer.key, pointer.step):
            continue
        if value is None or _same(metric.value, value, tol):
            return True
    return False


def _check_line(record: LogbookRecord, pointer: Pointer, value: float | None, tol: float) -> bool:
    if pointer.line is None or pointer.line < 1:
        return False
    for run in record.runs:
        if run.id != pointer.run:
            continue
        lines = _lines(run.output)
        if pointer.line > len(lines):
            return False
        return value is None or any(_same(n, value, tol) for n in _numbers(lines[pointer.line - 1]))
    return False


def _check_cell(record: LogbookRecord, pointer: Pointer, value: float | None, tol: float) -> bool:
    table = next((t for t in record.tables if t.table == pointer.table), None)
    if table is None or pointer.row is None:
        return False
    if value is None:
        return 1 <= pointer.row <= table.rows and pointer.column in table.columns
    if table.source == "file":
        return False  # the value needs the file: check_table_pointer reads it
    return check_table_pointer(record, pointer, value, lambda ref: None, rel_tol=tol)


def _check_file(record: LogbookRecord, pointer: Pointer, value: float | None) -> bool:
    if value is not None or not pointer.path or not pointer.sha256:
        return False  # a file holds no single number code could confirm
    return any(f.path == pointer.path and f.sha256 == pointer.sha256 for f in record.files)


def check_pointer(
    record: LogbookRecord, pointer: Pointer, value: float | None = None, *, rel_tol: float = 1e-9
) -> bool:
    """Re-check by code that ``pointer`` exists in ``record`` and, given ``value``, holds it.

    * metric: a metric with that run name, key and step (step required) whose value is within
      ``rel_tol`` of ``value``;
    * output line: line ``line`` (1-based, ``str.splitlines``) of that run's output shows a
      number, as written, equal to ``value`` (``87.3%`` does not hold ``0.873``);
    * file: a file of the record with that path and sha256; a ``value`` is never confirmed by a
      file, so passing one gives False;
    * table cell: a table of the record with that row and column, holding ``value`` for a table
      printed in a run's output or a cell's raw data (for a file, the value needs the file:
      :func:`check_table_pointer` reads it, so passing one here gives False).
    """
    if value is not None and not math.isfinite(value):
        return False
    if pointer.kind == "table_cell":
        return _check_cell(record, pointer, value, rel_tol)
    if pointer.kind == "metric":
        return _check_metric(record, pointer, value, rel_tol)
    if pointer.kind == "output_line":
        return _check_line(record, pointer, value, rel_tol)
    return _check_file(record, pointer, value)


# ---- table cells (the tabular evidence hook) ----

TABLE_FULL_ROWS = 20  # tables up to this many rows give every numeric cell; longer ones their last


def _table_rows(table: TableRef) -> range:
    first = 1 if table.rows <= TABLE_FULL_ROWS else table.rows
    return range(first, table.rows + 1)


def table_items(
    record: LogbookRecord, locate: Callable[[FileRef], Path | None], *, start: int = 1
) -> list[EvidenceItem]:
    """Numbered items (from ``start``) for the numeric cells of the logbook's tables, each
    value read by code at its pointer: every cell of a short table, the last row of a long one.
    A table no run produced (a figure's raw data) gives items with ``run_ok`` False."""
    items: list[EvidenceItem] = []
    for table in record.tables:
        if table.source == "page":
            continue  # a page's Markdown table is testimony: never an item
        where = table.path or (f"run {table.run} output" if table.source == "output" else
                               f"cell {table.cell}")  # fmt: skip
        for row, column, found, value in _cell_values(record, table, _table_rows(table), locate):
            items.append(
                EvidenceItem(
                    number=start + len(items),
                    pointer=Pointer(kind="table_cell", table=table.table, row=row,
                                    column=column, path=table.path, run=table.run),
                    text=neutralise(f"table {where}, row {row}, {column} = {found.text}"),
                    value=value,
                    run_ok=table.run_ok,
                )
            )  # fmt: skip
    return items


def _cell_values(
    record: LogbookRecord,
    table: TableRef,
    rows: Iterable[int],
    locate: Callable[[FileRef], Path | None],
) -> Iterator[tuple[int, str, TableValue, float]]:
    """(row, column, the value read, its number) for each cell of ``rows`` that holds a
    number, read by code at its pointer; unreadable cells are skipped."""
    for row in rows:
        for column in table.columns:
            try:
                found = read_value(record.tables, record.runs, record.pages, table.table,
                                   row, column, locate)  # fmt: skip
            except LogbookError:
                continue
            if found.value is not None:
                yield row, column, found, found.value


MAX_INDEX_ENTRIES = 20_000


class IndexEntry(BaseModel):
    """One number of a logbook, at its pointer and level."""

    pointer: Pointer
    value: float
    level: ProvenanceLevel
    where: str  # for people: "results.csv, row 2, acc"
    #: for testimony: the pointer where the same value stands at a higher level
    corroborated_by: Pointer | None = None


def _table_level(record: LogbookRecord, table: TableRef) -> ProvenanceLevel:
    ok = {run.id for run in record.runs if run.exit_code == 0}
    if table.source in ("file", "output") and table.run in ok and table.run_ok:
        return "self-recorded"
    return "testimony"


def _index_rows(table: TableRef) -> range:
    """Every row of a table, but only the last of a long one or of a series (a history)."""
    if table.series or table.rows > TABLE_FULL_ROWS:
        return range(table.rows, table.rows + 1) if table.rows else range(0)
    return range(1, table.rows + 1)


def evidence_index(
    record: LogbookRecord, locate: Callable[[FileRef], Path | None], *,
    limit: int = MAX_INDEX_ENTRIES,
) -> list[IndexEntry]:  # fmt: skip
    """Every number ``record`` holds, each at its level (see the module docstring), values
    read by code at their pointers; at most ``limit`` entries (metrics first, then tables in
    the record's order)."""
    entries: list[IndexEntry] = []
    finder = RunFinder(record)
    for metric in _last_steps(record.metrics):
        if not math.isfinite(metric.value):
            continue
        run = finder.run_of(metric)
        level: ProvenanceLevel = "self-recorded" if run and run.exit_code == 0 else "testimony"
        entries.append(IndexEntry(pointer=_metric_pointer(metric), value=metric.value,
                                  level=level, where=f"metric {metric.key}"))  # fmt: skip
    for table in record.tables:
        level = _table_level(record, table)
        place = table.path or (f"page {table.page}, table {table.table}" if table.source == "page"
                               else f"table {table.table}")  # fmt: skip
        for row, column, _, value in _cell_values(record, table, _index_rows(table), locate):
            if len(entries) >= limit:
                return _corroborate(entries)
            pointer = Pointer(kind="table_cell", table=table.table, row=row, column=column,
                              path=table.path, run=table.run_of_row(row))  # fmt: skip
            entries.append(IndexEntry(pointer=pointer, value=value, level=level,
                                      where=f"{place}, row {row}, {column}"))  # fmt: skip
    return _corroborate(entries)


def _distinctive(value: float) -> bool:
    """A value unlikely to stand twice by chance: not a whole number below 1,000."""
    return not (value == int(value) and abs(value) < 1000)


def _name(entry: IndexEntry) -> str:
    raw = entry.pointer.column or entry.pointer.key
    return re.sub(r"[^a-z0-9]+", "_", raw.rsplit(".", 1)[-1].rsplit("/", 1)[-1].lower()).strip("_")


def _corroborate(entries: list[IndexEntry]) -> list[IndexEntry]:
    """Mark each testimony entry whose value (to 0.5 %, as people round) stands at a higher
    level: under the same name, or anywhere when the value is distinctive (``0`` and ``1``
    stand everywhere and corroborate nothing by themselves)."""
    higher = sorted((e.value, i) for i, e in enumerate(entries) if e.level != "testimony")
    values = [v for v, _ in higher]
    for entry in entries:
        if entry.level != "testimony":
            continue
        span = max(1e-9, abs(entry.value) * 5e-3)
        at = bisect.bisect_left(values, entry.value - span)
        while at < len(values) and values[at] <= entry.value + span:
            other = entries[higher[at][1]]
            if _distinctive(entry.value) or _name(other) == _name(entry):
                entry.corroborated_by = other.pointer
                break
            at += 1
    return entries


def check_table_pointer(
    record: LogbookRecord,
    pointer: Pointer,
    value: float | None,
    locate: Callable[[FileRef], Path | None],
    *,
    rel_tol: float = 1e-9,
) -> bool:
    """Re-check by code that a table cell exists and, given ``value``, holds that number."""
    if pointer.kind != "table_cell" or pointer.row is None:
        return False
    try:
        found = read_value(record.tables, record.runs, record.pages, pointer.table, pointer.row,
                           pointer.column, locate)  # fmt: skip
    except LogbookError:
        return False
    if value is None:
        return True
    return found.value is not None and math.isfinite(value) and _same(found.value, value, rel_tol)


# ---- injection ----

#: What :func:`looks_like_injection` looks for (case-insensitive, after removing zero-width and
#: bidi characters, NFKC and collapsing whitespace): instructions aimed at a model, role and
#: chat-template markers, verdicts and judge score markers.
INJECTION_PATTERNS: tuple[str, ...] = (
    r"\b(?:ignore|disregard|forget|override|skip)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
    r"(?:previous|prior|above|earlier|preceding|system|original)\s+"
    r"(?:instructions?|prompts?|rules|messages|directions|context)",
    r"\byou\s+are\s+(?:now\s+)?(?:the|a|an)\s+(?:judge|grader|evaluator|reviewer|assistant)\b",
    r"\b(?:act|behave)\s+as\s+(?:the|a|an)\s+(?:judge|grader|evaluator)\b",
    r"\bverdict\s*[:=]",
    r"\bverdict\s+(?:is|should\s+be|must\s+be|will\s+be)\s*[\"']?"
    r"(?:verified|falsified|toy|inconclusive)\b",
    r"[{,]\s*[\"']verdict[\"']\s*:",
    r"(?<![\w(\[,])\[\[\s*\d{1,2}(?:\.\d+)?\s*\]\](?!\s*[,\]\)])",
    r"\bas\s+an\s+ai\b",
    r"\bsystem\s+prompt\b",
    r"\bthought\s+process\s*:",
    r"\b(?:new|updated|additional|hidden)\s+instructions?\s*:",
    r"\bmark\s+(?:this|the|all|every|each)\s+claims?\s+as\b",
    r"<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>",
    r"\[/?inst\]",
    r"^#{1,6}\s*(?:system|instruction|instructions)\b",
    r"</?\s*(?:system|instructions?)\s*>",
)
_INJECTION_RES = tuple(re.compile(p, re.IGNORECASE) for p in INJECTION_PATTERNS)
#: the patterns about a verdict (indices in INJECTION_PATTERNS), not applied to the lines of
#: the event's own convention, a verdict heading (:data:`VERDICT_HEADING`)
_VERDICT_PATTERNS = (3, 4)
#: A participant's verdict written as the event's claim pages do, one line that is a heading or
#: starts in bold: ``## Verdict: partial``, ``**Verdict: VERIFIED**``, ``**Verdict:** verified
#: at toy scale``. Testimony (never evidence), not an instruction: such a line is not
#: injection, unless it also speaks to a model (the other patterns still read it, and a line
#: naming the judge, a model or an instruction is not a heading).
VERDICT_HEADING = re.compile(
    r"^\s*(?:>\s*)?(?:[-*+]\s+)?(?:#{1,6}\s+(?:\*\*|__)?|\*\*|__)\s*"
    r"(?:(?:final|overall|our|claim\s+[\w.-]+)\s*[:\u2014\u2013-]?\s*)?verdict\s*(?:\*\*|__)?\s*"
    r"[:=\u2014\u2013-]\s*(?!.*\b(?:judge|grader|evaluator|model|assistant|instruct\w*|"
    r"prompt|ignore|must|should|output|respond|answer)\b)(?:[^\s].{0,118})?$",
    re.IGNORECASE | re.MULTILINE,
)
_COLON_LINE_RE = re.compile(r"^\s*:\s*$", re.MULTILINE)  # a line that is only ":"


def looks_like_injection(text: str) -> bool:
    """Whether ``text`` reads like instructions or a verdict aimed at the judge.

    Zero-width and bidi characters are removed and the text NFKC-normalised first, so look-alike
    and hidden characters do not hide a pattern. Each line is tested for markers that start a
    line; the whole text, with whitespace collapsed, for the rest. A verdict heading of the
    event's claim pages (:data:`VERDICT_HEADING`) is not read as a verdict aimed at the judge.
    """
    clean = unicodedata.normalize("NFKC", _strip_format(text))
    if _COLON_LINE_RE.search(clean):
        return True
    texts = (clean, VERDICT_HEADING.sub("", clean))  # what the verdict patterns read: the second
    for index, pattern in enumerate(_INJECTION_RES):
        source = texts[index in _VERDICT_PATTERNS]
        flat = " ".join(source.split())
        if pattern.search(flat) or any(
            pattern.search(" ".join(line.split())) for line in source.splitlines()
        ):
            return True
    return False


def _strip_format(text: str) -> str:
    """Remove bidi/zero-width (format) characters only, keeping line breaks."""
    return "".join(c for c in text if c not in _INVISIBLE and unicodedata.category(c) != "Cf")
