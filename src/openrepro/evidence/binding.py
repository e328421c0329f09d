"""Binding a claim's check to evidence: which measured values each of its quantities gets.

Each quantity is bound by the first of these that binds it (:func:`bind_claim`); code reads
every value at its pointer itself, and only values that count are bound: from a recorded run
that succeeded, at a provenance level above testimony
(:func:`~openrepro.evidence.checks.apply_levels`).

1. **key**: the measurements logged under its exact key ``claims/<claim id>/<quantity>``
   (:func:`~openrepro.evidence.gather.measurements`: per Trackio run the last step). When a
   check has a single quantity and the logbook logged a single metric for the claim (other
   than its scale and sweep metrics), that metric is bound to it whatever its name.
2. **map**: the pointers the participant's evidence map gives for it
   (:class:`~openrepro.logbooks.manifest.EvidenceMap`): a metric key, or a column of a table
   a successful recorded run produced or printed, at one row, at the rows matching
   ``column = value``, or at every row. The map is testimony, only a pointer: an entry pointing
   at a file no run produced, a missing row or column, or a cell that is not a number binds
   nothing, with its reason and the flag ``map_entry_unbound``; name matching then still
   applies, so a wrong map hides no evidence.
3. **match**: code matches the quantity's name to the tables of successful runs and to metric
   names (:func:`_match`): a column named as the quantity (every row a seed, unless a label
   column tells rows of several things apart), a label column (``method``) whose value is the
   quantity's name or setting (that row, its one value column or the column named as the
   claim's metric), a label plus a column (``ours`` + ``accuracy`` for ``ours_accuracy``), or
   a metric whose last path segment is the quantity's name. In tables, a check's only quantity
   also answers to the claim's metric names (``accuracy`` for the ``subject`` of "reaches
   88.1 % accuracy"), as in rule 1; a JSON table's flattened key also answers to its last part
   (``claim_1.max_err`` to ``max_err``); a metric logged under another key than the claim's does
   not (``glue/accuracy``: the instructions name the key to log; the map can point at it).
   Candidates that agree (the same
   values, e.g. a CSV and the table the run printed from it) count once; otherwise anything
   ambiguous binds nothing.

* A plain quantity gets one value per seed (a run for metrics, a row for tables).
* A swept quantity (``sweep`` set on the quantity or on the check node that uses it) gets one
  point per seed: ``(x, y)``, ``x`` being the run's value of the sweep metric
  (:func:`~openrepro.claims.checks.sweep_metric`, e.g. ``claims/<id>/k``) or, in a table, of the
  row's sweep column (the map's ``x``, or the column named as the sweep metric).

Every bound value carries its pointer (metric key, run, step; or table, row, column and the
file's path and hash), which the verdict records with the :class:`Binding` of each quantity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from openrepro.claims.checks import Check, Quantity, sweep_metric, sweeps_of
from openrepro.errors import LogbookError, UnreadableEvidenceError
from openrepro.evidence.checks import EvidenceLevels, apply_levels
from openrepro.evidence.gather import CLAIM_METRICS, metric_measurements
from openrepro.evidence.records import Flag, Measurement, Pointer, describe_pointer
from openrepro.evidence.relations import Bound
from openrepro.logbooks.manifest import MapPointer
from openrepro.logbooks.records import FileRef, LogbookRecord, TableRef, TableValue
from openrepro.logbooks.tables import number, read_column

__all__ = [
    "BINDING_HOWS",
    "MAX_BIND_ROWS",
    "Binding",
    "BindingHow",
    "CheckBinding",
    "Locate",
    "bind_check",
    "bind_chosen",
    "bind_claim",
    "normalise_name",
    "pointer_candidates",
]

BindingHow = Literal["key", "map", "match", "llm", "unbound"]
BINDING_HOWS: tuple[BindingHow, ...] = ("key", "map", "match", "llm", "unbound")
MAX_CANDIDATES = 40  # numbered pointers shown to a model choosing one (rule 4)
MAX_LABELS = 12  # distinct values of a label column offered as row selections
MAX_BIND_ROWS = 10_000  # a table longer than this is not read row by row for binding
Locate = Callable[[FileRef], Path | None]
#: columns that number or label seeds and steps, never a measured quantity
BOOKKEEPING = frozenset(
    {"", "seed", "seeds", "step", "epoch", "run", "run_id", "id", "index", "idx", "trial", "rep",
     "repeat", "fold", "unnamed_0"}
)  # fmt: skip
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normalise_name(text: str) -> str:
    """A name as matching compares it: lower case, every run of other characters one ``_``
    (``Test Acc.`` -> ``test_acc``). ASCII only: a look-alike letter matches nothing."""
    return _NON_ALNUM.sub("_", text.strip().lower()).strip("_")


class Binding(BaseModel):
    """How one quantity was bound: by which rule, to which pointers and values, or why not."""

    quantity: str
    how: BindingHow
    pointers: list[Pointer] = Field(default_factory=list)
    values: list[float] = Field(default_factory=list)
    reason: str = ""  # what bound it ("evidence map: outputs/runs.csv, every row, column acc")
    flags: list[Flag] = Field(default_factory=list)

    def describe(self) -> str:
        """One line for people: ``accuracy: map (outputs/runs.csv ...; 3 values)``."""
        if self.how == "unbound":
            return f"{self.quantity}: unbound ({self.reason or 'nothing binds it'})"
        count = f"{len(self.values)} value{'s' if len(self.values) != 1 else ''}"
        return f"{self.quantity}: {self.how} ({self.reason}; {count})"


class CheckBinding(BaseModel):
    """What :func:`bind_claim` bound: the values for :func:`~openrepro.evidence.relations.evaluate`,
    the measurements they are (the verdict takes their provenance), one :class:`Binding` per
    quantity, and the flags raised on the way."""

    bound: list[Bound] = Field(default_factory=list)
    used: list[Measurement] = Field(default_factory=list)
    bindings: list[Binding] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    #: tables that could not be read (``evidence_unreadable``): the file and the problem
    unreadable: list[str] = Field(default_factory=list)


def bind_check(
    check: Check, usable: Sequence[Measurement]
) -> tuple[list[Bound], list[Measurement]]:
    """The :class:`Bound` of every quantity of ``check`` that ``usable`` measurements of the
    claim's exact keys bind (rule 1 of the module docstring), and the measurements bound; a
    quantity nothing binds is left out (the evaluation says so)."""
    sweeps = sweeps_of(check)
    by_metric: dict[str, list[Measurement]] = {}
    for m in usable:
        by_metric.setdefault(m.metric, []).append(m)
    quantities = check.all_quantities()
    others = set(by_metric) - {sweep_metric(s) for s in sweeps.values()}
    if len(quantities) == 1 and quantities[0].name not in by_metric and len(others) == 1:
        by_metric[quantities[0].name] = by_metric[others.pop()]  # the one unambiguous binding
    out: list[Bound] = []
    used: list[Measurement] = []
    for quantity in quantities:
        found = by_metric.get(quantity.name, [])
        if not found:
            continue
        sweep = sweeps.get(quantity.name)
        if sweep is None:
            out.append(_bound(quantity.name, found))
            used += found
            continue
        xs = {m.seed: m for m in by_metric.get(sweep_metric(sweep), [])}
        points = [(xs[m.seed].value, m.value) for m in found if m.seed in xs]
        pointers = [
            f"{describe_pointer(m.pointer)} at {describe_pointer(xs[m.seed].pointer)}"
            for m in found
            if m.seed in xs
        ]
        if points:
            out.append(Bound(quantity=quantity.name, points=points, pointers=pointers))
            used += [m for m in found if m.seed in xs] + [xs[m.seed] for m in found if m.seed in xs]
    return out, list({id(m): m for m in used}.values())


def _bound(name: str, found: Sequence[Measurement], xs: Sequence[float | str] = ()) -> Bound:
    """The bound values of one quantity. Identical seeds count as one: three seeds with the
    same value are one observation, not three (they would give a zero-width interval); the
    same (x, y) point likewise."""
    pointers: list[str] = []
    if xs:
        points: list[tuple[float | str, float]] = []
        for x, m in zip(xs, found, strict=True):
            if (x, m.value) not in points:
                points.append((x, m.value))
                pointers.append(describe_pointer(m.pointer))
        return Bound(quantity=name, points=points, pointers=pointers)
    seeds: list[float] = []
    for m in found:
        if m.value not in seeds:
            seeds.append(m.value)
            pointers.append(describe_pointer(m.pointer))
    return Bound(quantity=name, seeds=seeds, pointers=pointers)


def _counts(m: Measurement) -> bool:
    return m.within_run and m.run_ok and m.level != "testimony"


# ---- reading tables ----


class _Tables:
    """The record's tables as binding reads them: only those a successful recorded run
    produced or printed, each column read once (by code, at its pointer)."""

    def __init__(self, record: LogbookRecord, locate: Locate | None) -> None:
        self.record = record
        self.locate = locate
        self._columns: dict[tuple[str, str], list[TableValue]] = {}
        self.unreadable: dict[str, str] = {}  # table -> why it cannot be read
        runs = {r.id for r in record.runs if r.exit_code == 0}
        self.eligible: list[TableRef] = [
            t for t in record.tables
            if t.source in ("file", "output") and t.run in runs and t.run_ok
        ]  # fmt: skip
        #: testimony: Markdown tables in pages, and files no recorded run is known to have
        #: produced (shown in reasons and corroborations, never bound)
        self.testimony: list[TableRef] = [
            t for t in record.tables if t.source == "page" or (t.source == "file" and not t.run)
        ]

    def column(self, table: TableRef, column: str) -> list[TableValue]:
        """Every value of ``column`` (raises :class:`LogbookError` naming the problem)."""
        key = (table.table, column)
        if key not in self._columns:
            if self.locate is None and table.source == "file":
                raise LogbookError(f"{table.path}: the file cannot be read here")
            locate = self.locate or (lambda ref: None)
            try:
                self._columns[key] = read_column(
                    self.record.tables, self.record.runs, self.record.pages, table.table, column,
                    locate, max_rows=MAX_BIND_ROWS,
                )  # fmt: skip
            except UnreadableEvidenceError as exc:
                self.unreadable.setdefault(table.table, str(exc))
                raise
        return self._columns[key]


def _cell_measurements(
    table: TableRef, rows: Sequence[int], values: Sequence[TableValue], quantity: str
) -> list[Measurement]:
    # built without validation (every field typed here): a record validated per cell made
    # binding a 10,000-row table take minutes
    return [
        Measurement.model_construct(
            value=float(values[row - 1].value or 0.0), metric=quantity,
            run=table.run_of_row(row), seed=f"{table.table}:{row}", run_ok=table.run_ok,
            within_run=True,
            pointer=Pointer.model_construct(kind="table_cell", table=table.table, row=row,
                            column=values[row - 1].column, path=table.path,
                            run=table.run_of_row(row),
                            sha256=table.table if table.source == "file" else ""),
        )
        for row in rows
    ]  # fmt: skip


def _x(cell: TableValue) -> float | str:
    """A sweep point as a table gives it: its number, else its text (a dataset's name)."""
    return cell.value if cell.value is not None else cell.text.strip()


def _same_text(cell: TableValue, wanted: str | int | float) -> bool:
    if isinstance(wanted, int | float) and not isinstance(wanted, bool):
        return cell.value is not None and cell.value == float(wanted)
    text = str(wanted).strip()
    if cell.text.strip() == text:
        return True
    want = number(text)
    return want is not None and cell.value is not None and cell.value == want


def _table_of(record: LogbookRecord, tables: _Tables, pointer: MapPointer) -> TableRef | str:
    """The table a map pointer names, or why it names none that counts."""
    if pointer.file:
        named = [t for t in record.tables if t.source == "file" and t.path == pointer.file]
        ok = [t for t in named if t in tables.eligible]
        if ok:
            return ok[-1]  # the file as the last successful run that produced it wrote it
        if named:
            return f"{pointer.file} was not produced by a successful recorded run"
        if any(f.path == pointer.file for f in record.files):
            produced = any(f.path == pointer.file for r in record.runs for f in r.produced)
            return (f"{pointer.file} is not a table a run produced" if not produced
                    else f"{pointer.file} is not a table (a format read as one: CSV, TSV, "
                    "JSON, JSONL, Parquet)")  # fmt: skip
        return f"no file {pointer.file} in the logbook"
    found = next((t for t in record.tables if t.table == pointer.table), None)
    if found is None:
        return f"no table {pointer.table} in the logbook"
    if found not in tables.eligible:
        return f"table {pointer.table} was not produced by a successful recorded run"
    return found


MAX_SEED_ROWS = 1000  # a one-column table longer than this is not taken as seeds
SEED_COLUMNS = frozenset({"seed", "seeds", "random_seed", "rng_seed", "trial", "rep", "repeat",
                          "replicate", "run", "run_id", "fold"})  # fmt: skip


def _seed_column(table: TableRef) -> str:
    return next((c for c in table.columns if normalise_name(c) in SEED_COLUMNS), "")


def _last_steps(tables: _Tables, table: TableRef, rows: list[int]) -> list[int]:
    """The rows of a series (a table with a step/epoch/iteration column) reduced to the last
    step of each seed (each value of its seed column; the whole table when it has none): a
    training history's rows are steps, not seeds. Other tables: ``rows`` as given."""
    if not table.series or not rows:
        return rows
    steps = tables.column(table, table.series)
    seed = _seed_column(table)
    seeds = tables.column(table, seed) if seed else []
    last: dict[str, int] = {}
    for row in rows:
        group = seeds[row - 1].text.strip() if seeds else ""
        held = last.get(group)
        step, before = steps[row - 1].value, steps[held - 1].value if held else None
        if held is None or step is None or before is None or step >= before:
            last[group] = row
    return sorted(last.values())


def _setting_rows(tables: _Tables, table: TableRef, rows: list[int], pointer: MapPointer
                  ) -> list[int]:  # fmt: skip
    """Every seed row of the setting(s) of ``rows``: a map chooses a table and column, not
    seeds. In a table with a seed column, the rows whose label columns (and the map's ``where``
    and ``x`` columns) hold the same values as a chosen row all count (a map pointing at rows
    2, 5 and 9 of a ten-seed table binds all ten)."""
    seed = _seed_column(table)
    if not rows:
        return rows
    if not seed:
        others = [c for c in table.columns if c != pointer.column]
        if others or table.rows > MAX_SEED_ROWS:
            return rows  # rows may be settings (a sweep): the map's rows stand
        return list(range(1, table.rows + 1))  # one column of values: every row is a seed
    cells = {c: tables.column(table, c) for c in table.columns if c != seed}
    keys = [c for c in cells if _labels(cells[c]) or c in pointer.where or c == pointer.x]
    settings = {tuple(cells[c][r - 1].text.strip() for c in keys) for r in rows}
    return [r for r in range(1, table.rows + 1)
            if tuple(cells[c][r - 1].text.strip() for c in keys) in settings]  # fmt: skip


def _map_rows(tables: _Tables, table: TableRef, pointer: MapPointer) -> list[int] | str:
    if pointer.row is not None:
        if pointer.row > table.rows:
            return f"no row {pointer.row} (the table has {table.rows})"
        return _last_steps(tables, table, _setting_rows(tables, table, [pointer.row], pointer))
    rows = list(range(1, table.rows + 1))
    for column, wanted in pointer.where.items():
        if column not in table.columns:
            return f"no column {column!r} to select rows by"
        cells = tables.column(table, column)
        rows = [r for r in rows if _same_text(cells[r - 1], wanted)]
    if not rows:
        where = ", ".join(f"{k}={v}" for k, v in pointer.where.items())
        return f"no row where {where}" if where else "the table has no rows"
    return _last_steps(tables, table, _setting_rows(tables, table, rows, pointer))


def _from_map_pointer(
    record: LogbookRecord, tables: _Tables, quantity: Quantity, pointer: MapPointer,
    swept: bool,
) -> tuple[list[Measurement], list[float | str]] | str:  # fmt: skip
    """The measurements (and sweep x values) at one map pointer, or why it binds nothing."""
    if pointer.metric:
        if swept:
            return "a swept quantity is mapped to a table with an x column, not to a metric"
        found = metric_measurements(record, lambda key: quantity.name if key == pointer.metric
                                    else None)  # fmt: skip
        if not found:
            return f"no metric {pointer.metric} in the logbook"
        return found, []
    table = _table_of(record, tables, pointer)
    if isinstance(table, str):
        return table
    if pointer.column not in table.columns:
        return f"no column {pointer.column!r} (it has {', '.join(table.columns[:12])})"
    if swept and not pointer.x:
        return "a swept quantity needs the x column (the swept variable)"
    if pointer.x and pointer.x not in table.columns:
        return f"no x column {pointer.x!r}"
    try:
        rows = _map_rows(tables, table, pointer)
        if isinstance(rows, str):
            return rows
        values = tables.column(table, pointer.column)
        xs_cells = tables.column(table, pointer.x) if pointer.x else []
    except LogbookError as exc:
        return str(exc)
    bad = [r for r in rows if values[r - 1].value is None]
    if bad:
        shown = values[bad[0] - 1].text[:40]
        return f"row {bad[0]}, column {pointer.column!r} holds {shown!r}, not a number"
    xs = [_x(xs_cells[r - 1]) for r in rows] if xs_cells else []
    return _cell_measurements(table, rows, values, quantity.name), xs


# ---- name matching ----


class _Candidate(BaseModel):
    measurements: list[Measurement]
    xs: list[float | str] = Field(default_factory=list)
    where: str


def _numeric(cells: Sequence[TableValue]) -> bool:
    """A column of numbers (blank cells allowed: a metric a row did not measure)."""
    filled = [c for c in cells if c.text.strip()]
    return bool(filled) and all(c.value is not None for c in filled)


def _labels(cells: Sequence[TableValue]) -> bool:
    """A column of names (``method``, ``dataset``): no cell a number, some not blank."""
    return any(c.text.strip() for c in cells) and all(c.value is None for c in cells)


def _table_candidates(
    tables: _Tables, table: TableRef, quantity: Quantity, names: set[str], sweep: str | None,
    hints: set[str],
) -> list[_Candidate]:  # fmt: skip
    setting = normalise_name(quantity.setting)
    sweep_column = normalise_name(sweep_metric(sweep)) if sweep else ""
    try:
        cells = {c: tables.column(table, c) for c in table.columns}
    except LogbookError:
        return []
    norm = {c: normalise_name(c) for c in table.columns}
    label_cols = [c for c in table.columns if _labels(cells[c])]
    value_cols = [
        c for c in table.columns
        if _numeric(cells[c]) and norm[c] not in BOOKKEEPING and norm[c] != sweep_column
    ]  # fmt: skip
    x_col = next((c for c in table.columns if sweep_column and norm[c] == sweep_column), None)
    if sweep and x_col is None:
        return []
    found: list[tuple[list[int], str, str]] = []  # (rows, value column, how)
    all_rows = list(range(1, table.rows + 1))
    nested = table.format in ("json", "jsonl")  # flattened keys: "claim_1.max_err"
    for column in value_cols:
        leaf = normalise_name(column.rsplit(".", 1)[-1]) if nested else norm[column]
        if norm[column] in names or leaf in names:
            mixed = any(len({normalise_name(c.text) for c in cells[lab]}) > 1 for lab in label_cols)
            if not mixed:
                found.append((all_rows, column, f"column {column}"))
    for label in label_cols:
        labels = [normalise_name(c.text) for c in cells[label]]
        for column in value_cols:
            m = norm[column]
            parts = {p for n in names for p in (n.removesuffix("_" + m), n.removeprefix(m + "_"))}
            for part in parts - names:
                rows = [r for r in all_rows if labels[r - 1] == part]
                if rows:
                    found.append((rows, column, f"{label}={part}, column {column}"))
        rows = [r for r in all_rows if labels[r - 1] in ({*names, setting} - {""})]
        if rows:
            chosen = value_cols if len(value_cols) == 1 else [
                c for c in value_cols if norm[c] in hints
            ]  # fmt: skip
            if len(chosen) == 1:
                found.append((rows, chosen[0], f"{label}={labels[rows[0] - 1]}, "
                                               f"column {chosen[0]}"))  # fmt: skip
    where = table.path or f"table {table.table}"
    if table.source == "page":
        where = f"page {table.page}, Markdown table {table.table}"
    out = []
    for rows_found, column, how in found:
        rows = _last_steps(tables, table, rows_found)
        if any(cells[column][r - 1].value is None for r in rows):
            continue  # a blank among the rows: not a value for every seed
        xs = [_x(cells[x_col][r - 1]) for r in rows] if x_col is not None else []
        out.append(_Candidate(
            measurements=_cell_measurements(table, rows, cells[column], quantity.name), xs=xs,
            where=f"{where}: {how}",
        ))  # fmt: skip
    return out


def _metric_candidates(
    record: LogbookRecord, quantity: Quantity, names: set[str]
) -> list[_Candidate]:
    def name_of(key: str) -> str | None:
        if key.startswith(CLAIM_METRICS):
            return None  # a claim's own keys bind by rule 1 only
        return key if normalise_name(key.rsplit("/", 1)[-1]) in names else None

    by_key: dict[str, list[Measurement]] = {}
    for m in metric_measurements(record, name_of):
        if m.within_run and m.run_ok:
            by_key.setdefault(m.metric, []).append(m.model_copy(update={"metric": quantity.name}))
    return [_Candidate(measurements=ms, where=f"metric {key}") for key, ms in by_key.items()]


def _match(
    record: LogbookRecord, tables: _Tables, quantity: Quantity, sweep: str | None,
    hints: set[str], only: bool,
) -> _Candidate | str:  # fmt: skip
    """The one candidate name matching finds for ``quantity`` (see the module docstring), or
    why there is none. The quantity's names: its own, and the claim's metric names (``hints``)
    when it is the check's ``only`` quantity."""
    names = {quantity.name, *(hints if only else ())}
    candidates: list[_Candidate] = []
    for table in tables.eligible:
        candidates += _table_candidates(tables, table, quantity, names, sweep, hints)
    if sweep is None:  # a metric answers to the quantity's own name only (see the docstring)
        candidates += _metric_candidates(record, quantity, {quantity.name})
    if not candidates:
        shown = " or ".join(repr(n) for n in sorted(names))
        mixed = [f"{t.path or t.table} ({c})" for t in tables.eligible for c in t.columns
                 if normalise_name(c) in names]  # fmt: skip
        if mixed:
            return (
                f"column {', '.join(mixed[:3])} holds rows of several settings: an evidence "
                "map must choose the rows (by a label column)"
            )
        return f"no column, label or metric named {shown} in a successful run's output"
    distinct = {tuple(sorted(m.value for m in c.measurements)) for c in candidates}
    if len(distinct) > 1:
        shown = "; ".join(c.where for c in candidates[:4])
        return f"ambiguous: {len(candidates)} matches disagree ({shown})"
    return candidates[0]


# ---- testimony: what the reasons name, never what binds ----


def _said(
    tables: _Tables, quantity: Quantity, sweep: str | None, hints: set[str], only: bool
) -> list[tuple[TableRef, _Candidate]]:
    names = {quantity.name, *(hints if only else ())}
    found: list[tuple[TableRef, _Candidate]] = []
    for table in tables.testimony:
        found += [(table, c) for c in
                  _table_candidates(tables, table, quantity, names, sweep, hints)]  # fmt: skip
    return found


def _testimony_only(
    tables: _Tables, quantity: Quantity, sweep: str | None, hints: set[str], only: bool
) -> str:
    """Why a quantity that binds nothing still has numbers: they stand only in a page's
    Markdown table, or in a file no recorded run is known to have produced (testimony)."""
    said = _said(tables, quantity, sweep, hints, only)
    names = {quantity.name, *(hints if only else ())}
    named = [t for t in tables.testimony if any(normalise_name(c) in names for c in t.columns)]
    pages = [c.where for t, c in said if t.source == "page"]
    pages += [f"page {t.page}, Markdown table {t.table}" for t in named if t.source == "page"]
    files = sorted({t.path for t, _ in said if t.source == "file"} |
                   {t.path for t in named if t.source == "file"})  # fmt: skip
    parts = []
    if files:
        parts.append(f"file not produced by a recorded run (testimony only): {', '.join(files)}")
    if pages:
        parts.append(f"numbers only in markdown (testimony only): {pages[0]}")
    return "; ".join(parts)


def _corroborated(
    tables: _Tables, quantity: Quantity, sweep: str | None, hints: set[str], only: bool,
    values: Sequence[float],
) -> str:  # fmt: skip
    """``; corroborates ...`` when testimony (a page table, an unproduced file) states the same
    values as those bound at a higher level: the bound pointers are the verdict's evidence."""
    held = [float(v) for v in values]
    for _, candidate in _said(tables, quantity, sweep, hints, only):
        stated = [m.value for m in candidate.measurements]
        if stated and all(any(_close(s, v) for v in held) for s in stated):
            return f"; corroborates the testimony in {candidate.where}"
    return ""


def _close(a: float, b: float) -> bool:
    """Equal as people write numbers (rounded): within 0.5 % of the stated value."""
    return abs(a - b) <= max(1e-9, abs(a) * 5e-3)


# ---- the whole claim ----


def bind_claim(
    record: LogbookRecord,
    claim_id: str,
    check: Check,
    found: Sequence[Measurement],
    *,
    claim_key: str = "",
    locate: Locate | None = None,
    levels: EvidenceLevels | None = None,
    hints: Sequence[str] = (),
) -> CheckBinding:
    """Bind every quantity of ``check`` (see the module docstring). ``found`` are the claim's
    measurements under its ``claims/<id>/`` keys; ``locate`` finds a stored file's bytes (no
    file is read without it); ``hints`` are the claim's metric names (``accuracy``), which pick
    the value column of a label match."""
    leveled, flags = apply_levels(record, claim_id, found, levels)
    bound, used = bind_check(check, [m for m in leveled if _counts(m)])
    result = CheckBinding(bound=bound, used=used, flags=list(flags))
    by_name = {b.quantity: b for b in bound}
    tables = _Tables(record, locate)
    sweeps = sweeps_of(check)
    wanted = {normalise_name(h) for h in hints if h} - {""}
    for quantity in check.all_quantities():
        if quantity.name in by_name:
            mine = [m for m in used if m.metric == quantity.name or len(bound) == 1]
            keys = ", ".join(sorted({m.pointer.key for m in mine}))
            result.bindings.append(Binding(
                quantity=quantity.name, how="key", pointers=[m.pointer for m in mine],
                values=[m.value for m in mine], reason=f"exact key {keys}",
            ))  # fmt: skip
            continue
        sweep = sweeps.get(quantity.name)
        mapped = record.evidence_map.pointers(claim_id, claim_key, quantity.name) if (
            record.evidence_map is not None) else []  # fmt: skip
        problem = ""
        if mapped:
            problem = _bind_mapped(record, claim_id, tables, quantity, mapped, sweep is not None,
                                   levels, result)  # fmt: skip
            if not problem:
                continue
            result.flags.append("map_entry_unbound")
        only = len(check.all_quantities()) == 1
        matched = _match(record, tables, quantity, sweep, wanted, only)
        if isinstance(matched, str):
            said = _testimony_only(tables, quantity, sweep, wanted, only)
            result.bindings.append(Binding(
                quantity=quantity.name, how="unbound",
                reason="; ".join(p for p in (said, problem, matched) if p),
                flags=["map_entry_unbound"] if problem else [],
            ))  # fmt: skip
            continue
        where = f"{problem}; instead {matched.where}" if problem else matched.where
        if _take(record, claim_id, quantity.name, "match", [(matched.measurements, matched.xs)],
                 where, levels, result) and problem:  # fmt: skip
            result.bindings[-1].flags.append("map_entry_unbound")
    for entry in result.bindings:
        if entry.how != "unbound":
            quantity = next(q for q in check.all_quantities() if q.name == entry.quantity)
            only = len(check.all_quantities()) == 1
            entry.reason += _corroborated(tables, quantity, sweeps.get(quantity.name), wanted,
                                          only, entry.values)  # fmt: skip
    result.unreadable = list(tables.unreadable.values())
    if result.unreadable:
        result.flags.append("evidence_unreadable")
    result.flags = list(dict.fromkeys(result.flags))
    return result


def _bind_mapped(
    record: LogbookRecord, claim_id: str, tables: _Tables, quantity: Quantity,
    mapped: list[MapPointer], swept: bool, levels: EvidenceLevels | None, result: CheckBinding,
) -> str:  # fmt: skip
    """Bind ``quantity`` at its map pointers; "" when bound, else why nothing was (then name
    matching still applies: a wrong map hides no evidence)."""
    parts: list[tuple[list[Measurement], list[float | str]]] = []
    problems: list[str] = []
    for pointer in mapped:
        got = _from_map_pointer(record, tables, quantity, pointer, swept)
        if isinstance(got, str):
            problems.append(f"{pointer.describe()}: {got}")
        else:
            parts.append(got)
    if problems:  # one bad pointer and the participant's map is wrong: nothing is bound by it
        return "evidence map binds nothing: " + "; ".join(problems)
    where = "evidence map: " + "; ".join(p.describe() for p in mapped)
    kept = _counting(record, claim_id, parts, levels, result)
    if kept is None:
        return f"evidence map binds nothing: {where}: nothing that counts"
    _store(quantity.name, "map", kept, where, result)
    return ""


def _take(
    record: LogbookRecord, claim_id: str, name: str, how: BindingHow,
    parts: list[tuple[list[Measurement], list[float | str]]], where: str,
    levels: EvidenceLevels | None, result: CheckBinding,
) -> bool:  # fmt: skip
    """Bind the measurements that count among ``parts``; False (and an unbound binding saying
    why) when none does."""
    kept = _counting(record, claim_id, parts, levels, result)
    if kept is None:
        why = ", ".join(dict.fromkeys(result.flags)) or "not from a successful recorded run"
        result.bindings.append(Binding(quantity=name, how="unbound",
                                       reason=f"{where}: nothing that counts ({why})"))  # fmt: skip
        return False
    _store(name, how, kept, where, result)
    return True


def _counting(
    record: LogbookRecord, claim_id: str,
    parts: list[tuple[list[Measurement], list[float | str]]], levels: EvidenceLevels | None,
    result: CheckBinding,
) -> tuple[list[Measurement], list[float | str]] | None:  # fmt: skip
    """The measurements among ``parts`` that count (with their sweep x), at their run's level;
    None when none does. The provenance flags raised go to ``result``."""
    kept: list[Measurement] = []
    xs: list[float | str] = []
    raised: list[Flag] = []
    for measured, part_xs in parts:
        leveled, flags = apply_levels(record, claim_id, measured, levels)
        raised += flags
        for i, m in enumerate(leveled):
            if _counts(m):
                kept.append(m)
                if part_xs:
                    xs.append(part_xs[i])
    result.flags += raised
    return (kept, xs) if kept else None


def _store(
    name: str, how: BindingHow, kept: tuple[list[Measurement], list[float | str]], where: str,
    result: CheckBinding,
) -> None:  # fmt: skip
    measured, xs = kept
    first: dict[str, int] = {}
    for i, m in enumerate(measured):
        first.setdefault(describe_pointer(m.pointer), i)
    unique = sorted(first.values())
    measured = [measured[i] for i in unique]  # one pointer counts once (map entries overlap)
    xs = [xs[i] for i in unique] if xs else xs
    result.bound.append(_bound(name, measured, xs))
    result.used += measured
    result.bindings.append(Binding(quantity=name, how=how, pointers=[m.pointer for m in measured],
                                   values=[m.value for m in measured], reason=where))  # fmt: skip


# ---- rule 4: a model chooses among numbered pointers (the judge asks; code reads) ----


def pointer_candidates(
    record: LogbookRecord, locate: Locate | None, *, limit: int = MAX_CANDIDATES
) -> list[MapPointer]:
    """Pointers a model may choose among for a quantity nothing else bound: each numeric column
    of a table a successful recorded run produced or printed (every row, or the rows of each
    value of a label column), and each metric key outside ``claims/`` logged during a
    successful run. Built by code from the tables' shapes; at most ``limit``."""
    tables = _Tables(record, locate)
    found: list[MapPointer] = []
    for table in tables.eligible:
        try:
            cells = {c: tables.column(table, c) for c in table.columns}
        except LogbookError:
            continue
        place = {"file": table.path} if table.source == "file" else {"table": table.table}
        labels = [c for c in table.columns if _labels(cells[c])]
        for column in table.columns:
            if not _numeric(cells[column]) or normalise_name(column) in BOOKKEEPING:
                continue
            for label in labels:
                for value in list(dict.fromkeys(c.text.strip() for c in cells[label]))[:MAX_LABELS]:
                    found += _pointer({**place, "where": {label: value}, "column": column})
            if not labels:
                found += _pointer({**place, "column": column})
    keys = dict.fromkeys(
        m.pointer.key
        for m in metric_measurements(record, lambda key: None if key.startswith("claims/") else key)
        if m.within_run and m.run_ok
    )
    found += [MapPointer(metric=key) for key in keys]
    return found[:limit]


def _pointer(data: dict[str, object]) -> list[MapPointer]:
    try:
        return [MapPointer.model_validate(data)]
    except ValidationError:  # a column name or label beyond a map's caps: not offered
        return []


def bind_chosen(
    record: LogbookRecord,
    claim_id: str,
    binding: CheckBinding,
    chosen: dict[str, MapPointer],
    *,
    locate: Locate | None = None,
    levels: EvidenceLevels | None = None,
) -> CheckBinding:
    """``binding`` with the quantities in ``chosen`` (unbound ones, each with the pointer a model
    chose) bound at that pointer as :func:`bind_claim` binds a map entry (``how`` ``llm``), or
    left unbound with the reason. The model names a pointer only: code reads every value."""
    tables = _Tables(record, locate)
    out = binding.model_copy(deep=True)
    for name, pointer in chosen.items():
        index = next((i for i, b in enumerate(out.bindings)
                      if b.quantity == name and b.how == "unbound"), None)  # fmt: skip
        if index is None:
            continue
        previous = out.bindings.pop(index)
        quantity = Quantity(name=name)
        got = _from_map_pointer(record, tables, quantity, pointer, swept=False)
        where = f"chosen by the judge model: {pointer.describe()}"
        kept = None if isinstance(got, str) else _counting(record, claim_id, [got], levels, out)
        if kept is None:
            why = got if isinstance(got, str) else "nothing that counts"
            previous.reason = f"{previous.reason}; {where}: {why}"
            out.bindings.append(previous)
            continue
        _store(name, "llm", kept, where, out)
    return out
