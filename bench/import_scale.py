"""Benchmark: import a venue-sized paper list into a fresh SQLite challenge.

Imports the real ICML 2025 list (3,340 papers, ../shared/data/paperlists/icml2025.json, or the
copy in tests/data) plus generated papers up to 6,341 (ICML 2026's size), with abstracts of a
realistic length, through the CLI in a fresh process, as an organizer would. Prints wall seconds
and peak RSS of that process, then the same for an idempotent re-import.

    .venv/bin/python bench/import_scale.py [--papers 6341] [--keep DIR]

Goal: <= 3 s and <= 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [
    ROOT.parent / "shared" / "data" / "paperlists" / "icml2025.json",
    ROOT / "tests" / "data" / "icml2025.json",
]
WORDS = [
    "learning",
    "model",
    "neural",
    "robust",
    "sparse",
    "graph",
    "diffusion",
    "transformer",
    "kernel",
    "bound",
    "optimal",
    "policy",
    "reward",
    "language",
    "vision",
    "attention",
    "gradient",
    "convex",
    "stochastic",
    "Bayesian",
    "causal",
    "federated",
    "private",
    "efficient",
    "scalable",
    "adaptive",
    "contrastive",
    "generative",
]


def real_list() -> list[dict[str, str]]:
    for path in CANDIDATES:
        if path.is_file():
            data: list[dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
            return data
    sys.exit("icml2025.json not found in ../shared/data/paperlists or tests/data")


def synthetic(n: int, rng: random.Random) -> list[dict[str, str]]:
    out = []
    for i in range(n):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12))).capitalize()
        if i % 7 == 0:
            title = f"$\\mathcal{{O}}(n^{i % 5})$ {title} — “quoted” Ünïcødé"
        out.append(
            {
                "id": f"gen_{i:05d}",
                "title": title,
                "author": ", ".join(f"Author{j} Ñame{i}" for j in range(rng.randint(1, 9))),
                "status": rng.choice(["Poster", "Poster", "Poster", "Spotlight", "Oral"]),
                "track": "main",
                "site": f"https://example.org/virtual/2026/poster/{i}",
                "abstract": " ".join(rng.choice(WORDS) for _ in range(rng.randint(120, 220))),
            }
        )
    return out


def run_import(folder: Path, source: Path) -> tuple[float, float, dict[str, object]]:
    """Run `openrepro papers import` in a fresh process; wall seconds, peak RSS (MB), report."""
    code = (
        "import resource, sys\n"
        "from openrepro.cli import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "    print(f'PEAK_RSS_KB={rss}', file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, "--dir", str(folder), "papers", "import", str(source),
         "--format", "json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"import failed:\n{proc.stderr}")
    rss_kb = next(
        int(line.split("=")[1]) for line in proc.stderr.splitlines() if line.startswith("PEAK_RSS")
    )
    return wall, rss_kb / 1024, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6341)
    parser.add_argument("--keep", type=Path, help="keep the challenge in this folder")
    args = parser.parse_args()

    papers = real_list()
    real = len(papers)
    papers += synthetic(max(args.papers - real, 0), random.Random(2026))
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        source = base / "papers.json"
        base.mkdir(parents=True, exist_ok=True)
        source.write_text(json.dumps(papers, ensure_ascii=False), encoding="utf-8")
        folder = base / "challenge"
        init = subprocess.run(
            [sys.executable, "-m", "openrepro", "init", "bench", "--path", str(folder)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if init.returncode != 0:
            sys.exit(init.stderr)
        print(f"papers: {len(papers)} ({real} real ICML 2025 + {len(papers) - real} generated)")
        print(f"list file: {source.stat().st_size / 1e6:.1f} MB")
        for label in ("first import", "re-import"):
            wall, rss, report = run_import(folder, source)
            print(
                f"{label}: {wall:.2f} s wall, peak RSS {rss:.0f} MB "
                f"(created {report['created']}, updated {report['updated']}, "
                f"skipped {len(report['skipped'])}, in-process import {report['seconds']} s)"  # type: ignore[arg-type]
            )
        db = folder / "openrepro.db"
        print(f"database: {db.stat().st_size / 1e6:.1f} MB")
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(bench driver peak RSS {self_rss:.0f} MB, not part of the import)")


if __name__ == "__main__":
    main()
