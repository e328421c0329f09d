"""Attested runs: a run cell that cites a compute job is checked against the platform's logs.

A run cites a job when its cell's header has ``job``/``job_id`` or its title, command, body or
output mentions a job id (``local:12`` for openrepro's local backend, ``hf:<id>`` for an HF Job).
openrepro fetches that job from the platform (:mod:`openrepro.jobs`: ``get_job`` and
``read_logs``; the local backend's log file, HF's ``fetch_job_logs``), and the run becomes
``attested`` evidence when the job completed with the run's exit code and every recorded output
line appears in the platform's copy of the log; otherwise it is ``mismatched`` and the judge
flags ``attestation_mismatch``. The participant controls neither the log nor the exit code.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import OpenReproError
from openrepro.logbooks.records import LogbookRecord, Run
from openrepro.logbooks.service import load_logbook
from openrepro.provenance.replay import ReplayResult, compare_outputs, store_results
from openrepro.store.tables_provenance import Replay

__all__ = [
    "JOB_ID_RE",
    "JobEvidence",
    "JobFetcher",
    "attest_if_cited",
    "attest_logbook",
    "attest_run",
    "cited_jobs",
]

JOB_ID_RE = re.compile(r"(?<![\w:/-])((?:local:\d+)|(?:hf:[A-Za-z0-9][A-Za-z0-9_-]{2,}))\b")


class JobEvidence(BaseModel):
    """What the platform says about a job."""

    job_id: str
    backend: str = ""
    status: str = ""  # scheduling | running | completed | error | canceled
    exit_code: int | None = None
    logs: str = ""


JobFetcher = Callable[[str], JobEvidence | None]


def cited_jobs(record: LogbookRecord, run: Run) -> list[str]:
    """Job ids the run's cell cites (header ``job``/``job_id``, else its text)."""
    cells = {cell.id: cell for page in record.pages for cell in page.cells}
    cell = cells.get(run.id)
    found: list[str] = []
    if cell is not None:
        for key in ("job", "job_id"):
            value = cell.meta.get(key)
            if isinstance(value, str) and value:
                found.append(value)
    text = "\n".join([run.title, " ".join(run.command), cell.body if cell else run.output])
    found += JOB_ID_RE.findall(text)
    return list(dict.fromkeys(found))


def attest_run(run: Run, job: JobEvidence, *, rel_tol: float = 1e-9) -> ReplayResult:
    """Compare a run cell with the platform's record of the job it cites."""
    problems: list[str] = []
    if job.status != "completed" and not (job.status == "error" and run.exit_code):
        problems.append(f"the job's status is {job.status or 'unknown'}")
    if run.exit_code is not None and job.exit_code is not None and job.exit_code != run.exit_code:
        problems.append(f"the job exited {job.exit_code}, the logbook says {run.exit_code}")
    missing = compare_outputs(run.output, job.logs, rel_tol)
    if missing:
        problems.append(f"{len(missing)} output line(s) of the logbook are not in the job's log")
    details: dict[str, Any] = {
        "job": job.job_id, "backend": job.backend, "job_status": job.status,
        "job_exit_code": job.exit_code, "problems": problems, "output_lines_missing": missing[:20],
    }  # fmt: skip
    if problems:
        return ReplayResult(run_id=run.id, status="mismatched", level="testimony", details=details)
    return ReplayResult(run_id=run.id, status="matched", level="attested", details=details)


def _platform_fetcher(ctx: ChallengeContext) -> JobFetcher | None:
    """``openrepro.jobs``' ``get_job`` + ``read_logs``, or None where that package lacks them."""
    try:
        jobs: Any = importlib.import_module("openrepro.jobs")
    except ImportError:
        return None
    if not (hasattr(jobs, "get_job") and hasattr(jobs, "read_logs")):
        return None

    def fetch(job_id: str) -> JobEvidence | None:
        try:
            view = jobs.get_job(ctx, job_id)
            logs = jobs.read_logs(ctx, job_id)
        except OpenReproError:
            return None
        return JobEvidence(job_id=job_id, backend=str(getattr(view, "backend", "")),
                           status=str(getattr(view, "status", "")),
                           exit_code=getattr(view, "exit_code", None), logs=str(logs))  # fmt: skip

    return fetch


def attest_logbook(
    ctx: ChallengeContext, logbook_id: int, *, fetch: JobFetcher | None = None
) -> list[ReplayResult]:
    """Attest every run of a stored logbook that cites a job; results go to ``replays``
    (kind ``attest``). A job the platform does not know is a mismatch."""
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
    fetcher = fetch or _platform_fetcher(ctx)
    if fetcher is None:
        return []
    results: list[ReplayResult] = []
    for run in record.runs:
        for job_id in cited_jobs(record, run):
            job = fetcher(job_id)
            if job is None:
                details = {"job": job_id, "problems": ["no such job on the platform"]}
                results.append(
                    ReplayResult(run_id=run.id, status="mismatched", level="testimony",
                                 details=details)
                )  # fmt: skip
            else:
                results.append(attest_run(run, job))
            break  # the first cited job is the run's
    if results:
        store_results(ctx, logbook_id, None, results, kind="attest")
    return results


def attest_if_cited(ctx: ChallengeContext, logbook_id: int) -> None:
    """Attest a logbook's job-citing runs once (before judging it); nothing when none cite a
    job, when they were attested already, or when no job platform is available."""
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
        done = session.scalar(
            select(Replay.id).where(Replay.logbook_id == logbook_id, Replay.kind == "attest")
        )
    if done is not None or not any(cited_jobs(record, run) for run in record.runs):
        return
    attest_logbook(ctx, logbook_id)
