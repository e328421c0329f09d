"""The local backend for real: detached supervisors, process groups, timeouts, cancel, crash,
parallel jobs, streaming logs, concurrent launches against a budget, and reconcile after a
supervisor is SIGKILLed. Store-level tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from jobs_helpers import pid_gone, wait_for

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.errors import BudgetError
from openrepro.jobs import (
    balance,
    cancel_job,
    follow_logs,
    get_job,
    list_jobs,
    read_logs,
    reconcile,
    run_job,
    wait_job,
)


@pytest.fixture
def sqlite_challenge(tmp_path: Path) -> Iterator[ChallengeContext]:
    """A challenge on SQLite only, for process tests where the database does not matter."""
    ctx = init_challenge(tmp_path / "ch", "test", database_url=f"sqlite:///{tmp_path / 's.db'}")
    try:
        yield ctx
    finally:
        ctx.close()


def test_completed_job_logs_and_settles(challenge: ChallengeContext, tmp_path: Path) -> None:
    job = run_job(
        challenge, ["sh", "-c", 'echo out; echo err >&2; echo "$OPENREPRO_JOB_ID"; pwd'],
        handle="ada", timeout_s=30, workdir=tmp_path,
    )  # fmt: skip
    assert job.id.startswith("local:") and job.status in ("scheduling", "running")
    done = wait_job(challenge, job.id, timeout_s=15)
    assert done.status == "completed" and done.exit_code == 0 and done.settled
    assert done.started_at is not None and done.finished_at is not None
    text = read_logs(challenge, job.id)
    assert text.splitlines() == ["out", "err", job.id, str(tmp_path.resolve())]
    assert done.cost_usd is not None and 0 <= done.cost_usd <= done.reserved_usd
    assert not done.cost_is_estimate
    money = balance(challenge, "ada")
    assert money.reserved_usd == 0
    assert money.spent_usd == pytest.approx(done.cost_usd, abs=1e-6)
    assert money.available_usd == pytest.approx(20.0 - done.cost_usd, abs=1e-6)
    assert [j.id for j in list_jobs(challenge, participant="ada")] == [job.id]
    assert list_jobs(challenge, participant="bob") == []


def test_crashing_and_missing_commands(challenge: ChallengeContext) -> None:
    crash = run_job(challenge, ["sh", "-c", "echo dying; kill -SEGV $$"], handle="ada")
    missing = run_job(challenge, ["/no/such/program"], handle="ada")
    crashed = wait_job(challenge, crash.id, timeout_s=15)
    assert crashed.status == "error" and crashed.exit_code == -signal.SIGSEGV
    assert "dying" in read_logs(challenge, crash.id)
    lost = wait_job(challenge, missing.id, timeout_s=15)
    assert lost.status == "error" and lost.exit_code == 127 and lost.cost_usd == 0
    assert "cannot start" in read_logs(challenge, missing.id)
    assert balance(challenge, "ada").reserved_usd == 0


def test_timeout_kills_the_whole_group(sqlite_challenge: ChallengeContext, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sh -c 'sleep 60' & echo $! >> {pids}; sleep 60 & echo $! >> {pids}; sleep 60"
    job = run_job(sqlite_challenge, ["sh", "-c", script], handle="ada", timeout_s=1.0)
    done = wait_job(sqlite_challenge, job.id, timeout_s=15)
    assert done.status == "error" and "timed out after 1 s" in (done.error or "")
    children = [int(x) for x in pids.read_text().split()]
    assert len(children) == 2
    assert wait_for(lambda: all(pid_gone(p) for p in children), 5)
    assert done.cost_usd is not None and done.cost_usd <= done.reserved_usd
    assert "timed out" in read_logs(sqlite_challenge, job.id)


def test_cancel_stops_job_and_children(sqlite_challenge: ChallengeContext, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    job = run_job(
        sqlite_challenge, ["sh", "-c", f"sleep 60 & echo $! > {pids}; echo started; wait"],
        handle="ada", timeout_s=120,
    )  # fmt: skip
    assert wait_for(lambda: pids.is_file() and pids.read_text().strip(), 10)
    child = int(pids.read_text())
    canceled = cancel_job(sqlite_challenge, job.id)
    assert canceled.status == "canceled" and canceled.settled
    assert wait_for(lambda: pid_gone(child), 5)
    assert balance(sqlite_challenge, "ada").reserved_usd == 0


def test_many_parallel_jobs(sqlite_challenge: ChallengeContext) -> None:
    jobs = [
        run_job(sqlite_challenge, ["sh", "-c", f"sleep 0.3; echo job{i}"], handle=f"p{i % 3}")
        for i in range(8)
    ]
    for i, job in enumerate(jobs):
        assert wait_job(sqlite_challenge, job.id, timeout_s=30).status == "completed"
        assert read_logs(sqlite_challenge, job.id) == f"job{i}\n"
    assert all(balance(sqlite_challenge, f"p{i}").reserved_usd == 0 for i in range(3))


def test_follow_streams_a_running_job(sqlite_challenge: ChallengeContext) -> None:
    job = run_job(
        sqlite_challenge,
        ["python3", "-u", "-c", "import time\nfor i in range(3):\n print(i); time.sleep(0.4)"],
        handle="ada",
    )
    seen: list[tuple[float, str]] = []
    start = time.monotonic()
    for chunk in follow_logs(sqlite_challenge, job.id, poll_s=0.05):
        seen.append((time.monotonic() - start, chunk))
    assert "".join(c for _t, c in seen) == "0\n1\n2\n"
    assert len(seen) >= 2 and seen[0][0] < seen[-1][0] - 0.3  # arrived while running
    assert get_job(sqlite_challenge, job.id).status == "completed"


def test_concurrent_launches_never_overspend(challenge: ChallengeContext) -> None:
    challenge.settings.budget_usd = 5.0
    challenge.settings.local_flavors = {"cpu": 3.6}  # $0.001/s: a 1000 s timeout reserves $1
    barrier = threading.Barrier(20)
    accepted: list[str] = []
    refused: list[str] = []

    def launch() -> None:
        barrier.wait()
        try:
            accepted.append(run_job(challenge, ["sleep", "60"], handle="ada", timeout_s=1000).id)
        except BudgetError as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=launch) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 5 and len(refused) == 15
    assert "needs $1.0000 reserved" in refused[0] and "ada has $0.0000 available" in refused[0]
    money = balance(challenge, "ada")
    assert money.reserved_usd == pytest.approx(5.0) and money.available_usd == pytest.approx(0)
    for job_id in accepted:
        assert cancel_job(challenge, job_id).status == "canceled"
    money = balance(challenge, "ada")
    assert money.reserved_usd == 0 and 0 < money.available_usd <= 5.0


def test_killed_supervisor_is_reconciled(challenge: ChallengeContext, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    job = run_job(
        challenge, ["sh", "-c", f"echo $$ > {pids}; sleep 60"], handle="ada", timeout_s=600
    )
    assert wait_for(lambda: pids.is_file() and pids.read_text().strip(), 10)
    assert wait_for(lambda: get_job(challenge, job.id).status == "running", 10)
    reconcile(challenge)
    assert not get_job(challenge, job.id).settled  # alive supervisor: left alone
    from openrepro.jobs.service import _row, _store_id

    row = _row(challenge, _store_id(challenge, job.id))
    assert row.pid is not None
    os.kill(row.pid, signal.SIGKILL)
    assert wait_for(lambda: pid_gone(row.pid or 0), 5)
    report = reconcile(challenge)
    assert report.settled == [job.id]
    view = get_job(challenge, job.id)
    assert view.status == "error" and "supervisor" in (view.error or "") and view.settled
    assert wait_for(lambda: pid_gone(int(pids.read_text())), 5)  # the orphan command is killed
    money = balance(challenge, "ada")
    assert money.reserved_usd == 0 and money.spent_usd == pytest.approx(view.cost_usd or 0)
    assert reconcile(challenge).settled == []  # settled once
