"""`openrepro replay`: re-run a logbook's recorded runs and compare what they produce.

For each run cell that backs a claim's evidence (every run of the logbook without ``claim``),
:func:`replay_run` builds a fresh temporary working copy: the logbook's stored files (from the
content-addressed store) and the scripts the run cell shows, at their paths. It runs the
recorded command there with a time limit (the process group is killed), a memory limit
(``RLIMIT_AS``), a file-size limit, a minimal environment (``HOME`` and ``TRACKIO_DIR`` inside
the copy, ``HF_HUB_OFFLINE=1``) and, where the platform allows it, no network (``unshare -rn``:
a new user and network namespace with only a loopback device). A ``python``/``python3`` command
runs under this interpreter. The metrics the replay logs land in the fresh ``TRACKIO_DIR`` and
are read back by :func:`~openrepro.logbooks.trackio_reader.read_trackio_logbook`.

It then compares with the record: the exit code; every metric the run logged (last step per
series and key) within the claim's tolerance (``rel_tol``); every recorded output line, exactly
for its text and within the tolerance for its numbers (lines about time or speed are skipped).
The result (``matched``, ``mismatched``, ``failed``, ``timeout``, ``skipped``, or ``queued``
when the run's recorded duration exceeds the remaining budget) is stored in the ``replays``
table; a matched replay makes the run's evidence ``replayed``.

This is NOT a sandbox: see ``docs/provenance.md`` for what isolation is and is not provided.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import claim_view
from openrepro.errors import LogbookError, NotFoundError
from openrepro.evidence.decide import DEFAULT_REL_TOL
from openrepro.evidence.gather import measurements
from openrepro.evidence.levels import ProvenanceLevel
from openrepro.logbooks.records import FileRef, LogbookRecord, Metric, Run
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.logbooks.service import load_logbook, locator
from openrepro.logbooks.trackio_reader import read_trackio_logbook
from openrepro.store import Claim, Logbook, Paper
from openrepro.store.tables_provenance import Replay

__all__ = [
    "ReplayReport",
    "ReplayResult",
    "ReplayStatus",
    "compare_outputs",
    "isolation_available",
    "replay_all",
    "replay_logbook",
    "replay_run",
    "runs_for_claim",
]

ReplayStatus = Literal["matched", "mismatched", "failed", "timeout", "skipped", "queued"]
NO_NETWORK_WARNING = (
    "`unshare -rn` is not available here: the replay runs WITH network access "
    "(only time, memory and file-size limits apply)"
)
_PYTHON_RE = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_TIMING_RE = re.compile(
    r"(?i)\b(?:time|elapsed|duration|seconds?|secs?|ms|eta|it/s|s/it|throughput|speed|"
    r"took|wall|samples/s|tokens/s)\b|\d(?:s|ms)\b|%\|"
)
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_MAX_OUTPUT = 200_000


class ReplayResult(BaseModel):
    """What one replay (or attestation) of one run found."""

    run_id: str
    status: ReplayStatus
    level: ProvenanceLevel = "self-recorded"  # what the run earns from it
    seconds: float = 0.0
    details: dict[str, Any] = Field(default_factory=dict)
    replay_id: int | None = None  # the stored row


class ReplayReport(BaseModel):
    logbook_id: int
    claim: str | None = None
    isolation: str = ""
    budget_seconds: float = 0.0
    results: list[ReplayResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# ---- isolation ----


@cache
def isolation_available() -> bool:
    """Can this process start a child in a fresh user + network namespace (``unshare -rn``)?"""
    tool = shutil.which("unshare")
    if tool is None or not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run([tool, "-rn", "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _limits(memory_mb: int, cpu_s: int) -> Callable[[], None]:
    def apply() -> None:
        memory = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        size = 1024 * 1024 * 1024  # 1 GiB per file written
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


# ---- which runs, and the working copy ----


def runs_for_claim(record: LogbookRecord, claim_id: str | None) -> list[Run]:
    """The runs backing ``claim_id``'s measurements (every run when ``claim_id`` is None)."""
    if claim_id is None:
        return list(record.runs)
    wanted = {m.run for m in measurements(record, claim_id) if m.run}
    return [run for run in record.runs if run.id in wanted]


def _safe_relative(path: str) -> PurePosixPath | None:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        return None
    return pure


def _working_copy(
    record: LogbookRecord, run: Run, locate: Callable[[FileRef], Path | None], work: Path
) -> list[str]:
    """Fill ``work`` with the logbook's stored files and the run's scripts; returns warnings."""
    warnings: list[str] = []
    for ref in record.files:
        rel = _safe_relative(ref.path)
        source = locate(ref)
        if rel is None or source is None:
            warnings.append(f"file {ref.path} is not in the store: left out of the working copy")
            continue
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for name, text in run.scripts.items():
        rel = _safe_relative(name)
        if rel is None:
            warnings.append(f"script {name!r} has an unsafe path: left out")
            continue
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return warnings


def _command(run: Run) -> list[str]:
    """The recorded command, with a ``python`` interpreter mapped to this one."""
    if not run.command:
        return []
    head = PurePosixPath(run.command[0]).name
    if _PYTHON_RE.match(head):
        return [sys.executable, *run.command[1:]]
    return list(run.command)


def _environment(work: Path, trackio_dir: Path) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(
        HOME=str(work), TMPDIR=str(work / ".tmp"), TRACKIO_DIR=str(trackio_dir),
        HF_HUB_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1", PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
        TRACKIO_LOGBOOK_AUTONOTE="0",
    )  # fmt: skip
    return env


def _execute(
    command: list[str], work: Path, env: dict[str, str], timeout_s: float, memory_mb: int
) -> tuple[int | None, str, float]:
    """Run in a new session; on timeout the whole process group is killed (exit code None)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        command, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_limits(memory_mb, max(1, math.ceil(timeout_s))),
    )  # fmt: skip
    try:
        raw, _ = proc.communicate(timeout=timeout_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        with_suppressed_kill(proc.pid)
        raw, _ = proc.communicate()
        code = None
    output = raw[:_MAX_OUTPUT].decode("utf-8", errors="replace")
    return code, output, time.monotonic() - started


def with_suppressed_kill(pgid: int) -> None:
    """SIGKILL a process group that may already be gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


# ---- comparison ----


def _last_values(metrics: list[Metric]) -> dict[tuple[str, str], float]:
    last: dict[tuple[str, str], Metric] = {}
    for metric in metrics:
        held = last.get((metric.run, metric.key))
        if held is None or metric.step >= held.step:
            last[(metric.run, metric.key)] = metric
    return {k: m.value for k, m in last.items()}


def _recorded_metrics(record: LogbookRecord, run: Run) -> dict[tuple[str, str], float]:
    """The metrics the record ties to ``run`` (any claim), last step per series and key."""
    tied: list[Metric] = []
    claims = {key.rsplit("/", 1)[0] for m in record.metrics if m.key.startswith("claims/")
              for key in [m.key.rsplit("/", 1)[0]]}  # fmt: skip
    for claim_id in claims:
        prefix = claim_id[len("claims/") :]
        for m in measurements(record, prefix):
            if m.run == run.id:
                tied.append(
                    Metric(run=m.seed, key=m.pointer.key, step=m.pointer.step or 0, value=m.value)
                )
    return _last_values(tied)


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12)


_PATH_RE = re.compile(r"(?:[A-Za-z]:)?[/\\][^\s\"'`]+")


def _skeleton(line: str) -> str:
    """A line's text with numbers as ``#`` and absolute paths as ``<path>`` (the working copy
    is elsewhere than the participant's folder)."""
    return " ".join(_NUMBER_RE.sub("#", _PATH_RE.sub("<path>", line)).split())


def _numbers_of(line: str) -> list[float]:
    return [float(n) for n in _NUMBER_RE.findall(_PATH_RE.sub("<path>", line))]


def _same_numbers(a: list[float], b: list[float], rel_tol: float) -> bool:
    return len(a) == len(b) and all(_close(x, y, rel_tol) for x, y in zip(a, b, strict=True))


def compare_outputs(recorded: str, replayed: str, rel_tol: float) -> list[str]:
    """Recorded output lines with no counterpart in the replayed output (same text, numbers
    within ``rel_tol``, absolute paths ignored); blank lines and lines about time or speed are
    not compared."""
    pool: dict[str, list[list[float]]] = {}
    for line in replayed.splitlines():
        pool.setdefault(_skeleton(line), []).append(_numbers_of(line))
    missing: list[str] = []
    for line in recorded.splitlines():
        if not line.strip() or _TIMING_RE.search(line) or line.strip() == "[interrupted]":
            continue
        numbers = _numbers_of(line)
        candidates = pool.get(_skeleton(line), [])
        hit = next(
            (i for i, c in enumerate(candidates) if _same_numbers(c, numbers, rel_tol)), None
        )
        if hit is None:
            missing.append(line)
        else:
            candidates.pop(hit)
    return missing


def _replayed_metrics(work: Path, trackio_dir: Path) -> list[Metric]:
    """Read the replay's Trackio store as the logbook reader does (through a stub logbook)."""
    stub = work / ".replay-logbook"
    (stub / ".trackio" / "logbook" / "pages").mkdir(parents=True, exist_ok=True)
    (stub / ".trackio" / "logbook" / "logbook.json").write_text(
        '{"schema_version": 2, "root": {"slug": "index", "file": "pages/index.md"}}',
        encoding="utf-8",
    )
    (stub / ".trackio" / "logbook" / "pages" / "index.md").write_text("# replay\n", "utf-8")
    if not trackio_dir.is_dir():
        return []
    return read_trackio_logbook(stub, trackio_dir=trackio_dir).metrics


def _judge_replay(
    record: LogbookRecord, run: Run, code: int | None, output: str, metrics: list[Metric],
    rel_tol: float,
) -> tuple[ReplayStatus, dict[str, Any]]:  # fmt: skip
    details: dict[str, Any] = {"exit_code": code, "recorded_exit_code": run.exit_code}
    if code is None:
        return "timeout", details
    if run.exit_code is not None and code != run.exit_code:
        details["problem"] = f"exit code {code}, recorded {run.exit_code}"
        return "failed", details
    recorded = _recorded_metrics(record, run)
    replayed = _last_values(metrics)
    metric_problems = []
    for (series, key), value in sorted(recorded.items()):
        again = replayed.get((series, key))
        if again is None:
            metric_problems.append(f"{key} ({series}) was not logged by the replay")
        elif not _close(again, value, rel_tol):
            metric_problems.append(f"{key} ({series}): recorded {value!r}, replayed {again!r}")
    missing_lines = compare_outputs(run.output, output, rel_tol)
    details.update(
        metrics_compared=len(recorded), metric_problems=metric_problems,
        output_lines_missing=missing_lines[:20], rel_tol=rel_tol,
    )  # fmt: skip
    return ("mismatched" if metric_problems or missing_lines else "matched"), details


def replay_run(
    record: LogbookRecord,
    run: Run,
    locate: Callable[[FileRef], Path | None],
    *,
    timeout_s: float,
    memory_mb: int,
    rel_tol: float = DEFAULT_REL_TOL,
    isolate: bool | None = None,
) -> ReplayResult:
    """Replay one run in a fresh temporary working copy (see the module docstring)."""
    command = _command(run)
    if not command:
        return ReplayResult(run_id=run.id, status="skipped", details={"problem": "no command"})
    isolate = isolation_available() if isolate is None else isolate
    with tempfile.TemporaryDirectory(prefix="openrepro-replay-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / ".tmp").mkdir()
        trackio_dir = Path(tmp) / "trackio"
        warnings = _working_copy(record, run, locate, work)
        argv = ["unshare", "-rn", "--", *command] if isolate else command
        try:
            code, output, seconds = _execute(
                argv, work, _environment(work, trackio_dir), timeout_s, memory_mb
            )
        except OSError as exc:
            problem = {"problem": f"cannot start {command[0]!r}: {exc}"}
            return ReplayResult(run_id=run.id, status="failed", details=problem)
        try:
            metrics = _replayed_metrics(work, trackio_dir)
        except LogbookError as exc:
            metrics = []
            warnings.append(f"cannot read the replay's metrics: {exc}")
        status, details = _judge_replay(record, run, code, output, metrics, rel_tol)
    details.update(
        command=command, isolated=isolate, warnings=warnings, output_tail=output[-2000:],
        timeout_s=timeout_s, memory_mb=memory_mb,
    )  # fmt: skip
    level: ProvenanceLevel = "replayed" if status == "matched" else "self-recorded"
    if status == "mismatched":
        level = "testimony"
    return ReplayResult(run_id=run.id, status=status, level=level, seconds=round(seconds, 3),
                        details=details)  # fmt: skip


# ---- logbooks ----


def _claim_row(ctx: ChallengeContext, record: LogbookRecord, claim: str) -> tuple[int, str, float]:
    """``(claim row id, claim id, tolerance)`` of ``claim`` (``C1`` or ``p1/C1``)."""
    venue, _, key = claim.rpartition("/")
    venue = venue or (record.paper_id or "")
    with ctx.store.session() as session:
        row = session.scalar(
            select(Claim)
            .join(Paper, Paper.id == Claim.paper_id)
            .where(Paper.challenge_id == ctx.challenge_id, Paper.venue_id == venue,
                   Claim.key == key)
        )  # fmt: skip
        if row is None:
            raise NotFoundError(f"no claim {venue}/{key}")
        view = claim_view(row, venue)
    tols = [v.rel_tol for v in view.reported if v.rel_tol is not None]
    return row.id, view.id, tols[0] if tols else DEFAULT_REL_TOL


def _paper_of(ctx: ChallengeContext, logbook_id: int) -> str:
    with ctx.store.session() as session:
        venue = session.scalar(
            select(Paper.venue_id)
            .join(Logbook, Logbook.paper_id == Paper.id)
            .where(Logbook.id == logbook_id, Paper.challenge_id == ctx.challenge_id)
        )
    if venue is None:
        raise NotFoundError(f"no logbook {logbook_id}")
    return venue


def store_results(
    ctx: ChallengeContext, logbook_id: int, claim_row: int | None, results: list[ReplayResult],
    kind: str = "replay",
) -> None:  # fmt: skip
    """Write ``results`` to the ``replays`` table in one transaction (ids set on the results)."""
    with ctx.store.session() as session:
        rows = [
            Replay(logbook_id=logbook_id, claim_id=claim_row, run_id=r.run_id, kind=kind,
                   status=r.status, level=r.level, details=r.details, seconds=r.seconds)
            for r in results
        ]  # fmt: skip
        session.add_all(rows)
        session.flush()
        for result, row in zip(results, rows, strict=True):
            result.replay_id = row.id


def replay_logbook(
    ctx: ChallengeContext,
    logbook_id: int,
    *,
    claim: str | None = None,
    budget_seconds: float | None = None,
    memory_mb: int | None = None,
    isolate: bool | None = None,
) -> ReplayReport:
    """Replay the runs behind ``claim`` (every run without it) of one stored logbook, within
    ``budget_seconds`` in all; runs whose recorded duration exceeds what is left are queued."""
    settings = ctx.settings
    budget = float(budget_seconds if budget_seconds is not None else settings.replay_budget_seconds)
    memory = memory_mb if memory_mb is not None else settings.replay_memory_mb
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
    venue = _paper_of(ctx, logbook_id)
    record = record.model_copy(update={"paper_id": record.paper_id or venue})
    claim_row: int | None = None
    claim_id: str | None = None
    rel_tol = DEFAULT_REL_TOL
    if claim is not None:
        claim_row, claim_id, rel_tol = _claim_row(ctx, record, claim)
    isolate = isolation_available() if isolate is None else isolate
    report = ReplayReport(
        logbook_id=logbook_id, claim=claim_id, budget_seconds=budget,
        isolation=("user+network namespace (unshare -rn), rlimits, process-group kill"
                   if isolate else "rlimits and process-group kill only (network NOT blocked)"),
    )  # fmt: skip
    if not isolate:
        report.warnings.append(NO_NETWORK_WARNING)
    locate = locator(settings.resolved_files_dir())
    left = budget
    for run in runs_for_claim(record, claim_id):
        expected = run.duration_s or 0.0
        if run.exit_code not in (0, None):
            problem = {"problem": "the recorded run failed"}
            report.results.append(ReplayResult(run_id=run.id, status="skipped", details=problem))
            continue
        if expected > left or left < 1:
            report.results.append(ReplayResult(
                run_id=run.id, status="queued",
                details={"expected_seconds": expected, "budget_left": round(left, 3)}))  # fmt: skip
            continue
        result = replay_run(record, run, locate, timeout_s=left, memory_mb=memory,
                            rel_tol=rel_tol, isolate=isolate)  # fmt: skip
        left -= result.seconds
        report.results.append(result)
    store_results(ctx, logbook_id, claim_row, report.results)
    return report


def replay_all(
    ctx: ChallengeContext, *, budget_per_logbook: float, memory_mb: int | None = None,
    isolate: bool | None = None,
) -> list[ReplayReport]:  # fmt: skip
    """Replay the cheap runs of every logbook (newest revision per participant and paper);
    runs that do not fit in ``budget_per_logbook`` are queued."""
    with ctx.store.session() as session:
        targets = latest_logbook_ids(session, ctx.challenge_id)
    return [
        replay_logbook(ctx, logbook_id, budget_seconds=budget_per_logbook, memory_mb=memory_mb,
                       isolate=isolate)
        for logbook_id in targets
    ]  # fmt: skip
