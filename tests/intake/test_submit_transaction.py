"""`openrepro submit` is one transaction: a process killed between any two of its steps (the
logbook stored, the proposed checks stored, the claims queued, the bindings computed) leaves
nothing of the submission in the database; one that finishes leaves all of it.

The real command runs in a child process on a real store (SQLite and PostgreSQL), with a real
Trackio logbook and a ``checks.json``; the test hook ``OPENREPRO_TEST_SUBMIT_STOP``
(:data:`openrepro.intake.submit.STOP_ENV`) makes it stop after the named step and say so, and
the test kills it there with SIGKILL (no handler, no rollback by Python: what is left is what
the database kept)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select
from test_judge_flow import _trackio  # the trackio CLI in a workspace, as the flow tests run it
from test_proposal_flow import ABSTRACT, CLAIMS, PROPOSALS

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.service import set_check
from openrepro.intake.submit import STOP_ENV, STOP_STEPS
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Logbook, Participant
from openrepro.store.tables_checks import CheckProposal
from openrepro.store.tables_queue import JudgeQueueItem
from openrepro.workspace import pull_paper

GAP = """
import trackio
trackio.init(project="repro-t1", name="seed0", config={"seed": 0})
trackio.log({"claims/t1/C1/gap": 0.004})
trackio.finish()
"""


@pytest.fixture
def workspace(challenge: ChallengeContext, tmp_path: Path) -> Path:
    """The theory paper of the proposal flow (its claims without checks), and a workspace with
    one real Trackio run and a ``checks.json`` proposing a check for claim C1."""
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="t1", title="Tail averaging", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    with challenge.store.session() as s:
        for text, kind, quote in CLAIMS:
            view = add_claim(s, challenge.challenge_id, "t1", text=text, kind=kind,
                             quotes=[quote], editor="org", drafting="rules")  # fmt: skip
            if view.check is not None:
                set_check(s, challenge.challenge_id, view.id, None, editor="org", reason="test")
    ws = tmp_path / "ws"
    pages = pull_paper(challenge, "t1", ws).pages
    (ws / "checks.json").write_text(
        json.dumps({"format": 1, "checks": {"t1/C1": PROPOSALS["t1/C1"]}}), encoding="utf-8"
    )
    (ws / "gap.py").write_text(GAP, encoding="utf-8")
    _trackio(ws, "logbook", "run", "--page", pages["t1/C1"], "--", sys.executable, "gap.py")
    return ws


def _stored(ctx: ChallengeContext) -> dict[str, int]:
    """What the database holds of submissions: participants, logbooks, proposals, queue items."""
    with ctx.store.session() as s:
        return {
            table.__name__: int(s.scalar(select(func.count()).select_from(table)) or 0)
            for table in (Participant, Logbook, CheckProposal, JudgeQueueItem)
        }


def _submit(folder: Path, ws: Path, stop: str | None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != STOP_ENV}
    if stop is not None:
        env[STOP_ENV] = stop
    command = [sys.executable, "-m", "openrepro", "--dir", str(folder), "submit", str(ws),
               "--as", "ana", "--format", "json"]  # fmt: skip
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip


def test_a_submission_killed_between_its_steps_leaves_nothing_and_a_whole_one_all(
    challenge: ChallengeContext, workspace: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "ch"
    before = _stored(challenge)
    for step in STOP_STEPS:
        child = _submit(folder, workspace, step)
        try:
            assert child.stderr is not None
            said = []  # read until the child says it stopped after `step` (or ends)
            for line in child.stderr:
                said.append(line)
                if line.strip() == f"{STOP_ENV}: stopped after {step}":
                    break
            else:
                raise AssertionError(f"never stopped after {step}: {''.join(said)}")
        finally:
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=60)
        assert child.returncode == -signal.SIGKILL
        assert _stored(challenge) == before, f"killed after {step}: a part of it was stored"

    child = _submit(folder, workspace, None)
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    report = json.loads(out)
    assert report["status"] == "new"
    assert [(p["claim"], p["status"]) for p in report["proposals"]] == [("t1/C1", "stored")]
    assert report["queued"] == len(CLAIMS) and report["queue_position"] == 1
    assert {b["claim"]: b["origin"] for b in report["bindings"]}["t1/C1"] == "proposal"
    after = _stored(challenge)
    assert after == {
        "Participant": before["Participant"] + 1,
        "Logbook": before["Logbook"] + 1,
        "CheckProposal": before["CheckProposal"] + 1,
        "JudgeQueueItem": before["JudgeQueueItem"] + len(CLAIMS),
    }
