"""Where numbers stand in a run's output and in pages: key=value lines, printed JSON, Markdown
tables; and which table is a series."""

from __future__ import annotations

import json

from openrepro.logbooks.tables import (
    kv_tables,
    loose_number,
    output_tables,
    page_tables,
    series_column,
)


def test_result_lines_are_one_record_each() -> None:
    text = ("epoch 1 loss 0.5\nRESULT variant=full final_err=48.4% best_epoch=7\n"
            "note: lr=0.1\nRESULT variant=ablation final_err=51.2% best_epoch=5\n"
            "seed=0 acc=0.91\n")  # fmt: skip
    tables = kv_tables(text)
    assert [(t.columns, t.rows) for t in tables] == [
        (["variant", "final_err", "best_epoch"], [["full", "48.4", "7"],
                                                  ["ablation", "51.2", "5"]]),
        (["seed", "acc"], [["0", "0.91"]]),
    ]  # fmt: skip
    assert kv_tables("FINAL acc=0.93\n")[0].rows == [["0.93"]]


def test_a_lone_setting_or_prose_is_not_a_result_line() -> None:
    assert kv_tables("lr=0.1\nwe set a=b and c=d\nx=1 y=2 then more words\n") == []


def test_printed_json_is_records_not_one_row_junk_tables() -> None:
    summary = {"final_err": 48.4, "best_epoch": 7, "claim_1": {"max_err": 1e-9, "ok": True}}
    text = "starting\n" + json.dumps(summary, indent=2) + "\ndone\n"
    tables = output_tables(text)
    assert len(tables) == 1
    [table] = tables
    assert table.format == "json" and len(table.rows) == 1
    assert table.columns == ["final_err", "best_epoch", "claim_1.max_err", "claim_1.ok"]


def test_a_printed_csv_table_and_json_list_both_read() -> None:
    rows = [{"seed": 0, "acc": 0.9}, {"seed": 1, "acc": 0.91}]
    text = "seed,acc\n0,0.9\n1,0.91\n\n" + json.dumps(rows, indent=1) + "\n"
    tables = output_tables(text)
    assert [(t.format, len(t.rows)) for t in tables] == [("csv", 2), ("json", 2)]


def test_markdown_tables_in_pages_are_read_loosely() -> None:
    body = ("Our results:\n\n| variant | err | speedup |\n|---|---:|---|\n"
            "| full | **48.4%** | 72.9\u00d7 |\n"
            "| ablation | 51.2 \u00b1 0.3 | 1,024 |\n")  # fmt: skip
    [table] = page_tables(body)
    assert table.columns == ["variant", "err", "speedup"]
    values = [[loose_number(c) for c in row[1:]] for row in table.rows]
    assert values == [[48.4, 72.9], [51.2, 1024.0]]
    assert loose_number("verified") is None and loose_number("**n/a**") is None


def test_a_step_epoch_or_iteration_column_makes_a_series() -> None:
    assert series_column(["seed", "Epoch", "loss"]) == "Epoch"
    assert series_column(["global_step", "loss"]) == "global_step"
    assert series_column(["seed", "acc"]) == ""
