"""Seeds are what a run's setting measured: a map chooses a table and a column, never seeds;
identical seeds count as one; a history's rows are steps. (The bundles' run counts as though a
replay had matched it: a bundle's own word is testimony, ``run_self_declared``.)"""

from __future__ import annotations

import json
from pathlib import Path

from openrepro.claims.checks import Check
from openrepro.claims.values import ReportedValue
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.checks import EvidenceLevels, RunStanding
from openrepro.evidence.decide import compare
from openrepro.evidence.records import Measurement, Pointer
from openrepro.logbooks.bundle import read_bundle
from openrepro.logbooks.manifest import EvidenceMap
from openrepro.logbooks.records import LogbookRecord


def _bundle(root: Path, files: dict[str, str]) -> LogbookRecord:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    manifest = {"openrepro_bundle": 1, "paper": "p1", "participant": "ada",
                "runs": [{"id": "r1", "command": ["python", "t.py"], "exit_code": 0,
                          "produced": sorted(files)}]}  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return read_bundle(root)


REPLAYED = EvidenceLevels(runs={"r1": RunStanding(level="replayed", notes=["replay #1 matched"])})


def _check(name: str = "acc", value: float = 0.8) -> Check:
    return Check(relation="equal", quantities=[{"name": name}], subject=name,
                 constant={"value": value, "text": str(value)})  # fmt: skip


def _map(record: LogbookRecord, entry: object) -> None:
    record.evidence_map = EvidenceMap.model_validate(
        {"format": 1, "claims": {"p1/C1": {"acc": entry}}})  # fmt: skip


def _rows(binding) -> list[int]:  # type: ignore[no-untyped-def]
    return sorted({p.row or 0 for b in binding.bindings for p in b.pointers})


TEN = "seed,score\n" + "".join(
    f"{i},{0.8 if i in (1, 4, 8) else 0.6 + i / 1000}\n" for i in range(10)
)


def test_a_map_at_rows_2_5_9_of_ten_seeds_binds_all_ten(tmp_path: Path) -> None:
    root = tmp_path / "b"
    record = _bundle(root, {"results.csv": TEN})
    _map(record, [{"file": "results.csv", "row": r, "column": "score"} for r in (2, 5, 9)])
    binding = bind_claim(
        record, "p1/C1", _check(), [], locate=lambda ref: root / ref.path, levels=REPLAYED
    )
    assert _rows(binding) == list(range(1, 11))
    [bound] = binding.bound
    assert len(bound.seeds) == 8  # ten rows; the three cherry-picked 0.8s are one value
    assert min(bound.seeds) < 0.7


def test_a_map_keeps_its_setting_but_takes_every_seed_of_it(tmp_path: Path) -> None:
    text = "method,seed,score\n" + "".join(
        f"{m},{i},{v + i / 100}\n" for m, v in (("ours", 0.8), ("base", 0.5)) for i in range(4)
    )
    root = tmp_path / "b"
    record = _bundle(root, {"results.csv": text})
    _map(record, {"file": "results.csv", "row": 2, "column": "score"})
    binding = bind_claim(
        record, "p1/C1", _check(), [], locate=lambda ref: root / ref.path, levels=REPLAYED
    )
    assert _rows(binding) == [1, 2, 3, 4]  # the ours rows, not the baseline's


def test_a_single_row_of_a_table_without_seeds_stays_one_row(tmp_path: Path) -> None:
    text = "n,time\n10,0.1\n20,0.4\n40,1.6\n"
    root = tmp_path / "b"
    record = _bundle(root, {"sweep.csv": text})
    record.evidence_map = EvidenceMap.model_validate(
        {"format": 1, "claims": {"p1/C1": {"acc": {"file": "sweep.csv", "row": 2,
                                                   "column": "time"}}}})  # fmt: skip
    binding = bind_claim(
        record, "p1/C1", _check(), [], locate=lambda ref: root / ref.path, levels=REPLAYED
    )
    assert _rows(binding) == [2]


def test_identical_seeds_count_as_one(tmp_path: Path) -> None:
    root = tmp_path / "b"
    record = _bundle(root, {"results.csv": "seed,acc\n0,0.9\n1,0.9\n2,0.9\n"})
    binding = bind_claim(record, "p1/C1", _check("acc", 0.9), [],
                         locate=lambda ref: root / ref.path,
                         levels=REPLAYED)  # fmt: skip
    [bound] = binding.bound
    assert bound.seeds == [0.9]
    same = [Measurement(value=0.9, metric="acc", run=f"r{i}", seed=f"s{i}", run_ok=True,
                        within_run=True, pointer=Pointer(kind="metric", run=f"s{i}", key="a",
                                                         step=0)) for i in range(3)]  # fmt: skip
    compared = compare(same, ReportedValue(value=0.9, text="0.9"))
    assert compared.seeds == 1 and compared.low != compared.high  # no zero-width interval


def test_a_history_binds_the_last_step_of_each_seed(tmp_path: Path) -> None:
    text = "seed,step,loss\n" + "".join(
        f"{s},{t},{1.0 / (t + 1) + s / 100}\n" for s in range(3) for t in range(61)
    )
    root = tmp_path / "b"
    record = _bundle(root, {"history.csv": text})
    binding = bind_claim(record, "p1/C1", _check("loss", 0.02), [],
                         locate=lambda ref: root / ref.path,
                         levels=REPLAYED)  # fmt: skip
    [bound] = binding.bound
    assert sorted(bound.seeds) == [1 / 61, 1 / 61 + 0.01, 1 / 61 + 0.02]


def test_a_one_column_table_is_seeds_of_one_setting(tmp_path: Path) -> None:
    root = tmp_path / "b"
    record = _bundle(root, {"acc.csv": "score\n" + "".join(f"{0.6 + i / 100}\n" for i in range(6))})
    _map(record, {"file": "acc.csv", "row": 3, "column": "score"})
    binding = bind_claim(
        record, "p1/C1", _check(), [], locate=lambda ref: root / ref.path, levels=REPLAYED
    )
    assert _rows(binding) == [1, 2, 3, 4, 5, 6]
