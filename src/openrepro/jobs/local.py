"""The local backend: a detached supervisor runs the command in its own process group.

``openrepro jobs run`` reserves credit, writes the job row and starts ``python -m
openrepro.jobs.supervise DIR JOB`` in a new session, then returns. The supervisor starts the
command (a new session again, so its whole process group can be killed), writes its output to
``jobs/<n>/log.txt``, enforces the timeout (SIGTERM to the group, SIGKILL after a grace period),
obeys a cancel (SIGTERM to the supervisor), kills what the command left behind in its group, and
records the exit code, times and cost, settling the reservation.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from openrepro.challenge import ChallengeContext
from openrepro.jobs.ledger import aware, finish_job
from openrepro.store import Job
from openrepro.store.models import utcnow

__all__ = [
    "GRACE_S",
    "job_dir",
    "kill_group",
    "pid_alive",
    "spawn_supervisor",
    "supervise",
    "supervisor_alive",
]

GRACE_S = 2.0
SUPERVISOR_MODULE = "openrepro.jobs.supervise"


def job_dir(ctx: ChallengeContext, job_id: int) -> Path:
    return ctx.settings.directory / "jobs" / str(job_id)


def spawn_supervisor(ctx: ChallengeContext, job_id: int) -> int:
    """Start the detached supervisor of ``job_id``; its pid."""
    folder = job_dir(ctx, job_id)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "supervisor.txt", "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", SUPERVISOR_MODULE, str(ctx.settings.directory), str(job_id)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    return proc.pid


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone; one of ours is reaped here)."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def supervisor_alive(pid: int, job_id: int) -> bool:
    """Whether ``pid`` is still the supervisor of ``job_id`` (not a recycled pid)."""
    if not pid_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc: trust the pid
    return SUPERVISOR_MODULE.encode() in argv and str(job_id).encode() in argv


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_group(
    pgid: int, grace_s: float = GRACE_S, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after ``grace_s`` (or as soon as
    ``proc``, the group's leader, has exited)."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if proc is not None:
            if proc.poll() is not None:
                break
        elif not _group_exists(pgid):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _update(ctx: ChallengeContext, job_id: int, **values: object) -> None:
    with ctx.store.session() as session:
        job = session.get(Job, job_id)
        if job is not None:
            for key, value in values.items():
                setattr(job, key, value)


def supervise(ctx: ChallengeContext, job_id: int) -> int:
    """Run job ``job_id`` to its end (called in the detached supervisor process)."""
    cancel = threading.Event()
    signal.signal(signal.SIGTERM, lambda _s, _f: cancel.set())
    signal.signal(signal.SIGINT, lambda _s, _f: cancel.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with ctx.store.session() as session:
        job = session.get(Job, job_id)
        if job is None or job.status != "scheduling" or job.settled_at is not None:
            return 0
        command = list(job.command)
        timeout_s = job.timeout_s
        workdir = job.workdir or str(ctx.settings.directory)
        log_path = Path(job.log_path or job_dir(ctx, job_id) / "log.txt")
        public_id = f"{job.backend}:{job.id}"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "OPENREPRO_JOB_ID": public_id}
    with open(log_path, "ab", buffering=0) as log:
        try:
            proc = subprocess.Popen(
                command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
            )  # fmt: skip
        except OSError as exc:
            log.write(f"openrepro: cannot start {command[0]!r}: {exc}\n".encode())
            finish_job(
                ctx.store, job_id, status="error", exit_code=127,
                error=f"cannot start {command[0]!r}: {exc}",
            )  # fmt: skip
            return 1
        started = utcnow()
        _update(ctx, job_id, status="running", started_at=started, pgid=proc.pid, pid=os.getpid())
        deadline = time.monotonic() + timeout_s
        outcome = "exited"
        while True:
            try:
                proc.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                pass
            if cancel.is_set():
                outcome = "canceled"
            elif time.monotonic() >= deadline:
                outcome = "timeout"
            else:
                continue
            kill_group(proc.pid, GRACE_S, proc)
            proc.wait()
            break
        finished = utcnow()
        # Whatever the command left running in its group (background children) ends with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        code = proc.returncode
        error: str | None
        if outcome == "canceled":
            status, error = "canceled", "canceled"
        elif outcome == "timeout":
            status, error = "error", f"timed out after {timeout_s:g} s"
            log.write(f"\nopenrepro: {error}; process group killed\n".encode())
        else:
            status, error = ("completed", None) if code == 0 else ("error", f"exit code {code}")
    finish_job(
        ctx.store, job_id, status=status, exit_code=code, error=error, started_at=started,
        finished_at=finished, running_s=(aware(finished) - aware(started)).total_seconds(),
        actor="supervisor",
    )  # fmt: skip
    return 0
