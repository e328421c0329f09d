"""Tables in text (printed by runs, raw cells) and in files, read by pointer."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from openrepro.errors import LogbookError
from openrepro.logbooks.records import FileRef, Run
from openrepro.logbooks.tables import index_tables, number, read_value, text_tables

PANDAS = "\n".join(
    [
        "[T3] delta=0.001: worst empirical tail = 0.00000 (bound requires <= 0.001)",
        "[T3] mean draws vs 2B/A prediction:",
        "     mean_draws  pred_mean",
        "B" + " " * 25,  # pandas pads the index name's line to the table's width
        "0.5    1.629550   1.632362",
        "2.0   25.336901  25.338431",
        "[NC-0] done",
    ]
)


def test_pandas_table_inside_other_output() -> None:
    (table,) = text_tables(PANDAS)
    assert table.columns == ["B", "mean_draws", "pred_mean"]
    assert table.rows == [["0.5", "1.629550", "1.632362"], ["2.0", "25.336901", "25.338431"]]


def test_markdown_csv_and_tsv_tables() -> None:
    text = "| m | acc |\n|:--|--:|\n| a | 0.9 |\n\nx,y\n1,2\n3,4\n\np\tq\n5\t6\n"
    assert [(t.format, t.columns, t.rows) for t in text_tables(text)] == [
        ("text", ["m", "acc"], [["a", "0.9"]]),
        ("csv", ["x", "y"], [["1", "2"], ["3", "4"]]),
        ("tsv", ["p", "q"], [["5", "6"]]),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "loss 0.5 at step 3\nloss 0.4 at step 4\n",  # prose with numbers
        "1,2\n3,4\n",  # no header
        "a,b\n1,2,3\n",  # ragged
        "epoch 1: acc=0.5\nepoch 2: acc=0.6\n",
        "| a | b |\n| 1 | 2 |\n",  # no separator row
    ],
)
def test_ambiguous_text_is_no_table(text: str) -> None:
    assert text_tables(text) == []


def test_numbers_are_numbers_as_written() -> None:
    assert [number(t) for t in ("0.5", "-1e-3", "+2", " 7 ")] == [0.5, -0.001, 2.0, 7.0]
    assert [number(t) for t in ("87.3%", "=1+1", "nan", "inf", "1,000", "")] == [None] * 6


def _big_csv(path: Path, rows: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", "note", "loss"])
        for i in range(rows):
            writer.writerow([i, f'said "hi, {i}"\nover two lines' if i % 1000 == 0 else "x",
                             1 / (i + 1)])  # fmt: skip


def test_large_csv_is_streamed_and_read_back_by_pointer(tmp_path: Path) -> None:
    """Above a few MB the file is read by pyarrow; quoted newlines and commas count as the csv
    module counts them, and the value at a pointer is the one the csv module reads."""
    path = tmp_path / "big.csv"
    _big_csv(path, 300_000)
    ref = FileRef(path="big.csv", sha256="ab" * 32, size=path.stat().st_size)
    run = Run(id="r1", command=["python"], exit_code=0, produced=[ref])
    (table,), warnings = index_tables(tmp_path, [run], [], [])
    assert warnings == [] and table.rows == 300_000 and table.columns == ["step", "note", "loss"]
    with path.open(encoding="utf-8", newline="") as handle:
        expected = list(csv.reader(handle))
    for row in (1, 1001, 299_999, 300_000):
        for column, index in (("note", 1), ("loss", 2)):
            value = read_value([table], [run], [], table.table, row, column, lambda _: path)
            assert value.text == expected[row][index]
    assert read_value([table], [run], [], table.table, 2, "loss", lambda _: path).value == 0.5
    with pytest.raises(LogbookError, match="no row 300001"):
        read_value([table], [run], [], table.table, 300_001, "loss", lambda _: path)


def test_a_2_gb_csv_stays_a_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    with path.open("wb") as handle:  # sparse: 2 GB on paper, nothing on disk
        handle.write(b"a,b\n1,2\n")
        handle.truncate(2 * 1024**3)
    ref = FileRef(path="huge.csv", sha256="cd" * 32, size=path.stat().st_size)
    run = Run(id="r1", command=["python"], exit_code=0, produced=[ref])
    tables, warnings = index_tables(tmp_path, [run], [], [])
    assert tables == []
    assert warnings == [
        "huge.csv: 2,147,483,648 bytes, above 1,073,741,824: kept as a file, not read as a table"
    ]
