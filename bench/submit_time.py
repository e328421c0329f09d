"""Benchmark: how long ``openrepro submit`` of an unchanged workspace takes.

Makes a challenge folder (SQLite) with one small paper and three claims, pulls its workspace,
logs one real Trackio run in it (the ``trackio`` CLI), adds a ``checks.json`` proposing a check,
and submits it once. Then runs ``openrepro submit`` of that unchanged workspace (as
``python -m openrepro``, so the source on ``PYTHONPATH`` is what is measured) in fresh processes,
beside ``python -c pass`` in the same run, and prints the median wall time of each and its ratio
to ``python -c pass``. A participant's agent submits after every run, so this is the price of
each of those.

    .venv/bin/python bench/submit_time.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openrepro.challenge import init_challenge
from openrepro.claims import add_claim
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

ABSTRACT = (
    "We train a small ranking model on synthetic queries. "
    "The ranking model reaches an accuracy of at least 0.9 on held-out queries. "
    "Training the ranking model takes less time than training the baseline. "
    "Our analysis covers every convex ranking loss."
)
CLAIMS = (
    "The ranking model reaches an accuracy of at least 0.9 on held-out queries",
    "Training the ranking model takes less time than training the baseline",
    "Our analysis covers every convex ranking loss",
)
PROPOSAL = {"relation": "bound", "subject": "accuracy", "quantities": [{"name": "accuracy"}],
            "comparator": "ge", "constant": {"value": 0.9, "text": "0.9"},
            "direction": "higher"}  # fmt: skip
RUN = """
import trackio
trackio.init(project="repro-b1", name="seed0", config={"seed": 0})
trackio.log({"claims/b1/C1/accuracy": 0.93})
trackio.finish()
"""


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def workspace(root: Path) -> tuple[Path, Path]:
    """The challenge folder and a submitted workspace in it (see the module docstring)."""
    folder, ws = root / "ch", root / "ws"
    ctx = init_challenge(folder, "bench", venue="Bench/2026",
                         database_url=f"sqlite:///{folder / 'store.db'}")  # fmt: skip
    try:
        import_papers(ctx.store, ctx.challenge_id,
                      [PaperRecord(venue_id="b1", title="Ranking", abstract=ABSTRACT)],
                      source="bench")  # fmt: skip
        with ctx.store.session() as session:
            for quote in CLAIMS:
                add_claim(session, ctx.challenge_id, "b1", text=quote, kind="result",
                          quotes=[quote], editor="bench")  # fmt: skip
        page = pull_paper(ctx, "b1", ws).pages["b1/C1"]
    finally:
        ctx.close()
    (ws / "run.py").write_text(RUN, encoding="utf-8")
    (ws / "checks.json").write_text(json.dumps({"format": 1, "checks": {"b1/C1": PROPOSAL}}))
    trackio = Path(sys.executable).parent / "trackio"
    env = {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    subprocess.run([str(trackio), "logbook", "run", "--page", page, "--", sys.executable,
                    "run.py"], cwd=ws, env=env, check=True, capture_output=True)  # fmt: skip
    return folder, ws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openrepro-bench-submit-") as tmp:
        folder, ws = workspace(Path(tmp))
        submit = [sys.executable, "-m", "openrepro", "--dir", str(folder), "submit", str(ws),
                  "--as", "ana", "--format", "json"]  # fmt: skip
        first = json.loads(subprocess.run(submit, check=True, capture_output=True).stdout)
        cases = {"python -c pass": [sys.executable, "-c", "pass"], "openrepro submit": submit}
        for command in cases.values():  # warm the file cache once
            wall(command)
        again = json.loads(subprocess.run(submit, check=True, capture_output=True).stdout)
        assert again["status"] == "unchanged", again["status"]
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):  # interleaved, so a load spike touches every case alike
            for name, command in cases.items():
                times[name].append(wall(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python -c pass"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    print(f"first submit: {first['status']}, {first['files']} files, "
          f"{len(first['proposals'])} proposal(s), {first['queued']} claims queued")  # fmt: skip
    for name, value in medians.items():
        spread = f"{min(times[name]):.3f}-{max(times[name]):.3f}"
        print(f"{name:18s} median {value:6.3f} s  (min-max {spread})  x{value / base:5.1f}")
    print(json.dumps({"median_s": medians,
                      "ratio_to_python": {n: v / base for n, v in medians.items()}}))  # fmt: skip


if __name__ == "__main__":
    main()
