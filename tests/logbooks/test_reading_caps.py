"""Caps at the point of reading: a metrics database whose `metrics` column
is computed, huge values, table files that would blow up in memory or past the csv module's
field limit, one file named many times, a markdown cell that costs minutes to parse. Each read
here is refused cleanly, or bounded, while being read."""

from __future__ import annotations

import hashlib
import html
import json
import sqlite3
import tracemalloc
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_limits import PAGE, _trackio

from openrepro.errors import LogbookError, UnreadableEvidenceError
from openrepro.logbooks.bundle import file_ref
from openrepro.logbooks.records import TableRef
from openrepro.logbooks.render import render_markdown
from openrepro.logbooks.space import read_space_logbook
from openrepro.logbooks.submit import read_logbook
from openrepro.logbooks.tables import MAX_CELL_CHARS, index_tables, read_column

MiB = 1024 * 1024


def _db(folder: Path, sql: str, rows: list[tuple[Any, ...]] = ()) -> Path:  # type: ignore[assignment]
    conn = sqlite3.connect(folder / ".trackio" / "repro.db")
    conn.executescript(sql)
    conn.executemany(
        "INSERT INTO metrics (id, run_name, step, timestamp) VALUES (?, ?, ?, ?)"
        if "AS (" in sql
        else "INSERT INTO metrics VALUES (?, ?, ?, ?, ?)",
        rows,
    )
    conn.commit()
    conn.close()
    return folder


@pytest.mark.parametrize("stored", ["", " STORED"])
def test_a_generated_metrics_column_is_refused_before_it_is_computed(
    tmp_path: Path, stored: str
) -> None:
    """The attack: a 1,184-byte database whose `metrics` column is
    `TEXT AS (hex(zeroblob(100000000)))` (no word VIRTUAL) drove the server to 5.5 GB."""
    sql = ("CREATE TABLE metrics (id INTEGER, run_name TEXT, step INTEGER, timestamp TEXT, "
           f"metrics TEXT AS (hex(zeroblob(20000000))){stored});")  # fmt: skip
    folder = _db(_trackio(tmp_path, [], PAGE), sql, [(1, "r", 0, None)] if not stored else [])
    with pytest.raises(LogbookError, match=r"repro\.db: `metrics` has generated or hidden"):
        read_logbook(folder)


def test_a_huge_metrics_value_never_leaves_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("openrepro.logbooks.trackio_reader.MAX_METRIC_VALUE_BYTES", 1000)
    big = json.dumps({"claims/p1/C1/acc": 0.5, "pad": "x" * 2000})
    sql = "CREATE TABLE metrics (id, run_name, step, timestamp, metrics);"
    rows = [(1, "r", 0, None, '{"claims/p1/C1/acc": 0.5}'), (2, "r", 1, None, big)]
    folder = _db(_trackio(tmp_path, [], PAGE), sql, rows)
    with pytest.raises(LogbookError, match=r"repro\.db: metrics row 2 holds 2,0\d\d bytes"):
        read_logbook(folder)
    monkeypatch.setattr("openrepro.logbooks.trackio_reader.MAX_METRIC_VALUE_BYTES", 10_000)
    monkeypatch.setattr("openrepro.logbooks.trackio_reader.MAX_METRIC_BYTES", 1_000)
    with pytest.raises(LogbookError, match=r"repro\.db: its metrics hold more than 1,000 bytes"):
        read_logbook(folder)
    monkeypatch.undo()
    assert [m.value for m in read_logbook(folder).metrics] == [0.5, 0.5]


def _cells(n: int, path: str) -> str:
    cell = '---\n<!-- trackio-cell\n{"type": "artifact", "id": "a%d", "path": "%s"}\n-->\nfile\n'
    return "".join(cell % (i, path) for i in range(n))


def test_a_file_named_by_many_cells_is_hashed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: one 64 MiB file named by 600 artifact cells was hashed 600 times (48 s)."""
    folder = _trackio(tmp_path, [], _cells(600, "big.bin"))
    (folder / "big.bin").write_bytes(b"\0" * MiB)
    hashed: list[int] = []
    real = hashlib.sha256

    def counting(*args: Any) -> Any:
        hashed.append(1)
        return real(*args)

    monkeypatch.setattr(hashlib, "sha256", counting)
    record = read_logbook(folder)
    monkeypatch.undo()
    assert len(record.artifacts) == 600 and len(record.files) == 1
    assert len(hashed) <= 2  # once (and once more for an unrelated small file at most)
    (folder / "big.bin").write_bytes(b"\1" * MiB)  # the same size, other bytes: hashed again
    assert read_logbook(folder).files[0].sha256 == real(b"\1" * MiB).hexdigest()


def _tables(base: Path, *names: str) -> tuple[list[TableRef], list[str]]:
    refs = [(file_ref(base, name, name), "index", f"c{i}") for i, name in enumerate(names)]
    return index_tables(base, [], [], refs)


def test_a_json_table_of_millions_of_empty_objects_is_not_parsed(tmp_path: Path) -> None:
    """The attack: a 64 MiB `[{},{},...]` (467 KB compressed) added 3.1 GB of memory."""
    (tmp_path / "many.json").write_bytes(b"[" + b"{}," * 1_200_000 + b"{}]")
    (tmp_path / "fine.json").write_text(json.dumps([{"acc": 0.9}, {"acc": 0.8}]))
    tables, warnings = _tables(tmp_path, "many.json", "fine.json")
    assert [t.path for t in tables] == ["fine.json"]
    assert any("many.json: more than 1,000,000 JSON values" in w for w in warnings)


def test_a_parquet_column_of_one_huge_repeated_string_stays_small(tmp_path: Path) -> None:
    """The attack: a 6.5 MB metrics.parquet (dictionary-encoded) reached 3.2 GB when read."""
    table = pa.table({"seed": list(range(100)), "note": ["x" * (MiB // 2)] * 100})
    pq.write_table(table, tmp_path / "runs.parquet", compression="zstd")
    assert (tmp_path / "runs.parquet").stat().st_size < MiB
    tables, _ = _tables(tmp_path, "runs.parquet")
    tracemalloc.start()
    values = read_column(tables, [], [], tables[0].table, "note",
                         lambda ref: tmp_path / ref.path, max_rows=1_000)  # fmt: skip
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(values) == 100 and all(len(v.text) == MAX_CELL_CHARS for v in values)
    assert peak < 16 * MiB, peak


def test_a_csv_field_over_the_limit_is_refused_cleanly(tmp_path: Path) -> None:
    (tmp_path / "wide.csv").write_text("seed,acc,notes\n0,0.9," + "x" * 200_000 + "\n")
    tables, warnings = _tables(tmp_path, "wide.csv")
    assert tables == [] and any("wide.csv: not a readable CSV" in w for w in warnings)
    # a table indexed before (the 4 MiB fast path counts rows with pyarrow) reads no further
    (tmp_path / "ok.csv").write_text("seed,acc\n0,0.9\n")
    tables, _ = _tables(tmp_path, "ok.csv")
    (tmp_path / "ok.csv").write_text("seed,acc\n0," + "9" * 200_000 + "\n")
    with pytest.raises(UnreadableEvidenceError, match=r"ok\.csv: not a readable CSV"):
        read_column(tables, [], [], tables[0].table, "acc", lambda ref: tmp_path / ref.path,
                    max_rows=10)  # fmt: skip


@pytest.mark.parametrize("text", ["![" * 300_000, "[\n" * 5_000, "x" * 100_001])
def test_markdown_the_parser_would_take_minutes_on_is_shown_plain(text: str) -> None:
    """The attack: a 10.5 KB cell `"![" * 300000` cost ~2 minutes of CPU per render."""
    shown = render_markdown(text)
    assert shown.startswith('<pre class="or-plain">') and html.unescape(shown[22:-6]) == text


def test_markdown_with_links_and_a_few_stray_brackets_still_renders() -> None:
    text = "See [the run](https://example.org/r) [1 and [2.\n\n" * 200
    shown = render_markdown(text)
    assert shown.count('<a href="https://example.org/r"') == 200 and "or-plain" not in shown


def test_a_space_is_read_under_the_same_caps(tmp_path: Path) -> None:
    """The attack: `submit space:...` applied none of the reading caps (20,000 page nodes cost
    155 s). A downloaded Space is read with the same page, cell and text budget."""
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "index.md").write_text(PAGE, encoding="utf-8")
    nodes = [{"slug": f"p{i}", "title": "x", "file": "pages/index.md"} for i in range(1_000)]
    root = {"slug": "index", "title": "Claim C1", "file": "pages/index.md", "children": nodes}
    manifest = {"schema_version": 2, "title": "Repro", "paper": "p1", "root": root}
    (tmp_path / "logbook.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LogbookError, match=r"logbook\.json: more than 500 pages"):
        read_space_logbook(tmp_path)
