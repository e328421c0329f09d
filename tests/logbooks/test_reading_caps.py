"""Caps at the point of reading (issue 28, round 2): a metrics database whose `metrics` column
is computed, huge values, table files that would blow up in memory or past the csv module's
field limit, one file named many times, a markdown cell that costs minutes to parse. Each read
here is refused cleanly, or bounded, while being read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_limits import PAGE, _trackio

from openrepro.errors import LogbookError
from openrepro.logbooks.submit import read_logbook

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
