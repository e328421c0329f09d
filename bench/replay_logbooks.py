"""Benchmark: replaying logbooks in the sandbox (`openrepro replay --all`), with figures.

Each folder given is submitted to a fresh scratch challenge (a placeholder paper per folder, so
any logbook links), then every logbook's runs are replayed in the bubblewrap sandbox within
``--budget-per-logbook`` seconds. Prints, per logbook and in all: runs, replayed (matched),
mismatched, failed (with why: gpu, data, network, package), timeout, skipped, queued, files
reproduced, and the seconds spent.

    .venv/bin/python bench/replay_logbooks.py FOLDER [FOLDER ...] [--budget-per-logbook 120]
        [--with-code]   (each folder is also the participant's code: `replay --code FOLDER`)

Use it on logbooks fetched outside the repository (the event's public logbooks carry no
licence: never copy them in).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from collections import Counter
from pathlib import Path

from openrepro.challenge import init_challenge
from openrepro.errors import LogbookError
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.provenance import sandbox_problem
from openrepro.provenance.replay import replay_all, replay_logbook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--budget-per-logbook", type=float, default=120.0)
    parser.add_argument(
        "--with-code",
        action="store_true",
        help="replay each logbook with its folder as the participant's code",
    )
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem is not None:
        raise SystemExit(problem)
    with tempfile.TemporaryDirectory(prefix="openrepro-bench-replay-") as tmp:
        ctx = init_challenge(Path(tmp) / "ch", "bench", venue="Bench/2026")
        names: dict[int, str] = {}
        for i, folder in enumerate(args.folders):
            venue = f"paper{i}"
            import_papers(ctx.store, ctx.challenge_id,
                          [PaperRecord(venue_id=venue, title=folder.name, abstract="-")],
                          source="bench")  # fmt: skip
            try:
                report = submit_logbook(ctx, folder, handle=f"p{i}", paper=venue)
            except LogbookError as exc:
                print(f"{folder.name}: not submitted: {exc}")
                continue
            names[report.logbook_id] = folder.name
        started = time.perf_counter()
        if args.with_code:
            folders = {name: folder for folder in args.folders for name in [folder.name]}
            reports = [
                replay_logbook(ctx, book, budget_seconds=args.budget_per_logbook,
                               code=folders[name])
                for book, name in names.items()
            ]  # fmt: skip
        else:
            reports = replay_all(ctx, budget_per_logbook=args.budget_per_logbook)
        seconds = time.perf_counter() - started
        ctx.close()
    total: Counter[str] = Counter()
    for report in reports:
        counts: Counter[str] = Counter()
        for result in report.results:
            counts[result.status] += 1
            why = result.details.get("cannot_replay")
            if why:
                counts[f"cannot:{why}"] += 1
            counts["files_reproduced"] += len(result.details.get("files_reproduced") or {})
            counts["seconds"] += round(result.seconds)
        counts["runs"] = len(report.results)
        total.update(counts)
        print(f"{names.get(report.logbook_id, report.logbook_id)}: {dict(sorted(counts.items()))}")
        for result in report.results:
            details = result.details
            problems = [*details.get("metric_problems", []), *details.get("file_problems", []),
                        *details.get("output_lines_missing", [])[:2]]  # fmt: skip
            problem_of = details.get("problem") or "; ".join(problems)
            print(f"  {result.run_id}: {result.status} ({result.seconds:.1f} s) {problem_of[:160]}")
    print(f"all: {dict(sorted(total.items()))}; wall {seconds:.1f} s")
    print(f"sandbox: {reports[0].isolation if reports else '-'}")
    print(f"machine: {platform.platform()}, python {platform.python_version()}")


if __name__ == "__main__":
    main()
