"""Benchmark: reading Trackio logbooks, and their tabular evidence.

1. **Logbooks/s**: a logbook made with the real ``trackio logbook`` CLI (a run writing five
   result files of every table format, printed tables, a figure with an embedded image and raw
   CSV), turned into schema 1 and copied ``--count`` times; each copy read with
   ``read_trackio_logbook`` (pages, cells, runs, hashes, table shapes, side files).
2. **MB/s of tables**: the same logbook whose run also produced ``--table-mb`` MB of CSV (four
   files); the read is timed (hashing and counting every row), then one value at the last row
   of each file is read back by pointer (streaming, never the whole file in memory).

    .venv/bin/python bench/logbook_reading.py [--count 50] [--table-mb 100] [--keep DIR]

Prints the figures and the machine. The logbook is built in a temporary folder (or ``--keep``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "logbooks"))
from corpus import MANIFEST, build_base

from openrepro.logbooks.records import FileRef
from openrepro.logbooks.tables import read_value
from openrepro.logbooks.trackio_reader import read_trackio_logbook


def _schema1(root: Path) -> None:
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    data.update(schema_version=1, paper=None, tags=["icml2026-repro", "paper-Qx7Rp2LmNa"])
    data.pop("traces", None)
    (root / MANIFEST).write_text(json.dumps(data), encoding="utf-8")


def _add_tables(root: Path, megabytes: int) -> int:
    """Append four CSV files of ``megabytes`` in all, recorded as produced by the run."""
    page = next((root / ".trackio" / "logbook" / "pages").rglob("claim-1*/page.md"))
    text = page.read_text(encoding="utf-8")
    run_end = text.index("\n---\n<!-- trackio-cell", text.index('"command"'))
    row = "{i},{a:.6f},{b:.6f},{c:.6f},file{n}-seed-{s}\n"
    cells = []
    total = 0
    for n in range(4):
        path = root / "outputs" / f"big{n}.csv"
        target = megabytes * 1024 * 1024 // 4
        with path.open("w", encoding="utf-8") as handle:
            handle.write("step,accuracy,loss,lr,tag\n")
            i = 0
            while handle.tell() < target:
                handle.write(row.format(i=i, a=i / 1e6, b=1 - i / 1e6, c=0.001, n=n, s=i % 5))
                i += 1
        size = path.stat().st_size
        total += size
        header = {"type": "artifact", "id": f"cell_big{n:08d}", "title": f"Artifact: big{n}.csv",
                  "path": f"outputs/big{n}.csv", "size": size, "artifact_type": "dataset",
                  "auto": True}  # fmt: skip
        cells.append(f"\n\n---\n<!-- trackio-cell\n{json.dumps(header)}\n-->\n**Artifact**\n")
    page.write_text(text[:run_end] + "".join(cells) + text[run_end:], encoding="utf-8")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--table-mb", type=int, default=100)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    top = args.keep or Path(tempfile.mkdtemp(prefix="openrepro-bench-logbooks-"))
    try:
        base = build_base(top / "made")
        _schema1(base)
        copies = []
        for i in range(args.count):
            copies.append(top / "copies" / f"l{i}")
            shutil.copytree(base, copies[-1])
        started = time.perf_counter()
        sizes = 0
        for root in copies:
            record = read_trackio_logbook(root)
            sizes += sum(f.size for f in record.files)
        took = time.perf_counter() - started
        machine = f"{platform.machine()}, {os.cpu_count()} CPUs"
        print(f"machine: {machine}, Python {platform.python_version()}")
        print(
            f"logbooks: {args.count} read in {took:.2f}s = {args.count / took:.1f} logbooks/s "
            f"({len(record.tables)} tables, {len(record.files)} files, {sizes / args.count:,.0f} "
            "bytes of files each)"
        )
        big = top / "big"
        shutil.copytree(base, big)
        table_bytes = _add_tables(big, args.table_mb)
        started = time.perf_counter()
        record = read_trackio_logbook(big)
        took = time.perf_counter() - started
        mb = table_bytes / 1e6
        print(
            f"tables: a logbook with {mb:.0f} MB of CSV read in {took:.2f}s = {mb / took:.0f} MB/s"
        )
        by_sha = {f.sha256: big / f.path for f in record.files}

        def locate(ref: FileRef) -> Path | None:
            return by_sha.get(ref.sha256)

        started = time.perf_counter()
        bigs = [t for t in record.tables if t.path.startswith("outputs/big")]
        for table in bigs:
            value = read_value(record.tables, record.runs, record.pages, table.table, table.rows,
                               "loss", locate)  # fmt: skip
        took = time.perf_counter() - started
        print(
            f"pointers: the last row of {len(bigs)} files ({bigs[0].rows:,} rows each) read back "
            f"in {took:.2f}s = {mb / took:.0f} MB/s streamed (last value {value.text})"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
