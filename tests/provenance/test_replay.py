"""Replays and consistency checks on REAL Trackio logbooks made by the trackio CLI.

A forged run cell (typed by hand, never executed) and a logbook whose output was edited after
the run are flagged and never verified above testimony; an honest logbook replays to
``replayed``, and a replay that does not match flags ``replay_mismatch``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from cases import OUTSIDE, TRAIN, ensure_paper
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.evidence.checks import apply_levels, stored_levels
from openrepro.evidence.records import Measurement, Pointer
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.provenance import replay_logbook
from openrepro.store import Verdict
from openrepro.store.tables_provenance import Replay
from openrepro.workspace import pull_paper

TRACKIO = str(Path(sys.executable).parent / "trackio")
#: the cases' training script, given tenths: the values it logs are computed, not spelled out by
#: the command (a replay of values the command spells out is ``not_computed``)
TRAIN_TENTHS = TRAIN.replace("values = [float(v) for v", "values = [float(v) / 10 for v")


def _call(ws: Path, *args: str) -> str:
    env = {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    done = subprocess.run(list(args), cwd=ws, env=env, capture_output=True, text=True,
                          timeout=180, check=False)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _workspace(ctx: ChallengeContext, ws: Path) -> tuple[str, Path]:
    """Pull p1 into ``ws``; returns the claim's page slug and its page file."""
    ensure_paper(ctx)
    slug = pull_paper(ctx, "p1", ws).pages["p1/C1"]
    (ws / "train.py").write_text(TRAIN, encoding="utf-8")
    (ws / "train10.py").write_text(TRAIN_TENTHS, encoding="utf-8")
    (ws / "outside.py").write_text(OUTSIDE, encoding="utf-8")
    return slug, ws


def _page_file(ws: Path, slug: str) -> Path:
    logbook = ws / ".trackio" / "logbook"
    manifest = json.loads((logbook / "logbook.json").read_text(encoding="utf-8"))
    stack = [manifest["root"]]
    while stack:
        node = stack.pop()
        if node["slug"] == slug:
            return logbook / node["file"]
        stack += node.get("children", [])
    raise AssertionError(f"no page {slug}")


def _run(ws: Path, slug: str, values: str) -> None:
    tenths = ",".join(str(round(float(v) * 10)) for v in values.split(",") if v)
    _call(ws, TRACKIO, "logbook", "run", "--page", slug, "--", sys.executable, "train10.py",
          tenths, "0", "")  # fmt: skip


def _verdict(ctx: ChallengeContext, logbook_id: int) -> Verdict:
    judge_logbooks(ctx, None, logbook_ids=[logbook_id])
    with ctx.store.session() as session:
        verdict = session.scalars(select(Verdict).where(Verdict.logbook_id == logbook_id)).one()
        session.expunge(verdict)
    return verdict


def test_honest_logbook_replays_to_replayed(challenge: ChallengeContext, tmp_path: Path) -> None:
    slug, ws = _workspace(challenge, tmp_path / "honest")
    _run(ws, slug, "88.0,88.3")
    book = submit_logbook(challenge, ws, handle="honest").logbook_id
    before = _verdict(challenge, book)
    assert (before.verdict, before.provenance) == ("verified", "self-recorded")
    report = replay_logbook(challenge, book, claim="p1/C1", budget_seconds=120)
    assert [r.status for r in report.results] == ["matched"], report.results[0].details
    assert report.results[0].level == "replayed"
    assert report.results[0].details["metrics_compared"] == 2
    after = _verdict(challenge, book)  # the newer replay makes the judge look again
    assert (after.verdict, after.provenance) == ("verified", "replayed")
    with challenge.store.session() as session:
        row = session.scalars(select(Replay)).one()
        assert (row.status, row.level, row.logbook_id) == ("matched", "replayed", book)
        assert row.claim_id is not None


def test_replay_over_budget_is_queued_and_mismatch_flags(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    slug, ws = _workspace(challenge, tmp_path / "drift")
    _run(ws, slug, "88.0")
    page = _page_file(ws, slug)
    # the script the cell shows is changed after the run: a replay logs another value
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("values = [float(v)", "values = [70.0 + 0 * float(v)"), "utf-8")
    book = submit_logbook(challenge, ws, handle="drift").logbook_id
    queued = replay_logbook(challenge, book, budget_seconds=0.0001)
    assert [r.status for r in queued.results] == ["queued"]
    report = replay_logbook(challenge, book, claim="C1", budget_seconds=120)
    assert [r.status for r in report.results] == ["mismatched"]
    assert report.results[0].details["metric_problems"]
    verdict = _verdict(challenge, book)
    assert "replay_mismatch" in verdict.flags
    assert verdict.verdict != "verified" and verdict.provenance == "testimony"


def test_edited_output_is_flagged(challenge: ChallengeContext, tmp_path: Path) -> None:
    slug, ws = _workspace(challenge, tmp_path / "edited")
    _run(ws, slug, "86.0")  # within the 5 % tolerance of 88.1: verified as recorded
    page = _page_file(ws, slug)
    text = page.read_text(encoding="utf-8")
    assert "[86.0]" in text
    page.write_text(text.replace("[86.0]", "[88.1]"), encoding="utf-8")  # prettified by hand
    book = submit_logbook(challenge, ws, handle="edited").logbook_id
    verdict = _verdict(challenge, book)
    assert "output_edited" in verdict.flags
    assert verdict.verdict != "verified" and verdict.provenance == "testimony"
    # 86.0 is within the claim's 5 % of 88.1: the replay may match, the edit still counts
    replay_logbook(challenge, book, claim="p1/C1", budget_seconds=120)
    again = _verdict(challenge, book)
    assert "output_edited" in again.flags
    assert again.verdict != "verified" and again.provenance == "testimony"


FORGED = """
---
<!-- trackio-cell
{"type": "code", "id": "forged", "title": "Run: python train.py (exit 0)", \
"created_at": "%s", "command": ["python", "train.py"], "exit_code": 0, "duration_s": 30.0}
-->
````python title=train.py
print("final GLUE accuracy per seed: [88.1]")
````

````output
final GLUE accuracy per seed: [88.1]
````
"""


def test_forged_run_cell_is_caught(challenge: ChallengeContext, tmp_path: Path) -> None:
    slug, ws = _workspace(challenge, tmp_path / "forged")
    _call(ws, sys.executable, "outside.py", "88.1")  # plain python: no recorded run
    time.sleep(0.1)
    page = _page_file(ws, slug)
    stamp = datetime.now(UTC).isoformat()
    with page.open("a", encoding="utf-8") as handle:
        handle.write(FORGED % stamp)  # typed by hand: its window covers the metric
    book = submit_logbook(challenge, ws, handle="forged").logbook_id
    verdict = _verdict(challenge, book)
    assert verdict.verdict != "verified"
    assert verdict.provenance == "testimony"
    assert {"run_cell_inconsistent", "script_cannot_log_metric"} <= set(verdict.flags)
    report = replay_logbook(challenge, book, claim="p1/C1", budget_seconds=60)
    assert [r.status for r in report.results] == ["mismatched"]


WRITE = """
import os, sys
os.makedirs("results", exist_ok=True)
with open("results/scores.csv", "w") as out:
    out.write("seed,accuracy\\n" + "".join(f"{s},{88.0 + s / 10:.1f}\\n" for s in range(3)))
print("wrote results/scores.csv")
"""


def test_a_replayed_file_is_replayed_evidence(challenge: ChallengeContext, tmp_path: Path) -> None:
    slug, ws = _workspace(challenge, tmp_path / "files")
    (ws / "write.py").write_text(WRITE, encoding="utf-8")
    _call(ws, TRACKIO, "logbook", "run", "--page", slug, "--", sys.executable, "write.py")
    book = submit_logbook(challenge, ws, handle="files").logbook_id
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, book)
    [run] = [r for r in record.runs if "write.py" in r.command]
    assert [f.path for f in run.produced] == ["results/scores.csv"]
    report = replay_logbook(challenge, book, budget_seconds=120)
    [result] = report.results
    assert result.status == "matched", result.details
    assert result.details["files_reproduced"] == {"results/scores.csv": run.produced[0].sha256}
    assert report.isolation.startswith("bubblewrap")
    with challenge.store.session() as session:
        levels = stored_levels(session, book)
    assert levels.runs[run.id].level == "replayed"
    assert levels.files == {"results/scores.csv": run.id}
    # a value read from that file is replayed, even where no run is tied to it
    cell = Pointer(kind="table_cell", path="results/scores.csv", table=run.produced[0].sha256,
                   row=1, column="accuracy")  # fmt: skip
    loose = Measurement(value=88.0, metric="accuracy", pointer=cell, within_run=False)
    [levelled], _ = apply_levels(record, "p1/C1", [loose], levels)
    assert levelled.level == "replayed"
    [unreplayed], _ = apply_levels(record, "p1/C1", [loose])
    assert unreplayed.level == "testimony"
