"""Benchmark: how long the command line takes to start.

Runs ``openrepro --help`` and ``openrepro status --help`` (as ``python -m openrepro``, so the
source on ``PYTHONPATH`` is what is measured) in fresh processes, beside ``python -c pass`` in the
same run, and prints the median wall time of each and its ratio to ``python -c pass``. Also names
the heavy packages ``import openrepro.cli`` loads (scipy, fastapi, ray, huggingface_hub).

    .venv/bin/python bench/cli_start.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HEAVY = ("scipy", "fastapi", "ray", "huggingface_hub")
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "openrepro --help": [sys.executable, "-m", "openrepro", "--help"],
    "openrepro status --help": [sys.executable, "-m", "openrepro", "status", "--help"],
}


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def heavy_modules() -> list[str]:
    probe = (
        "import json, sys, openrepro.cli; "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    return list(json.loads(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    for command in CASES.values():  # warm the file cache once
        wall(command)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):  # interleaved, so a load spike touches every case alike
        for name, command in CASES.items():
            times[name].append(wall(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python -c pass"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    for name, value in medians.items():
        spread = f"{min(times[name]):.3f}-{max(times[name]):.3f}"
        print(f"{name:26s} median {value:6.3f} s  (min-max {spread})  x{value / base:5.1f}")
    heavy = heavy_modules()
    print(f"heavy packages loaded by `import openrepro.cli`: {heavy or 'none'}")
    figures = {"median_s": medians, "ratio_to_python": {n: v / base for n, v in medians.items()}}
    print(json.dumps({**figures, "heavy_loaded": heavy}))


if __name__ == "__main__":
    main()
