"""Attested runs: a run cell that cites a compute job is checked against the platform's logs.

Which job a run cites is :func:`openrepro.jobs.jobs_cited_by_run` (the grammar the board uses
too; the first job a run cites is the run's). openrepro fetches that job from the platform
(:func:`openrepro.jobs.get_job` and :func:`openrepro.jobs.read_logs`; the local backend's log
file, HF's ``fetch_job_logs``), and the run becomes
``attested`` evidence when the job completed with the run's exit code and every recorded output
line appears in the platform's copy of the log; otherwise it is ``mismatched`` and the judge
flags ``attestation_mismatch``. The participant controls neither the log nor the exit code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import OpenReproError
from openrepro.jobs import get_job, jobs_cited_by_run, read_logs
from openrepro.logbooks.records import Run
from openrepro.logbooks.service import load_logbook
from openrepro.provenance.replay import ReplayResult, compare_outputs, store_results
from openrepro.store.tables_provenance import Replay

__all__ = [
    "JobEvidence",
    "JobFetcher",
    "attest_if_cited",
    "attest_logbook",
    "attest_run",
    "platform_fetcher",
]


class JobEvidence(BaseModel):
    """What the platform says about a job."""

    job_id: str
    backend: str = ""
    status: str = ""  # scheduling | running | completed | error | canceled
    exit_code: int | None = None
    logs: str = ""


JobFetcher = Callable[[str], JobEvidence | None]


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


def platform_fetcher(ctx: ChallengeContext) -> JobFetcher:
    """What the challenge's job platform says about a job (None for a job it does not know)."""

    def fetch(job_id: str) -> JobEvidence | None:
        try:
            view = get_job(ctx, job_id)
            logs = read_logs(ctx, job_id)
        except OpenReproError:
            return None
        return JobEvidence(job_id=job_id, backend=view.backend, status=view.status,
                           exit_code=view.exit_code, logs=logs)  # fmt: skip

    return fetch


def attest_logbook(
    ctx: ChallengeContext, logbook_id: int, *, fetch: JobFetcher | None = None
) -> list[ReplayResult]:
    """Attest every run of a stored logbook that cites a job; results go to ``replays``
    (kind ``attest``). A job the platform does not know is a mismatch."""
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
    fetcher = fetch or platform_fetcher(ctx)
    results: list[ReplayResult] = []
    for run in record.runs:
        for job_id in jobs_cited_by_run(record, run):
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
    if done is not None or not any(jobs_cited_by_run(record, run) for run in record.runs):
        return
    attest_logbook(ctx, logbook_id)
