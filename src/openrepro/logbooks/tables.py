"""Tabular evidence: the tables a logbook holds, and the value at one of their cells.

Real logbooks keep most of their numbers in files their runs wrote (``outputs/runs.csv``, a
``summary.json``), in the raw data of figure cells (Trackio's ``````raw`` fence, often CSV) and
in tables their runs printed (pandas ``to_string``, Markdown, CSV). Each becomes a
:class:`~openrepro.logbooks.records.TableRef`, addressed by ``(table, row, column)``:

* ``table``: the file's sha256 (a produced file), the figure cell's id (raw data), or
  ``<run id>#<n>`` (the n-th table printed by a run, from 1);
* ``row``: the data row, from 1 (the header is not a row);
* ``column``: the header's name (``""`` for an unnamed index column of a printed table).

Only the shape (columns, row count) is kept in the record; :func:`read_value` reads a value
again, by code, at its pointer, streaming through the file (a 100 MB CSV is never held in
memory). Formats, by file suffix: ``.csv``, ``.tsv``, ``.json`` (a list of objects, an object
of columns, or one object of scalars, nested objects flattened with dotted names), ``.jsonl`` /
``.ndjson`` (one object per line) and ``.parquet`` (pyarrow). Caps: a file above
:data:`MAX_TABLE_BYTES` (JSON above :data:`MAX_JSON_TABLE_BYTES`, parsed whole) is kept as a file
but not read as a table, with a warning; at most :data:`MAX_COLUMNS` columns and
:data:`MAX_CELL_CHARS` characters per value.

A run's output also holds ``key=value`` result lines (``RESULT variant=full final_err=48.4%
best_epoch=7``): :func:`kv_tables` reads each line as one record, the lines with the same
prefix and keys as the rows of one table (a trailing ``%`` is dropped from a value; the
table's columns say the keys). JSON a run pretty-printed (``json.dumps(summary, indent=2)``)
is read as records (:func:`output_tables`), never line by line. A Markdown table written in a
page is indexed too (``source`` ``page``), as testimony; its cells are read loosely
(``**72.9x**`` is 72.9, ``0.81 ± 0.02`` is 0.81). Table files in the logbook's folder that no
cell names (:func:`loose_table_files`) are indexed with no run (testimony) unless a recorded
run is shown to write them (:func:`openrepro.logbooks.linking.link_produced`). A table with a
step, epoch or iteration column is a *series* (``TableRef.series``): its rows are steps of a
history, not seeds. One CSV that several runs appended to (each run's artifact cell recorded
a larger size, every earlier size ending a line) keeps which rows each run wrote
(``TableRef.segments``).

A printed table is read only where it is unambiguous: a Markdown pipe table with its separator
row, a CSV/TSV block whose every line has the same number of fields, or a whitespace-aligned
block (pandas' ``to_string``) whose rows all have the same number of numeric fields and whose
header names them. Anything else in an output stays an output line. Figure images are not
tables: they are files (see :mod:`openrepro.logbooks.figures`).
"""

from __future__ import annotations

import csv
import importlib
import io
import itertools
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openrepro.errors import LogbookError, UnreadableEvidenceError
from openrepro.logbooks.limits import (
    MAX_CSV_FIELD_CHARS,
    MAX_JSON_VALUES,
    MAX_TABLE_MEMORY,
    MAX_TABLE_ROWS,
)
from openrepro.logbooks.manifest import json_limit_problem
from openrepro.logbooks.records import FileRef, Page, RowRange, Run, TableRef, TableValue

__all__ = [
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_JSON_TABLE_BYTES",
    "MAX_TABLE_BYTES",
    "TABLE_FORMATS",
    "TextTable",
    "index_tables",
    "kv_tables",
    "loose_number",
    "loose_table_files",
    "number",
    "open_parquet",
    "output_tables",
    "page_tables",
    "parquet_values",
    "read_column",
    "read_value",
    "series_column",
    "table_format",
    "text_tables",
]

TextFormat = Literal["csv", "tsv", "text", "json"]
FileFormat = Literal["csv", "tsv", "json", "jsonl", "parquet"]
MAX_TABLE_BYTES = 1024 * 1024 * 1024
MAX_JSON_TABLE_BYTES = 64 * 1024 * 1024
MAX_COLUMNS = 1000
MAX_CELL_CHARS = 10_000
TABLE_FORMATS: dict[str, FileFormat] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
_NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PIPE_SEPARATOR_RE = re.compile(r"^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?$")
_FENCE_RE = re.compile(r"(`{3,4}|~{3,4})([^\n]*)\n([\s\S]*?)\n\1")  # as trackio parses fences


def number(text: str) -> float | None:
    """The finite number ``text`` is, as written (``87.3%`` and ``=1+1`` are not numbers)."""
    value = text.strip()
    if not _NUMBER_RE.fullmatch(value):
        return None
    try:
        parsed = float(value)
    except (ValueError, OverflowError):
        return None
    return parsed if math.isfinite(parsed) else None


def table_format(path: str) -> FileFormat | None:
    """The table format of a file, by its suffix, or ``None``."""
    lowered = path.lower()
    return next((fmt for suffix, fmt in TABLE_FORMATS.items() if lowered.endswith(suffix)), None)


# ---- text tables (raw cells, run output) ----


@dataclass(frozen=True)
class TextTable:
    """A table found in text: its header and rows (every row as long as the header)."""

    format: TextFormat  # Markdown and whitespace-aligned tables are "text"
    columns: list[str]
    rows: list[list[str]]


def _blocks(text: str) -> Iterator[list[str]]:
    block: list[str] = []
    for line in text.splitlines():
        if line.strip():
            block.append(line.rstrip())
        elif block:
            yield block
            block = []
    if block:
        yield block


def _pipe_table(lines: list[str]) -> TextTable | None:
    if len(lines) < 3 or not all(line.lstrip().startswith("|") for line in lines):
        return None
    if not _PIPE_SEPARATOR_RE.match(lines[1].strip()):
        return None

    def cells(line: str) -> list[str]:
        inner = line.strip().removeprefix("|").removesuffix("|")
        return [c.strip() for c in inner.split("|")]

    columns = cells(lines[0])
    rows = [cells(line) for line in lines[2:]]
    if any(len(r) != len(columns) for r in rows):
        return None
    return TextTable(format="text", columns=columns, rows=rows)


def _delimited(lines: list[str], delimiter: str, fmt: TextFormat) -> TextTable | None:
    if len(lines) < 2 or not all(delimiter in line for line in lines):
        return None
    try:
        parsed = list(csv.reader(lines, delimiter=delimiter))
    except csv.Error:
        return None
    width = len(parsed[0])
    if width < 2 or any(len(r) != width for r in parsed):
        return None
    columns = [c.strip() for c in parsed[0]]
    if any(number(c) is not None for c in columns) or len(set(columns)) != width:
        return None  # a header names its columns; a block of numbers has no header
    rows = [[c.strip() for c in r] for r in parsed[1:]]
    if not any(number(c) is not None for r in rows for c in r):
        return None
    return TextTable(format=fmt, columns=columns, rows=rows)


def _aligned(lines: list[str]) -> TextTable | None:
    """A whitespace-aligned table (pandas ``to_string``): a header of names, optionally a line
    with only the index name, then rows of a label or number followed by numbers."""
    header = lines[0].split()
    body = lines[1:]
    index_name = ""
    if body and len(body[0].split()) == 1 and len(body) > 1 and len(body[1].split()) > 1:
        index_name = body[0].split()[0]  # pandas prints the index name on a line of its own
        body = body[1:]
    if not header or not body or any(number(h) is not None for h in header):
        return None
    rows = [line.split() for line in body]
    width = len(rows[0])
    if width < 2 or any(len(r) != width for r in rows):
        return None
    if not all(number(c) is not None for r in rows for c in r[1:]):
        return None
    if width == len(header) + 1:
        columns = [index_name, *header]
    elif width == len(header) and not index_name:
        columns = header
    else:
        return None
    if len(set(columns)) != len(columns):
        return None
    return TextTable(format="text", columns=columns, rows=rows)


def _numeric_row(line: str) -> int:
    """The width of a line that reads as a table row (a label or number, then numbers), else 0."""
    tokens = line.split()
    if len(tokens) < 2 or not all(number(t) is not None for t in tokens[1:]):
        return 0
    return len(tokens)


def _aligned_runs(lines: list[str]) -> Iterator[TextTable]:
    """Whitespace-aligned tables inside a block of other output lines: each run of rows of one
    width, under the header line above it (and the index-name line pandas may add)."""
    i = 0
    while i < len(lines):
        width = _numeric_row(lines[i])
        if not width:
            i += 1
            continue
        j = i
        while j < len(lines) and _numeric_row(lines[j]) == width:
            j += 1
        for start in (i - 2, i - 1):
            table = _aligned(lines[start:j]) if start >= 0 else None
            if table is not None:
                yield table
                break
        i = j


def text_tables(text: str) -> list[TextTable]:
    """The unambiguous tables in ``text`` (see the module docstring), in order."""
    found: list[TextTable] = []
    for lines in _blocks(text):
        table = (
            _pipe_table(lines)
            or _delimited(lines, "\t", "tsv")
            or _delimited(lines, ",", "csv")
            or _aligned(lines)
        )
        tables = [table] if table is not None else list(_aligned_runs(lines))
        found.extend(t for t in tables if len(t.columns) <= MAX_COLUMNS)
    return found


def raw_of(body: str) -> str:
    """The figure cell's raw data: its first ``raw`` fence, as Trackio's ``_figure_parts``."""
    for match in _FENCE_RE.finditer(body):
        lang = (match.group(2).strip().split() or [""])[0].lower()
        if lang == "raw":
            return match.group(3)
    return ""


# ---- run output: key=value lines, printed JSON ----

_KV_TOKEN_RE = re.compile(r"^([A-Za-z_][\w.\-/]*)[=:]([^=\s]+?)[,;]?$")
MAX_PREFIX_TOKENS = 3
#: a column naming the step of a history (its rows are steps, not seeds)
SERIES_COLUMNS = frozenset(
    {"step", "steps", "epoch", "epochs", "iteration", "iterations", "iter", "it",
     "global_step", "train_step", "update", "round"}
)  # fmt: skip


def series_column(columns: list[str]) -> str:
    """The step/epoch/iteration column of a table (``""`` when none): such a table is a series."""
    for column in columns:
        if re.sub(r"[^a-z0-9]+", "_", column.strip().lower()).strip("_") in SERIES_COLUMNS:
            return column
    return ""


def _kv_line(line: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``(prefix, pairs)`` of a ``key=value`` result line, else ``None``: up to three prefix
    words, then only ``key=value`` tokens (at least two, or one after a single upper-case
    marker such as ``RESULT``), one of them a number."""
    tokens = line.split()
    first = next((i for i, t in enumerate(tokens) if "=" in t), None)
    if first is None or first > MAX_PREFIX_TOKENS:
        return None
    pairs: list[tuple[str, str]] = []
    for token in tokens[first:]:
        match = _KV_TOKEN_RE.match(token) if "=" in token else None
        if match is None:
            return None
        pairs.append((match.group(1), match.group(2).removesuffix("%")))
    marked = first == 1 and tokens[0].strip("[]:").isupper()  # "RESULT acc=0.9"
    if len(pairs) < (1 if marked else 2) or len({k for k, _ in pairs}) != len(pairs):
        return None
    if not any(number(v) is not None for _, v in pairs):
        return None
    return " ".join(tokens[:first]), pairs


def kv_tables(text: str) -> list[TextTable]:
    """The ``key=value`` result lines of ``text`` as tables: one row per line, one table per
    (prefix, keys) in order of first appearance."""
    groups: dict[tuple[str, tuple[str, ...]], list[list[str]]] = {}
    for line in text.splitlines():
        parsed = _kv_line(line)
        if parsed is None:
            continue
        prefix, pairs = parsed
        keys = tuple(k for k, _ in pairs)
        if len(keys) <= MAX_COLUMNS:
            groups.setdefault((prefix, keys), []).append([v for _, v in pairs])
    return [TextTable(format="text", columns=list(keys), rows=rows)
            for (_, keys), rows in groups.items()]  # fmt: skip


def _json_spans(text: str) -> tuple[str, list[object]]:
    """``text`` with every JSON document a line starts (``{`` or ``[``, parsed whole, over
    one or more lines) blanked out, and those documents."""
    lines = text.splitlines()
    decoder = json.JSONDecoder()
    found: list[object] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if not stripped.startswith(("{", "[")):
            i += 1
            continue
        rest = "\n".join([stripped, *lines[i + 1 :]])
        try:
            data, end = decoder.raw_decode(rest)
        except (json.JSONDecodeError, RecursionError, ValueError):
            i += 1
            continue
        if rest[end:].split("\n", 1)[0].strip():
            i += 1  # more text after the document on its last line: not a printed document
            continue
        span = rest[:end].count("\n") + 1
        found.append(data)
        for j in range(i, i + span):
            lines[j] = ""
        i += span
    return "\n".join(lines), found


def output_tables(text: str) -> list[TextTable]:
    """The tables of a run's output, in this order: the unambiguous printed tables of
    :func:`text_tables` (JSON documents left out), the JSON documents it printed (each as
    records: a list of objects, an object of columns, or one object of scalars), then its
    ``key=value`` result lines (:func:`kv_tables`)."""
    rest, documents = _json_spans(text)
    found = text_tables(rest)
    for data in documents:
        shaped = _json_rows(data)
        if shaped is None:
            continue
        columns, rows = shaped
        cells = [[_clip(r.get(c)) for c in columns] for r in rows]
        found.append(TextTable(format="json", columns=columns, rows=cells))
    return found + kv_tables(rest)


# ---- pages (testimony) ----

_EMPHASIS_RE = re.compile(r"[*_`]+")
_MINUS, _TIMES = "\u2212", "\u00d7"
_LOOSE_RE = re.compile(
    r"^[~≈<>]?\s*([-+" + _MINUS + r"]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"\s*(?:%|" + _TIMES + r"|x|s|ms)?\s*(?:(?:±|\+/-|\+-)\s*[\d.eE+-]+\s*%?)?$"
)


def loose_number(text: str) -> float | None:
    """The number a Markdown cell shows, read loosely (testimony only): emphasis, a unit
    sign (``%``, a times sign) and a ``± sd`` part are dropped; ``1,024`` is 1024."""
    plain = _EMPHASIS_RE.sub("", text).strip()
    exact = number(plain)
    if exact is not None:
        return exact
    match = _LOOSE_RE.match(plain)
    if match is None:
        return None
    return number(match.group(1).replace(",", "").replace(_MINUS, "-"))


def page_tables(body: str) -> list[TextTable]:
    """The Markdown pipe tables of a page cell (testimony)."""
    return [t for lines in _blocks(body) if (t := _pipe_table(lines)) is not None]


# ---- files ----


def _clip(value: object) -> str:
    text = "" if value is None else value if isinstance(value, str) else json.dumps(value)
    return text[:MAX_CELL_CHARS]


def _flatten(value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            flat.update(_flatten(item, f"{name}."))
        else:
            flat[name] = item
    return flat


def _json_rows(data: object) -> tuple[list[str], list[dict[str, Any]]] | None:
    """Rows of a JSON document that is a table (list of objects, object of equal-length
    columns, or an object of scalars), else ``None``."""
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        rows = [_flatten(r) for r in data]
    elif isinstance(data, dict) and data:
        columns = list(data.values())
        if all(isinstance(c, list) for c in columns) and len({len(c) for c in columns}) == 1:
            keys = [str(k) for k in data]
            rows = [dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)]
        else:
            rows = [_flatten(data)]
    else:
        return None
    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            names.setdefault(str(key), None)
            if len(names) > MAX_COLUMNS:
                return None
    return list(names), rows


def _json_budget(data: bytes, name: str) -> None:
    """Refuse JSON that would hold more than :data:`MAX_JSON_VALUES` values once parsed (counted
    from its brackets and commas before parsing: a 64 MiB ``[{},{},...]`` is 21 million
    objects, gigabytes of memory, from 467 KB compressed)."""
    values = data.count(b"{") + data.count(b"[") + data.count(b",")
    if values > MAX_JSON_VALUES:
        raise LogbookError(
            f"{name}: more than {MAX_JSON_VALUES:,} JSON values, not read as a table"
        )


def _load_json(path: Path, name: str) -> object:
    if path.stat().st_size > MAX_JSON_TABLE_BYTES:
        raise LogbookError(f"{name}: above {MAX_JSON_TABLE_BYTES:,} bytes, not read as a table")
    data = path.read_bytes()
    _json_budget(data, name)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogbookError(f"{name}: not a JSON table ({exc})") from exc
    except (RecursionError, ValueError) as exc:
        raise LogbookError(f"{name}: unreadable JSON ({json_limit_problem(exc)})") from exc


def _jsonl_rows(path: Path, name: str) -> Iterator[dict[str, Any]]:
    with path.open("rb") as handle:
        for number_, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            if len(raw) > MAX_JSON_TABLE_BYTES:
                raise LogbookError(f"{name}, line {number_}: a line above the size cap")
            _json_budget(raw, f"{name}, line {number_}")
            try:
                item = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise LogbookError(f"{name}, line {number_}: not JSON ({exc})") from exc
            except (RecursionError, ValueError) as exc:
                raise LogbookError(f"{name}, line {number_}: {json_limit_problem(exc)}") from exc
            if not isinstance(item, dict):
                raise LogbookError(f"{name}, line {number_}: not a JSON object")
            yield _flatten(item)


def _csv_reader(handle: io.TextIOBase, fmt: str) -> Iterator[list[str]]:
    csv.field_size_limit(MAX_CSV_FIELD_CHARS)  # explicit: a longer field is refused, cleanly
    return csv.reader(handle, delimiter="\t" if fmt == "tsv" else ",")


@contextmanager
def _reading(name: str, fmt: str) -> Iterator[None]:
    """Turn whatever a reader raises on a malformed file (the csv module's field limit,
    pyarrow's ArrowInvalid on a corrupted page, bad UTF-8, a file gone) into a
    :class:`~openrepro.errors.UnreadableEvidenceError` naming the file: one bad table never
    escapes as a crash."""
    try:
        yield
    except LogbookError:
        raise
    except (csv.Error, UnicodeDecodeError, OSError, ValueError, MemoryError) as exc:
        raise UnreadableEvidenceError(f"{name}: not a readable {fmt.upper()} ({exc})") from exc
    except Exception as exc:  # pyarrow's own ArrowException kin
        if type(exc).__module__.startswith("pyarrow"):
            raise UnreadableEvidenceError(f"{name}: not a readable {fmt.upper()} ({exc})") from exc
        raise


def open_parquet(path: Path) -> Any:
    """The Parquet file, opened with limits on its footer (thrift sizes, schema depth) and
    refused when its footer declares more than :data:`MAX_TABLE_ROWS` rows or a column chunk
    above :data:`MAX_TABLE_MEMORY` bytes uncompressed."""
    try:
        parquet: Any = importlib.import_module("pyarrow.parquet")
        handle = parquet.ParquetFile(
            path, thrift_string_size_limit=_THRIFT_BYTES, thrift_container_size_limit=_THRIFT_ITEMS,
            schema_depth_limit=8, pre_buffer=False,
        )  # fmt: skip
        meta = handle.metadata
    except Exception as exc:  # pyarrow raises its own (ArrowInvalid, OSError, ...)
        raise LogbookError(f"{path.name}: cannot read the Parquet file ({exc})") from exc
    if meta.num_rows > MAX_TABLE_ROWS:
        raise LogbookError(f"{path.name}: {meta.num_rows:,} rows, above {MAX_TABLE_ROWS:,}")
    for group in range(meta.num_row_groups):
        chunks = meta.row_group(group)
        for column in range(min(chunks.num_columns, MAX_COLUMNS)):
            if chunks.column(column).total_uncompressed_size > MAX_TABLE_MEMORY:
                raise LogbookError(
                    f"{path.name}: a column above {MAX_TABLE_MEMORY:,} bytes uncompressed"
                )
    return handle


_THRIFT_BYTES = 16 * 1024 * 1024  # a Parquet footer's strings and lists (pyarrow's limits)
_THRIFT_ITEMS = 1_000_000


def parquet_values(handle: Any, column: str, name: str) -> Iterator[object]:
    """The values of one column of an open Parquet file (from :func:`open_parquet`), in batches,
    under the memory budget: text values are cut to :data:`MAX_CELL_CHARS` before Python sees
    them (a dictionary-encoded column of one huge string repeated stays small), nested values
    are refused, and the text read in all is at most :data:`MAX_TABLE_MEMORY` bytes."""
    arrow: Any = importlib.import_module("pyarrow")
    compute: Any = importlib.import_module("pyarrow.compute")
    spent = 0
    for batch in handle.iter_batches(batch_size=4096, columns=[column], use_threads=False,
                                     use_pandas_metadata=False):  # fmt: skip
        values = batch.column(0)
        kind = values.type.value_type if arrow.types.is_dictionary(values.type) else values.type
        if arrow.types.is_nested(kind):
            raise UnreadableEvidenceError(f"{name}: column {column!r} holds nested values")
        if arrow.types.is_string(kind) or arrow.types.is_large_string(kind):
            if arrow.types.is_dictionary(values.type):
                short = compute.utf8_slice_codeunits(values.dictionary, 0, MAX_CELL_CHARS)
                values = compute.take(short, values.indices)
            else:
                values = compute.utf8_slice_codeunits(values, 0, MAX_CELL_CHARS)
            spent += int(compute.sum(compute.binary_length(values)).as_py() or 0)
        elif arrow.types.is_binary(kind) or arrow.types.is_large_binary(kind):
            raise UnreadableEvidenceError(f"{name}: column {column!r} holds binary values")
        spent += 8 * len(values)
        if spent > MAX_TABLE_MEMORY:
            raise UnreadableEvidenceError(
                f"{name}: column {column!r} holds more than {MAX_TABLE_MEMORY:,} bytes"
            )
        yield from values.to_pylist()


def _arrow_column(path: Path, fmt: str, header: list[str], column: str) -> Iterator[Any]:
    """The batches of one column of a CSV/TSV, as strings, by pyarrow's streaming reader
    (C++, several times the csv module's speed on large files). Raises on rows of the wrong
    width and other irregularities: the caller falls back to the csv module."""
    arrow: Any = importlib.import_module("pyarrow")
    reader_module: Any = importlib.import_module("pyarrow.csv")
    reader = reader_module.open_csv(
        path,
        read_options=reader_module.ReadOptions(column_names=header, skip_rows=1,
                                               block_size=8 * 1024 * 1024),
        parse_options=reader_module.ParseOptions(
            delimiter="\t" if fmt == "tsv" else ",", newlines_in_values=True
        ),
        convert_options=reader_module.ConvertOptions(
            include_columns=[column], column_types={column: arrow.string()},
        ),
    )  # fmt: skip
    for batch in reader:
        yield batch.column(0)


def _header(path: Path, fmt: str, name: str) -> list[str]:
    with path.open(encoding="utf-8", errors="strict", newline="") as handle:
        try:
            header: list[str] = next(_csv_reader(handle, fmt), [])
        except (csv.Error, UnicodeDecodeError) as exc:
            raise LogbookError(f"{name}: not a readable {fmt.upper()} ({exc})") from exc
    if not header or len(header) > MAX_COLUMNS:
        raise LogbookError(f"{name}: no header row (or over {MAX_COLUMNS} columns)")
    return [c.strip() for c in header]


_FAST_BYTES = 4 * 1024 * 1024  # above this, CSV/TSV files are read with pyarrow when it can


def _fast_rows(path: Path, fmt: str, header: list[str]) -> int | None:
    if len(set(header)) != len(header) or not header[0]:
        return None
    try:
        return sum(len(batch) for batch in _arrow_column(path, fmt, header, header[0]))
    except Exception:  # pyarrow's ArrowInvalid and kin: the csv module decides
        return None


def _file_shape(path: Path, fmt: str, name: str) -> tuple[list[str], int]:
    """``(columns, rows)`` of a table file; streaming except for JSON."""
    if fmt in ("csv", "tsv") and path.stat().st_size > _FAST_BYTES:
        header = _header(path, fmt, name)
        rows = _fast_rows(path, fmt, header)
        if rows is not None:
            return header, rows
    if fmt in ("csv", "tsv"):
        with path.open(encoding="utf-8", errors="strict", newline="") as handle:
            try:
                reader = _csv_reader(handle, fmt)
                header = next(reader, [])
                if not header or len(header) > MAX_COLUMNS:
                    raise LogbookError(f"{name}: no header row (or over {MAX_COLUMNS} columns)")
                rows = sum(1 for row in reader if row)
            except (csv.Error, UnicodeDecodeError) as exc:
                raise LogbookError(f"{name}: not a readable {fmt.upper()} ({exc})") from exc
        return [c.strip() for c in header], rows
    if fmt == "jsonl":
        names: dict[str, None] = {}
        count = 0
        for row in _jsonl_rows(path, name):
            count += 1
            for key in row:
                names.setdefault(key, None)
            if len(names) > MAX_COLUMNS:
                raise LogbookError(f"{name}: over {MAX_COLUMNS} columns")
        return list(names), count
    if fmt == "parquet":
        handle = open_parquet(path)
        return [str(n) for n in handle.schema_arrow.names][:MAX_COLUMNS], handle.metadata.num_rows
    shaped = _json_rows(_load_json(path, name))
    if shaped is None:
        raise LogbookError(f"{name}: JSON that is not a table")
    return shaped[0], len(shaped[1])


def _fast_value(path: Path, fmt: str, row: int, column: str, name: str) -> object:
    header = _header(path, fmt, name)
    if column not in header or len(set(header)) != len(header):
        return _MISSING
    offset = row - 1
    try:
        for batch in _arrow_column(path, fmt, header, column):
            if offset < len(batch):
                return batch[offset].as_py()
            offset -= len(batch)
    except Exception:  # as in _fast_rows
        return _MISSING
    return _MISSING


_MISSING = object()


def _file_value(path: Path, fmt: str, row: int, column: str, name: str) -> object:
    with _reading(name, fmt):
        return _read_file_value(path, fmt, row, column, name)


def _read_file_value(path: Path, fmt: str, row: int, column: str, name: str) -> object:
    if fmt in ("csv", "tsv") and path.stat().st_size > _FAST_BYTES:
        found = _fast_value(path, fmt, row, column, name)
        if found is not _MISSING:
            return found
    if fmt in ("csv", "tsv"):
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            reader = _csv_reader(handle, fmt)
            header = [c.strip() for c in next(reader, [])]
            if column not in header:
                raise LogbookError(f"{name}: no column {column!r}")
            index = header.index(column)
            seen = 0
            for values in reader:
                if not values:
                    continue
                seen += 1
                if seen == row:
                    return values[index] if index < len(values) else ""
        raise LogbookError(f"{name}: no row {row}")
    if fmt == "jsonl":
        for seen, item in enumerate(_jsonl_rows(path, name), start=1):
            if seen == row:
                return item.get(column)
        raise LogbookError(f"{name}: no row {row}")
    if fmt == "parquet":
        handle = open_parquet(path)
        if column not in handle.schema_arrow.names:
            raise LogbookError(f"{name}: no column {column!r}")
        for seen, found in enumerate(parquet_values(handle, column, name), start=1):
            if seen == row:
                return found
        raise LogbookError(f"{name}: no row {row}")
    shaped = _json_rows(_load_json(path, name))
    if shaped is None or not 1 <= row <= len(shaped[1]):
        raise LogbookError(f"{name}: no row {row}")
    return shaped[1][row - 1].get(column)


def _as_value(table: str, row: int, column: str, raw: object, loose: bool = False) -> TableValue:
    # built without validation (the fields are typed here): one record per cell of a column
    # of 10,000 rows was most of the time binding took
    if loose and isinstance(raw, str):
        text = _clip(raw)
        return TableValue.model_construct(table=table, row=row, column=column, text=text,
                                          value=loose_number(text))  # fmt: skip
    if isinstance(raw, bool):
        text, value = str(raw).lower(), None
    elif isinstance(raw, int | float):
        value = float(raw) if math.isfinite(float(raw)) else None
        text = _clip(raw)
    else:
        text = _clip(raw)
        value = number(text)
    return TableValue.model_construct(table=table, row=row, column=column, text=text, value=value)


# ---- the record's tables ----


def _file_table(
    ref: FileRef, path: Path, run: Run | None, page: str, cell: str, warnings: list[str]
) -> TableRef | None:
    fmt = table_format(ref.path)
    if fmt is None:
        return None
    if ref.size > MAX_TABLE_BYTES:
        warnings.append(
            f"{ref.path}: {ref.size:,} bytes, above {MAX_TABLE_BYTES:,}: kept as a file, "
            "not read as a table"
        )
        return None
    try:
        columns, rows = _file_shape(path, fmt, ref.path)
    except LogbookError as exc:
        warnings.append(f"{exc}: kept as a file, not read as a table")
        return None
    return TableRef(
        table=ref.sha256, source="file", format=fmt,
        path=ref.path, page=page, cell=cell, run=run.id if run else "",
        run_ok=run is not None and run.exit_code == 0, columns=columns, rows=rows,
        series=series_column(columns),
    )  # fmt: skip


MAX_LOOSE_FILES = 200  # table files found in the folder beyond those the logbook names
#: files of the logbook itself (a Space's manifest, the evidence map, a bundle's manifest)
_OWN_FILES = frozenset({"logbook.json", "evidence_map.json", "manifest.json", "metadata.json"})
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env"})
MAX_SEGMENT_BYTES = 64 * 1024 * 1024  # appended tables above this keep no row ranges


def loose_table_files(base: Path, known: set[str], *, limit: int = MAX_LOOSE_FILES) -> list[str]:
    """Table files (by suffix) under ``base`` that ``known`` does not list: relative paths,
    sorted, at most ``limit``; hidden folders (``.trackio``, ``.git``, ``.venv``), links and
    virtual environments are not entered."""
    found: list[str] = []
    stack = [base]
    while stack and len(found) < limit:
        folder = stack.pop()
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name not in _SKIP_DIRS and len(entry.relative_to(base).parts) < 6:
                    stack.append(entry)
                continue
            relative = entry.relative_to(base).as_posix()
            if relative in _OWN_FILES:
                continue  # the logbook's own files, not results
            if entry.is_file() and table_format(relative) and relative not in known:
                found.append(relative)
    return sorted(found)[:limit]


def _auto_sizes(pages: list[Page], run_ids: set[str]) -> dict[str, list[tuple[str, int]]]:
    """Per file path, ``(run id, size)`` of each auto artifact cell that follows a run cell,
    in page order: the size the file had when that run ended."""
    found: dict[str, list[tuple[str, int]]] = {}
    for page in pages:
        last = ""
        for cell in page.cells:
            if cell.id in run_ids:
                last = cell.id
            elif cell.type == "artifact" and cell.meta.get("auto") and last:
                path, size = cell.meta.get("path"), cell.meta.get("size")
                if isinstance(path, str) and isinstance(size, int) and not isinstance(size, bool):
                    found.setdefault(path, []).append((last, size))
    return found


def _segments(path: Path, fmt: str, writers: list[tuple[str, int]], size: int) -> list[RowRange]:
    """Which rows each run appended, when ``writers`` (run, size at its end) grew the file by
    whole lines up to its size now; else none."""
    sizes = [s for _, s in writers]
    if (
        len(writers) < 2
        or fmt not in ("csv", "tsv", "jsonl")
        or size > MAX_SEGMENT_BYTES
        or sizes[-1] != size
        or any(a >= b for a, b in itertools.pairwise(sizes))
    ):
        return []  # fmt: skip
    data = path.read_bytes()
    if len(data) != size or any(data[s - 1 : s] != b"\n" for s in sizes):
        return []
    ranges: list[RowRange] = []
    done = 0
    for run, end in writers:
        text = data[:end].decode("utf-8", errors="replace")
        lines = [line for line in text.splitlines() if line.strip()]
        rows = len(lines) - (0 if fmt == "jsonl" else 1)
        if rows <= done:
            return []
        ranges.append(RowRange(run=run, first=done + 1, last=rows, size=end))
        done = rows
    return ranges


def index_tables(
    base: Path, runs: list[Run], pages: list[Page], artifacts: list[tuple[FileRef, str, str]],
    loose: Sequence[FileRef] = (),
) -> tuple[list[TableRef], list[str]]:  # fmt: skip
    """The tables of a logbook read from ``base``: files its runs produced (then other table
    files it presents, ``artifacts`` as ``(file, page, cell)``, then ``loose`` table files no
    cell names), figure cells' raw data, tables printed by runs (and their ``key=value`` lines
    and printed JSON) and Markdown tables in pages. Returns them and a warning per table file
    that could not be read."""
    warnings: list[str] = []
    tables: list[TableRef] = []
    seen: set[str] = set()
    by_id = {run.id: run for run in runs}
    auto = _auto_sizes(pages, set(by_id))
    for run in runs:
        for ref in run.produced:
            if ref.sha256 in seen:
                continue
            found = _file_table(ref, base / ref.path, run, run.page, run.id, warnings)
            if not found:
                continue
            seen.add(ref.sha256)
            writers = [w for w in auto.get(ref.path, []) if w[0] in by_id]
            segments = _segments(base / ref.path, found.format, writers, ref.size)
            if segments:
                last = by_id[segments[-1].run]
                found = found.model_copy(update={
                    "segments": segments, "run": last.id,
                    "run_ok": all(by_id[s.run].exit_code == 0 for s in segments),
                })  # fmt: skip
            tables.append(found)
    for ref, page_slug, cell_id in [*artifacts, *((r, "", "") for r in loose)]:
        if ref.sha256 not in seen:
            found = _file_table(ref, base / ref.path, None, page_slug, cell_id, warnings)
            if found:
                seen.add(ref.sha256)
                tables.append(found)
    for page in pages:
        for cell in page.cells:
            if cell.type != "figure":
                continue
            raw = raw_of(cell.body)
            parsed = text_tables(raw)
            if len(parsed) == 1:
                t = parsed[0]
                tables.append(
                    TableRef(table=cell.id, source="cell", format=t.format, page=page.slug,
                             cell=cell.id, columns=t.columns, rows=len(t.rows),
                             series=series_column(t.columns))
                )  # fmt: skip
    for run in runs:
        for n, t in enumerate(output_tables(run.output), start=1):
            tables.append(
                TableRef(
                    table=f"{run.id}#{n}", source="output", format="json" if t.format == "json"
                    else t.format, page=run.page, cell=run.id, run=run.id,
                    run_ok=run.exit_code == 0, columns=t.columns, rows=len(t.rows),
                    series=series_column(t.columns),
                )
            )  # fmt: skip
    for page in pages:
        for cell in page.cells:
            if cell.id in by_id or cell.type not in ("markdown", "code"):
                continue
            for n, t in enumerate(page_tables(cell.body), start=1):
                tables.append(TableRef(
                    table=f"{cell.id}#p{n}", source="page", format="text", page=page.slug,
                    cell=cell.id, columns=t.columns, rows=len(t.rows),
                    series=series_column(t.columns),
                ))  # fmt: skip
    return tables, warnings


def _text_of(table: TableRef, runs: list[Run], pages: list[Page]) -> TextTable:
    if table.source == "page":
        cell_id, _, n = table.table.rpartition("#p")
        cell = next((c for p in pages for c in p.cells if c.id == cell_id), None)
        found = page_tables(cell.body) if cell else []
        index = int(n) - 1 if n.isdigit() else -1
        if not 0 <= index < len(found):
            raise LogbookError(f"table {table.table}: no such table in the page")
        return found[index]
    if table.source == "output":
        run_id, _, n = table.table.rpartition("#")
        run = next((r for r in runs if r.id == run_id), None)
        found = output_tables(run.output) if run else []
        index = int(n) - 1 if n.isdigit() else -1
        if not 0 <= index < len(found):
            raise LogbookError(f"table {table.table}: no such table in the run's output")
        return found[index]
    cell = next((c for p in pages for c in p.cells if c.id == table.cell), None)
    found = text_tables(raw_of(cell.body)) if cell else []
    if len(found) != 1:
        raise LogbookError(f"table {table.table}: the cell holds no table")
    return found[0]


def read_value(
    tables: list[TableRef],
    runs: list[Run],
    pages: list[Page],
    table: str,
    row: int,
    column: str,
    locate: Callable[[FileRef], Path | None],
) -> TableValue:
    """The value at ``(table, row, column)``, read by code (files are streamed from
    ``locate``'s path). Raises :class:`LogbookError` when the pointer holds nothing."""
    ref = next((t for t in tables if t.table == table), None)
    if ref is None:
        raise LogbookError(f"no table {table!r} in the logbook")
    if row < 1 or row > ref.rows:
        raise LogbookError(f"table {table}: no row {row} (it has {ref.rows})")
    if column not in ref.columns:
        raise LogbookError(f"table {table}: no column {column!r}")
    if ref.source == "file":
        path = locate(FileRef(path=ref.path, sha256=ref.table, size=0))
        if path is None:
            raise LogbookError(f"{ref.path}: the file is not in the store")
        return _as_value(table, row, column, _file_value(path, ref.format, row, column, ref.path))
    text = _text_of(ref, runs, pages)
    values = text.rows[row - 1]
    return _as_value(table, row, column, values[text.columns.index(column)],
                     loose=ref.source == "page")  # fmt: skip


def _file_column(path: Path, fmt: str, column: str, name: str) -> Iterator[object]:
    """Every value of one column of a table file, in row order, streamed (JSON parsed whole)."""
    with _reading(name, fmt):
        yield from _read_file_column(path, fmt, column, name)


def _read_file_column(path: Path, fmt: str, column: str, name: str) -> Iterator[object]:
    if fmt in ("csv", "tsv"):
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            reader = _csv_reader(handle, fmt)
            header = [c.strip() for c in next(reader, [])]
            if column not in header:
                raise LogbookError(f"{name}: no column {column!r}")
            index = header.index(column)
            for values in reader:
                if values:
                    yield values[index] if index < len(values) else ""
        return
    if fmt == "jsonl":
        for item in _jsonl_rows(path, name):
            yield item.get(column)
        return
    if fmt == "parquet":
        handle = open_parquet(path)
        if column not in handle.schema_arrow.names:
            raise LogbookError(f"{name}: no column {column!r}")
        yield from parquet_values(handle, column, name)
        return
    shaped = _json_rows(_load_json(path, name))
    if shaped is None:
        raise LogbookError(f"{name}: JSON that is not a table")
    for row in shaped[1]:
        yield row.get(column)


def read_column(
    tables: list[TableRef],
    runs: list[Run],
    pages: list[Page],
    table: str,
    column: str,
    locate: Callable[[FileRef], Path | None],
    *,
    max_rows: int,
) -> list[TableValue]:
    """Every value of ``column`` of ``table``, row 1 first, read by code in one pass (what
    :func:`read_value` reads cell by cell). Raises :class:`LogbookError` when the column is not
    there, or the table has more than ``max_rows`` rows."""
    ref = next((t for t in tables if t.table == table), None)
    if ref is None:
        raise LogbookError(f"no table {table!r} in the logbook")
    if column not in ref.columns:
        raise LogbookError(f"table {ref.path or table}: no column {column!r}")
    if ref.rows > max_rows or ref.truncated:
        raise LogbookError(f"table {ref.path or table}: {ref.rows:,} rows, above {max_rows:,}")
    if ref.source == "file":
        path = locate(FileRef(path=ref.path, sha256=ref.table, size=0))
        if path is None:
            raise LogbookError(f"{ref.path}: the file is not in the store")
        raw = list(_file_column(path, ref.format, column, ref.path))
    else:
        text = _text_of(ref, runs, pages)
        index = text.columns.index(column)
        raw = [values[index] for values in text.rows]
    loose = ref.source == "page"
    return [_as_value(table, n, column, value, loose)
            for n, value in enumerate(raw[: ref.rows], 1)]  # fmt: skip
