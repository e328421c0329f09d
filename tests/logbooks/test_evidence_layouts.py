"""Evidence where people put it: one logbook made by the real trackio CLI
(:mod:`tests.logbooks.layouts`) holding appended seeds, files a run writes without an artifact
cell, key=value result lines, printed JSON, a training history, a Markdown results table and a
hand-written file; each is indexed at its level and bound (or not) by code."""

from __future__ import annotations

from pathlib import Path

import pytest
from layouts import build_layouts

from openrepro.claims.checks import Check
from openrepro.claims.records import ClaimView
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.checks import apply_levels, artifact_changes
from openrepro.evidence.gather import evidence_index
from openrepro.judge.engine import JudgeCase, judge_claim
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.trackio_reader import read_trackio_logbook


@pytest.fixture(scope="module")
def logbook(tmp_path_factory: pytest.TempPathFactory) -> tuple[LogbookRecord, Path]:
    root = build_layouts(tmp_path_factory.mktemp("layouts"))  # ~30 s: the real trackio CLI
    return read_trackio_logbook(root), root


def _locate(root: Path):  # type: ignore[no-untyped-def]
    return lambda ref: root / ref.path


def _equal(name: str, value: float, text: str) -> Check:
    return Check(relation="equal", quantities=[{"name": name}], subject=name,
                 constant={"value": value, "text": text})  # fmt: skip


def _table(record: LogbookRecord, path: str = "", columns: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    return next(t for t in record.tables if (path and t.path == path) or
                (columns and tuple(t.columns) == columns))  # fmt: skip


def test_appending_runs_each_own_their_rows_and_do_not_count_as_changed(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    table = _table(record, "results.csv")
    seeds = [r.id for r in record.runs if "seed.py" in " ".join(r.command)]
    assert [(s.run, s.first, s.last) for s in table.segments] == [
        (seeds[0], 1, 1), (seeds[1], 2, 2), (seeds[2], 3, 3)]  # fmt: skip
    assert artifact_changes(record) == []
    binding = bind_claim(record, "p/C1", _equal("acc", 0.82, "0.82"), [], locate=_locate(root))
    [acc] = binding.bound
    assert sorted(acc.seeds) == [0.81, 0.82, 0.83]
    assert {m.run for m in binding.used} == set(seeds)  # each row tied to the run that wrote it
    assert "artifact_changed_after_run" not in binding.flags


def test_a_file_the_command_writes_is_produced_a_hand_written_one_is_not(logbook) -> None:  # type: ignore[no-untyped-def]
    record, _ = logbook
    report = next(r for r in record.runs if "report.py" in " ".join(r.command))
    assert "evidence/summary.json" in [f.path for f in report.produced]
    noise = _table(record, "noise.csv")
    assert noise.run == "" and "noise.csv" in [f.path for f in record.files]


def test_printed_json_is_records_and_result_lines_are_one_record_each(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    printed = [t for t in record.tables if t.source == "output"]
    shapes = sorted((tuple(t.columns), t.rows) for t in printed)
    assert shapes == [(("final_err", "best_epoch", "params_m"), 1),
                      (("variant", "final_err", "best_epoch"), 2)]  # fmt: skip
    check = _equal("full", 48.4, "48.4")
    binding = bind_claim(record, "p/C1", check, [], locate=_locate(root), hints=["final_err"])
    [full] = binding.bound
    assert full.seeds == [48.4]


def test_a_history_is_a_series_its_last_step_is_the_value(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    history = _table(record, "history.csv")
    assert history.series == "epoch" and history.rows == 61
    binding = bind_claim(record, "p/C1", _equal("loss", 0.0164, "0.0164"), [],
                         locate=_locate(root))  # fmt: skip
    [loss] = binding.bound
    assert loss.seeds == [pytest.approx(1 / 61, abs=1e-5)]  # one value, not 61 seeds


def test_markdown_numbers_stay_testimony_with_the_reason(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    page = next(t for t in record.tables if t.source == "page")
    assert page.columns == ["variant", "final_err"] and page.rows == 3
    binding = bind_claim(record, "p/C1", _equal("noise_only", 60.1, "60.1"), [],
                         locate=_locate(root))  # fmt: skip
    assert binding.bound == []
    [unbound] = binding.bindings
    assert unbound.how == "unbound"
    assert "numbers only in markdown (testimony only)" in unbound.reason
    hand = bind_claim(record, "p/C1", _equal("noise", 0.1, "0.1"), [], locate=_locate(root))
    assert hand.bound == []
    assert "file not produced by a recorded run" in hand.bindings[0].reason


def test_a_self_recorded_value_corroborates_the_markdown(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    binding = bind_claim(record, "p/C1", _equal("full", 48.4, "48.4"), [],
                         locate=_locate(root), hints=["final_err"])  # fmt: skip
    [bound] = binding.bindings
    assert bound.how == "match" and "corroborates the testimony in page" in bound.reason
    assert all(p.kind == "table_cell" for p in bound.pointers)  # the verdict cites evidence


def test_the_index_holds_every_number_at_its_level(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    index = evidence_index(record, _locate(root))
    levels = {(e.where.split(",")[0], e.level) for e in index}
    assert ("results.csv", "self-recorded") in levels
    assert ("noise.csv", "testimony") in levels
    page = [e for e in index if e.level == "testimony" and e.pointer.table.endswith("#p1")]
    assert {e.value for e in page} == {48.4, 51.2, 60.1}
    full = next(e for e in page if e.value == 48.4)
    assert full.corroborated_by is not None and full.corroborated_by.kind == "table_cell"
    assert next(e for e in page if e.value == 60.1).corroborated_by is None
    assert not [e for e in index if e.pointer.kind == "table_cell" and e.level == "testimony"
                and e.where.startswith("history.csv")]  # fmt: skip


def test_levels_of_appended_rows_stay_self_recorded(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    binding = bind_claim(record, "p/C1", _equal("acc", 0.82, "0.82"), [], locate=_locate(root))
    leveled, flags = apply_levels(record, "p/C1", binding.used)
    assert {m.level for m in leveled} == {"self-recorded"} and flags == []


def test_locate_is_only_a_path(logbook) -> None:  # type: ignore[no-untyped-def]
    _, root = logbook
    assert _locate(root)(FileRef(path="results.csv", sha256="x", size=0)).is_file()


def _claim(key: str, check: Check) -> ClaimView:
    return ClaimView.model_validate({
        "id": f"p/{key}", "key": key, "paper_id": "p", "text": "t", "kind": "result",
        "status": "active", "origin": "organizer", "quotes": [], "reported": [], "scale": {},
        "provenance": {}, "created_at": "2026-01-01T00:00:00",
        "check": check.model_dump(mode="json"),
    })  # fmt: skip


def test_the_verdict_names_the_cause_and_testimony_never_verifies(logbook) -> None:  # type: ignore[no-untyped-def]
    record, root = logbook
    noise = _claim("C1", _equal("noise_only", 60.1, "60.1"))
    said = judge_claim(JudgeCase(record=record, view=noise, locate=_locate(root)))
    assert said.decision.verdict == "inconclusive" and said.provenance == "testimony"
    assert said.decision.rationale.startswith(
        "no value bound for quantity noise_only (numbers only in markdown (testimony only)"
    )
    ran = judge_claim(JudgeCase(record=record, view=_claim("C2", _equal("acc", 0.82, "0.82")),
                                locate=_locate(root)))  # fmt: skip
    assert ran.decision.verdict == "verified" and ran.provenance == "self-recorded"
    assert {p.path for p in ran.evidence} == {"results.csv"}
