"""`replay --all` on a local Ray instance equals the single-process replay: the same logbooks,
statuses and replayed files, each run in the sandbox (bundles whose runs are cheap CPU
scripts: one honest, one whose recorded output was edited, one that needs data it lacks)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_helpers import local_ray

from openrepro.challenge import ChallengeContext
from openrepro.engine import RayOptions, replay_logbooks_ray
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.provenance import sandbox_problem
from openrepro.provenance.replay import ReplayReport, replay_all

SCRIPT = """import sys
rows = [(s, round(0.5 + s / 10, 3)) for s in range(3)]
open("scores.csv", "w").write("seed,acc\\n" + "".join(f"{s},{a}\\n" for s, a in rows))
print("mean acc", sum(a for _, a in rows) / 3)
"""
NEEDS_DATA = "open('data/train.bin').read()\n"


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    if sandbox_problem() is not None:
        pytest.skip(str(sandbox_problem()))  # test_sandbox fails loudly for this
    yield from local_ray()


def _bundle(root: Path, j: int) -> Path:
    root.mkdir(parents=True)
    (root / "make.py").write_text(SCRIPT, encoding="utf-8")
    (root / "load.py").write_text(NEEDS_DATA, encoding="utf-8")
    (root / "scores.csv").write_text("seed,acc\n0,0.5\n1,0.6\n2,0.7\n", encoding="utf-8")
    printed = "mean acc 0.6" if j != 1 else "mean acc 0.9"  # logbook 1: an edited output
    (root / "make.txt").write_text(printed + "\n", encoding="utf-8")
    (root / "load.txt").write_text("loaded\n", encoding="utf-8")
    manifest = {
        "openrepro_bundle": 1, "paper": "p1", "participant": f"u{j}", "claims": ["p1/C1"],
        "runs": [
            {"id": "make", "command": ["python", "make.py"], "exit_code": 0, "log": "make.txt",
             "scripts": ["make.py"], "produced": ["scores.csv"], "duration_s": 0.5},
            {"id": "load", "command": ["python", "load.py"], "exit_code": 0, "log": "load.txt",
             "scripts": ["load.py"], "duration_s": 0.5},
        ],
    }  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def _outcome(reports: list[ReplayReport]) -> list[tuple[Any, ...]]:
    return [
        (r.logbook_id, x.run_id, x.status, x.level, x.details.get("cannot_replay"),
         sorted(x.details.get("files_reproduced", {})))
        for r in reports for x in r.results
    ]  # fmt: skip


def test_replay_all_on_ray_equals_the_local_replay(
    ray_instance: Any, challenge: ChallengeContext, tmp_path: Path
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    for j in range(3):
        submit_logbook(challenge, _bundle(tmp_path / f"b{j}", j))
    local = replay_all(challenge, budget_per_logbook=60)
    on_ray = replay_logbooks_ray(challenge, budget_per_logbook=60, options=RayOptions(batch=1))
    assert _outcome(on_ray) == _outcome(local)
    got = {(lb, run): (status, level, why, files)
           for lb, run, status, level, why, files in _outcome(local)}  # fmt: skip
    books = sorted({lb for lb, _ in got})
    assert got[(books[0], "make")] == ("matched", "replayed", None, ["scores.csv"])
    assert got[(books[1], "make")][:2] == ("mismatched", "testimony")
    assert got[(books[0], "load")][:3] == ("failed", "self-recorded", "data")
    starved = replay_all(challenge, budget_per_logbook=60, budget=0.0)  # nothing left: queued
    assert {x.status for r in starved for x in r.results} == {"queued"}
