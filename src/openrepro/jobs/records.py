"""Typed records of the jobs domain: what the CLI prints, the board shows and the judge reads.

A job's public id is ``<backend>:<n>``: ``local:12`` or ``hf:13``, where ``n`` is the openrepro
store id (unique across backends). ``get_job`` also accepts a bare ``n`` and, for Hugging Face
jobs, ``hf:<the Hub's own 24-hex job id>``. The id is exported to the job as ``OPENREPRO_JOB_ID``
so a logbook run cell can cite it (``"job_id": "local:12"`` in its JSON header).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

__all__ = [
    "BACKENDS",
    "TERMINAL",
    "Backend",
    "Balance",
    "JobStatus",
    "JobView",
    "ReconcileReport",
    "format_job_id",
]

Backend = Literal["local", "hf"]
BACKENDS: tuple[Backend, ...] = ("local", "hf")
JobStatus = Literal["scheduling", "running", "completed", "error", "canceled"]
TERMINAL: tuple[str, ...] = ("completed", "error", "canceled")


def format_job_id(backend: str, store_id: int) -> str:
    """The public id of a job: ``<backend>:<store id>``."""
    return f"{backend}:{store_id}"


class JobView(BaseModel):
    """One job as everyone outside the jobs package sees it (stable: the board and the judge)."""

    id: str = Field(description="Public id, `local:12` or `hf:13`.")
    backend: Backend
    external_id: str | None = Field(
        default=None, description="The backend's own id (HF job id; the local process group)."
    )
    url: str | None = Field(default=None, description="The job's page on the Hub (HF only).")
    flavor: str
    command: list[str]
    status: JobStatus
    exit_code: int | None = None
    error: str | None = None
    timeout_s: float
    price_per_hour_usd: float
    reserved_usd: float = Field(description="Credit held at launch: price x timeout.")
    cost_usd: float | None = Field(default=None, description="Charged cost once the job ended.")
    cost_is_estimate: bool = Field(
        description="True on HF Jobs (running seconds x list price; the Hub has no billing API)."
    )
    settled: bool = Field(description="The reservation was charged and released in the ledger.")
    participant: str | None = Field(default=None, description="Participant handle.")
    paper: str | None = Field(default=None, description="Paper venue id.")
    claim: str | None = Field(default=None, description="Claim key, e.g. `C2`.")
    labels: dict[str, str] = Field(default_factory=dict)
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    log_path: str | None = Field(
        default=None, description="Local log file (HF logs are copied there once the job ends)."
    )


class Balance(BaseModel):
    """A participant's credit, derived from the append-only ledger (USD)."""

    participant: str
    budget_usd: float = Field(description="Starting credit (config default or the participant's).")
    granted_usd: float = Field(description="Sum of organizer grants.")
    reserved_usd: float = Field(description="Held by jobs that have not ended yet.")
    spent_usd: float = Field(description="Charged for jobs that ended.")
    available_usd: float = Field(description="budget + granted - reserved - spent.")


class ReconcileReport(BaseModel):
    """What one ``reconcile`` pass settled, and what it could not check."""

    settled: list[str] = Field(default_factory=list, description="Job ids settled by this pass.")
    updated: list[str] = Field(default_factory=list, description="Job ids whose status moved.")
    warnings: list[str] = Field(default_factory=list)
