"""Benchmark: binding a claim's check to produced tables (name matching and the evidence map).

A record whose one successful run produced ``--files`` CSV files of ``--rows`` rows each
(columns ``method``, ``seed``, ``accuracy``, ``loss``, ``tokens``; two methods), and a claim
with an ordering check (``ours`` higher than ``baseline``). Timed: binding by name matching
(every column of every table read once) and binding through an evidence map pointing at one
file's rows, both with :func:`openrepro.evidence.binding.bind_claim` as the judge calls it; then
the evaluation and the verdict's check panel on the board over the values the map bound.

    .venv/bin/python bench/binding.py [--rows 10000] [--files 4] [--repeat 3]

Prints the figures and the machine.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from openrepro.board.checks import check_shown
from openrepro.claims.checks import Check, Quantity
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.relations import evaluate
from openrepro.logbooks.manifest import EvidenceMap
from openrepro.logbooks.records import FileRef, LogbookRecord, Run
from openrepro.logbooks.tables import index_tables


def _write(path: Path, rows: int, shift: float) -> FileRef:
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["method", "seed", "accuracy", "loss", "tokens"])
        for i in range(rows):
            method = "ours" if i % 2 == 0 else "baseline"
            value = 88.0 + shift + (0.5 if method == "ours" else 0.0) + (i % 7) * 0.01
            out.writerow([method, i, f"{value:.3f}", f"{1 / (i + 1):.5f}", i * 1000])
    data = path.read_bytes()
    return FileRef(path=path.name, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _judge_and_panel(
    record: LogbookRecord, check: Check, locate: Callable[[FileRef], Path | None], repeat: int
) -> None:
    """The rest of judging the claim (levels, evaluation) and the verdict's check panel
    (:func:`openrepro.board.checks.check_shown`), on the rows the map binds: both should grow
    about linearly with the rows (the panel was quadratic: 500/1,000/2,000 rows took
    1.2/3.9/8.5 s)."""
    bound = bind_claim(record, "p1/C1", check, [], locate=locate, hints=["accuracy"])
    start = time.perf_counter()
    result = evaluate(check, bound.bound)
    evaluated = time.perf_counter() - start
    evidence = [m.pointer.model_dump(exclude_defaults=True) for m in bound.used]
    details = result.model_dump(mode="json")
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        shown = check_shown(details, evidence, "p1/C1")
        best = min(best, time.perf_counter() - start)
    rows = len(shown.values) if shown else 0
    print(f"evaluation: {evaluated * 1000:.0f} ms ({result.verdict}); check panel: "
          f"{best * 1000:.0f} ms for {rows:,} bound values")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        refs = [_write(base / f"runs{n}.csv", args.rows, n * 0.0) for n in range(args.files)]
        run = Run(id="cell-1", command=["python", "train.py"], exit_code=0, duration_s=60.0,
                  created_at="2026-01-01T00:00:00+00:00", produced=refs)  # fmt: skip
        tables, _ = index_tables(base, [run], [], [])
        record = LogbookRecord(format="trackio", format_version="1", runs=[run], files=refs,
                               tables=tables)  # fmt: skip
        check = Check(relation="ordering", quantities=[Quantity(name="ours"),
                      Quantity(name="baseline")], subject="ours",
                      baselines=["baseline"]).for_claim("p1/C1")  # fmt: skip

        def locate(ref: FileRef) -> Path | None:
            return next((base / r.path for r in refs if r.sha256 == ref.sha256), None)

        mapped = record.model_copy(update={"evidence_map": EvidenceMap.model_validate({
            "format": 1, "claims": {"p1/C1": {
                "ours": {"file": "runs0.csv", "where": {"method": "ours"}, "column": "accuracy"},
                "baseline": {"file": "runs0.csv", "where": {"method": "baseline"},
                             "column": "accuracy"}}}})})  # fmt: skip
        for label, subject in (("name matching", record), ("evidence map", mapped)):
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                result = bind_claim(subject, "p1/C1", check, [], locate=locate,
                                    hints=["accuracy"])  # fmt: skip
                best = min(best, time.perf_counter() - start)
            hows = {b.quantity: b.how for b in result.bindings}
            values = sum(len(b.values) for b in result.bindings)
            cells = args.rows * args.files * 5 if label == "name matching" else args.rows * 2
            print(
                f"{label}: {best * 1000:.0f} ms for {args.files} x {args.rows:,} rows "
                f"({cells / best / 1e6:.2f} M cells/s read), bound {hows}, {values:,} values"
            )
        _judge_and_panel(mapped, check, locate, args.repeat)
    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}"
    )


if __name__ == "__main__":
    main()
