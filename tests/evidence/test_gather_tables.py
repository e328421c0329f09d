"""The judge's hook into tabular evidence: numbered table cells with pointers code re-checks."""

from __future__ import annotations

import json
from pathlib import Path

from openrepro.evidence.gather import check_table_pointer, table_items
from openrepro.evidence.records import Pointer
from openrepro.logbooks.bundle import read_bundle
from openrepro.logbooks.records import FileRef, LogbookRecord


def _bundle(root: Path, rows: int) -> LogbookRecord:
    root.mkdir()
    lines = ["seed,accuracy,note"] + [f"{i},{0.5 + i / 100},ok" for i in range(rows)]
    (root / "results.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "manifest.json").write_text(
        json.dumps(
            {"openrepro_bundle": 1, "paper": "p1", "participant": "ada",
             "runs": [{"id": "r1", "command": ["python", "t.py"], "exit_code": 0,
                       "produced": ["results.csv"]}]}
        ),
        encoding="utf-8",
    )  # fmt: skip
    return read_bundle(root)


def _locate(root: Path):  # type: ignore[no-untyped-def]
    def locate(ref: FileRef) -> Path | None:
        found = [f for f in read_bundle(root).files if f.sha256 == ref.sha256]
        return root / found[0].path if found else None

    return locate


def test_short_table_gives_every_numeric_cell(tmp_path: Path) -> None:
    record = _bundle(tmp_path / "b", rows=3)
    items = table_items(record, _locate(tmp_path / "b"), start=5)
    assert [i.number for i in items] == list(range(5, 11))  # 3 rows x (seed, accuracy)
    assert {i.pointer.column for i in items} == {"seed", "accuracy"}  # "ok" is no number
    third = next(i for i in items if i.pointer.row == 3 and i.pointer.column == "accuracy")
    assert third.value == 0.52 and third.run_ok and third.pointer.run == "r1"
    assert check_table_pointer(record, third.pointer, 0.52, _locate(tmp_path / "b"))
    assert not check_table_pointer(record, third.pointer, 0.53, _locate(tmp_path / "b"))


def test_long_table_gives_its_last_row(tmp_path: Path) -> None:
    record = _bundle(tmp_path / "b", rows=500)
    items = table_items(record, _locate(tmp_path / "b"))
    assert {(i.pointer.row, i.pointer.column) for i in items} == {(500, "seed"), (500, "accuracy")}


def test_pointer_to_nothing_is_refused(tmp_path: Path) -> None:
    record = _bundle(tmp_path / "b", rows=3)
    table = record.tables[0].table
    locate = _locate(tmp_path / "b")
    for pointer in (
        Pointer(kind="table_cell", table=table, row=4, column="accuracy"),
        Pointer(kind="table_cell", table=table, row=1, column="nope"),
        Pointer(kind="table_cell", table="f" * 64, row=1, column="accuracy"),
        Pointer(kind="metric", table=table, row=1, column="accuracy"),
    ):
        assert not check_table_pointer(record, pointer, None, locate)
