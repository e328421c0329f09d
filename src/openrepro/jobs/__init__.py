"""Compute jobs (local subprocesses or Hugging Face Jobs) paid from a per-participant credit
ledger. See ``docs/jobs.md``."""

from openrepro.jobs.citations import JOB_ID_RE, jobs_cited_by, jobs_cited_by_run
from openrepro.jobs.records import (
    TERMINAL,
    Balance,
    JobView,
    ReconcileReport,
    format_job_id,
)
from openrepro.jobs.service import (
    balance,
    cancel_job,
    flavor_prices,
    follow_logs,
    get_job,
    grant_credit,
    list_jobs,
    read_logs,
    reconcile,
    run_job,
    run_uv_job,
    wait_job,
)

__all__ = [
    "JOB_ID_RE",
    "TERMINAL",
    "Balance",
    "JobView",
    "ReconcileReport",
    "balance",
    "cancel_job",
    "flavor_prices",
    "follow_logs",
    "format_job_id",
    "get_job",
    "grant_credit",
    "jobs_cited_by",
    "jobs_cited_by_run",
    "list_jobs",
    "read_logs",
    "reconcile",
    "run_job",
    "run_uv_job",
    "wait_job",
]
