"""A Trackio logbook, made by the real ``trackio logbook`` CLI, that keeps its numbers where the
2026 event's logbooks kept them (layouts written from scratch, no copy of an event file):

* one ``results.csv`` that each seed's run appends a row to (trackio adds an auto artifact
  cell after each run with the file's size then);
* a run ``python report.py --output-dir evidence`` that writes ``evidence/summary.json`` (no
  artifact cell: trackio does not record ``.json`` outputs itself) and prints a
  ``RESULT variant=... final_err=...%`` line per variant and its summary as indented JSON;
* a training history ``history.csv`` (an ``epoch`` column: a series, not seeds);
* a Markdown cell with a results table (testimony) and a hand-written ``noise.csv`` that no run
  writes (testimony).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from corpus import trackio_command

__all__ = ["SEED_SCRIPT", "build_layouts"]

SEED_SCRIPT = """\
import argparse, os
parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int)
seed = parser.parse_args().seed
new = not os.path.exists("results.csv")
with open("results.csv", "a") as out:
    if new:
        out.write("seed,acc\\n")
    out.write(f"{seed},{[0.81, 0.83, 0.82][seed]}\\n")
print("seed", seed, "done")
"""

REPORT_SCRIPT = """\
import argparse, json, os
parser = argparse.ArgumentParser()
parser.add_argument("--output-dir")
folder = parser.parse_args().output_dir
os.makedirs(folder, exist_ok=True)
summary = {"final_err": 48.4, "best_epoch": 7, "params_m": 1.3}
with open(os.path.join(folder, "summary.json"), "w") as out:
    json.dump(summary, out)
print("RESULT variant=full final_err=48.4% best_epoch=7")
print("RESULT variant=ablation final_err=51.2% best_epoch=5")
print(json.dumps(summary, indent=2))
with open("history.csv", "w") as out:
    out.write("epoch,loss\\n")
    for epoch in range(1, 62):
        out.write(f"{epoch},{1.0 / epoch:.5f}\\n")
"""

MARKDOWN = """\
Results (mean of 3 seeds):

| variant | final_err |
|---|---|
| full | **48.4%** |
| ablation | 51.2% |
| noise_only | 60.1% |
"""


def build_layouts(top: Path) -> Path:
    """The logbook in ``top/attempt`` (returned)."""
    import os

    project, data, home = top / "attempt", top / "trackio-data", top / "home"
    for folder in (project, data, home):
        folder.mkdir(parents=True)
    (project / "seed.py").write_text(SEED_SCRIPT, encoding="utf-8")
    (project / "report.py").write_text(REPORT_SCRIPT, encoding="utf-8")
    env = {**os.environ, "TRACKIO_DIR": str(data), "HOME": str(home), "HF_HOME": str(home / "hf"),
           "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}  # fmt: skip

    def trackio(*args: str) -> None:
        done = subprocess.run([*trackio_command(), "logbook", *args], cwd=project, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"trackio logbook {args} failed:\n{done.stdout}\n{done.stderr}")

    trackio("open", "--title", "Repro - evidence layouts", "--no-serve")
    trackio("page", "Claim 1: accuracy")
    for seed in ("0", "1", "2"):
        trackio("run", "--", sys.executable, "seed.py", "--seed", seed)
    trackio("run", "--", sys.executable, "report.py", "--output-dir", "evidence")
    trackio("cell", "markdown", MARKDOWN)
    (project / "noise.csv").write_text("noise,final_err\n0.1,48.0\n0.2,49.5\n", encoding="utf-8")
    return project
