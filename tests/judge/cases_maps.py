"""Labelled judge-eval cases whose numbers are not logged as metrics: only in a CSV a recorded
run produced, or pointed at by the participant's evidence map. REAL Trackio logbooks for the
paper of :mod:`cases` (claim ``p1/C1``: 88.1 GLUE accuracy), one participant per case.

Gold labels as a careful human reads the logbook:

- ``csv-only``: the run wrote ``outputs/glue.csv`` (a row per seed, a column ``accuracy``) and
  logged nothing: the seeds are near 88.1, so ``verified``;
- ``map-unproduced``: the run printed nothing of use; the participant wrote ``results.csv`` by
  hand with the paper's number and points the evidence map at it: no run produced it, so
  ``inconclusive``;
- ``map-rows``: one CSV with rows for two methods; the map names the method's rows (71 %):
  ``falsified``.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cases import _call, ensure_paper
from test_judge_bindings import WRITE_CSV  # the run that writes the produced CSV

from openrepro.challenge import ChallengeContext
from openrepro.evidence.records import Verdict
from openrepro.judge.evaluate import Label
from openrepro.logbooks.submit import submit_logbook
from openrepro.workspace import pull_paper

__all__ = ["MAP_CASES", "MapCase", "build_map_cases"]


@dataclass(frozen=True)
class MapCase:
    name: str
    gold: Verdict
    rows: str = ""  # what the recorded run writes ("" : the run prints a line only)
    path: str = "outputs/glue.csv"
    hand_written: str = ""  # a CSV the participant writes by hand (no run produces it)
    evidence_map: dict[str, object] = field(default_factory=dict)
    note: str = ""


MAP_CASES: tuple[MapCase, ...] = (
    MapCase("csv-only", "verified", rows="ours:88.0,88.3,87.9",
            note="no metric: the produced CSV's accuracy column binds by name"),
    MapCase("map-unproduced", "inconclusive",
            hand_written="seed,accuracy\n0,88.1\n1,88.1\n",
            evidence_map={"p1/C1": {"subject": {"file": "results.csv", "column": "accuracy"}}},
            note="the map points at a file no run produced"),
    MapCase("map-rows", "falsified", rows="ours:71.2,70.8,71.5;baseline:60.0,61.0",
            evidence_map={"C1": {"subject": {"file": "outputs/glue.csv",
                                             "where": {"method": "ours"},
                                             "column": "accuracy"}}},
            note="the map selects the method's rows of a produced CSV"),
)  # fmt: skip


def _play(case: MapCase, ws: Path, page: str) -> None:
    trackio = str(Path(sys.executable).parent / "trackio")
    (ws / "write_csv.py").write_text(WRITE_CSV, encoding="utf-8")
    if case.rows:
        _call(ws, trackio, "logbook", "run", "--page", page, "--", sys.executable,
              "write_csv.py", case.rows, case.path)  # fmt: skip
    else:
        _call(ws, trackio, "logbook", "run", "--page", page, "--", sys.executable, "-c",
              "print('evaluation done')")  # fmt: skip
    if case.hand_written:
        (ws / "results.csv").write_text(case.hand_written, encoding="utf-8")
    if case.evidence_map:
        payload = {"format": 1, "claims": case.evidence_map}
        (ws / "evidence_map.json").write_text(json.dumps(payload), encoding="utf-8")


def build_map_cases(
    ctx: ChallengeContext, tmp_path: Path, cases: tuple[MapCase, ...] = MAP_CASES
) -> list[Label]:
    """Make, submit and label every case; returns the gold labels."""
    ensure_paper(ctx)
    pages = {c.name: pull_paper(ctx, "p1", tmp_path / c.name).pages["p1/C1"] for c in cases}
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        for future in [pool.submit(_play, c, tmp_path / c.name, pages[c.name]) for c in cases]:
            future.result()
    labels: list[Label] = []
    for case in cases:
        submit_logbook(ctx, tmp_path / case.name, handle=case.name)
        labels.append(Label(logbook=f"{case.name}@p1", claim="p1/C1", gold=case.gold,
                            kind="result", case=case.name, note=case.note))  # fmt: skip
    return labels
