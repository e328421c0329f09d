"""Judge workers over the judge queue (openrepro.judge.worker), on SQLite and PostgreSQL: a
worker judges what is queued, retries a failure and then records it, and one killed with
SIGKILL in the middle of a logbook loses nothing (the next worker judges it, once); a flood of
one participant's logbooks does not hold back another participant's."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tomllib
from datetime import UTC, datetime

import tomli_w
from judge_queue_data import add_logbooks, add_papers, add_people
from sqlalchemy import func, select, update
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext
from openrepro.cli import app
from openrepro.config import CONFIG_FILE
from openrepro.judge.engine import judge_config
from openrepro.judge.judges import Judges
from openrepro.judge.worker import register_version, run_worker
from openrepro.store import Logbook, Verdict
from openrepro.store.judge_queue import claim_states, enqueue, queue_stats
from openrepro.store.tables_queue import JudgeQueueItem


def _items(ctx: ChallengeContext) -> list[JudgeQueueItem]:
    with ctx.store.session() as session:
        return list(session.scalars(select(JudgeQueueItem).order_by(JudgeQueueItem.id)))


def _verdicts(ctx: ChallengeContext) -> list[tuple[int, int, str]]:
    with ctx.store.session() as session:
        rows = session.execute(select(Verdict.logbook_id, Verdict.claim_id, Verdict.verdict))
        return sorted((a, b, c) for a, b, c in rows)


def test_a_worker_judges_what_is_queued(challenge: ChallengeContext) -> None:
    add_papers(challenge, 2, 2)
    add_people(challenge, ["ann", "bob"])
    books = add_logbooks(challenge, [("ann", "p0001"), ("bob", "p0002")])
    assert register_version(challenge, judge_config("")) == 4  # a first worker: everything
    with challenge.store.session() as s:  # the same keys: once each
        enqueue(s, books, reason="submission")
    report = run_worker(challenge, Judges(), until_empty=True)
    assert (report.logbooks, report.items, report.failures) == (2, 4, 0)
    assert [v for _, _, v in _verdicts(challenge)] == ["verified"] * 4
    assert {i.status for i in _items(challenge)} == {"done"}
    with challenge.store.session() as s:
        assert set(claim_states(s, books).values()) == {("done", "")}
        assert queue_stats(s, challenge.challenge_id).done == 4
    # the same keys again: nothing to judge; a second worker finds the queue empty
    with challenge.store.session() as s:
        enqueue(s, books, reason="submission")
    assert run_worker(challenge, Judges(), until_empty=True).logbooks == 0


def test_a_failure_is_retried_then_recorded_with_its_reason(challenge: ChallengeContext) -> None:
    register_version(challenge, judge_config(""))  # the workers' judge version
    add_papers(challenge, 1, 1)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:  # a stored record the judge cannot read
        s.execute(update(Logbook).where(Logbook.id == book).values(manifest={"format": 7}))
        enqueue(s, [book], reason="submission")
    ctx = dataclasses.replace(challenge, settings=challenge.settings.model_copy(
        update={"queue_max_attempts": 2, "queue_backoff_s": 0.0}))  # fmt: skip
    report = run_worker(ctx, Judges(), until_empty=True)
    assert (report.logbooks, report.failures) == (2, 2)
    (item,) = _items(challenge)
    assert (item.status, item.attempts) == ("failed", 2)
    assert "ValidationError" in item.error
    assert _verdicts(challenge) == []
    # what an organizer sees of it
    shown = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "status",
                                     "--queue", "-f", "json"])  # fmt: skip
    assert shown.exit_code == 0, shown.output
    stats = json.loads(shown.stdout)
    assert (stats["failed"], stats["queued"]) == (1, 0)
    assert "ValidationError" in stats["failures"][0]["error"]
    table = CliRunner().invoke(app, ["--dir", str(challenge.settings.directory), "status",
                                     "--queue"])  # fmt: skip
    assert "1 failed" in table.stdout and "after 2 attempt(s)" in table.stdout


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}


def test_a_worker_killed_mid_logbook_loses_nothing(challenge: ChallengeContext) -> None:
    """SIGKILL while a worker judges a logbook (2,000 claims, a few seconds of judging: with
    800, a loaded CI machine once saw the worker finish between the poll that saw it judging and
    the kill): nothing of it is stored, its items return to the queue after the lease, and the
    next worker judges every claim once."""
    register_version(challenge, judge_config(""))  # the workers' judge version
    folder = challenge.settings.directory
    config = tomllib.loads((folder / CONFIG_FILE).read_text())
    (folder / CONFIG_FILE).write_text(tomli_w.dumps(config | {"queue_lease_s": 2.0}))
    add_papers(challenge, 1, 2000)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")
    command = [sys.executable, "-m", "openrepro", "--dir", str(folder), "worker", "--no-llm",
               "--quiet"]  # fmt: skip
    first = subprocess.Popen(command, env=_env())
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if {i.status for i in _items(challenge)} == {"judging"}:
                break
            time.sleep(0.01)
        os.kill(first.pid, signal.SIGKILL)
    finally:
        first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    items = _items(challenge)
    assert {i.status for i in items} == {"judging"}  # killed mid-logbook
    assert {i.worker.split(":")[1] for i in items} == {str(first.pid)}
    assert _verdicts(challenge) == []  # nothing half-written
    while any(
        i.lease_until is not None
        and i.lease_until.replace(tzinfo=i.lease_until.tzinfo or UTC) > datetime.now(UTC)
        for i in _items(challenge)
    ):
        time.sleep(0.1)
    second = subprocess.run([*command, "--until-empty"], env=_env(), timeout=300)
    assert second.returncode == 0
    items = _items(challenge)
    assert {(i.status, i.attempts) for i in items} == {("done", 2)}
    assert {i.worker.split(":")[1] for i in items} != {str(first.pid)}
    verdicts = _verdicts(challenge)
    assert len(verdicts) == 2000 and len({(b, c) for b, c, _ in verdicts}) == 2000
    assert {v for _, _, v in verdicts} == {"verified"}


def test_one_participants_flood_does_not_hold_back_another(challenge: ChallengeContext) -> None:
    """500 logbooks of one participant queued, then one of another: the other's is judged
    second (round robin), long before the flood is through."""
    register_version(challenge, judge_config(""))  # the workers' judge version
    venues = add_papers(challenge, 500, 1)
    add_people(challenge, ["flood", "late"])
    flood = add_logbooks(challenge, [("flood", v) for v in venues])
    (late,) = add_logbooks(challenge, [("late", venues[0])])
    with challenge.store.session() as s:
        enqueue(s, flood, reason="submission")
        enqueue(s, [late], reason="submission")
    order: list[int] = []
    stop = threading.Event()

    def seen(claimed: object, _error: str) -> None:
        order.append(claimed.logbook_id)  # type: ignore[attr-defined]
        if late in order:
            stop.set()

    started = time.monotonic()
    run_worker(challenge, Judges(), stop=stop, progress=seen)
    assert order == [flood[0], late]
    assert time.monotonic() - started < 60
    with challenge.store.session() as s:
        waiting = s.scalar(select(func.count()).where(JudgeQueueItem.status == "queued"))
    assert waiting == 499
