"""The storage layer: SQLAlchemy models, sessions and Alembic migrations."""

from openrepro.store.db import Store, head_revision, make_engine, normalize_url
from openrepro.store.models import (
    CLAIM_KINDS,
    JOB_STATUSES,
    VERDICTS,
    Base,
    Challenge,
    Claim,
    ClaimEdit,
    ClaimExtraction,
    Job,
    LLMCacheEntry,
    Logbook,
    Paper,
    Participant,
    Verdict,
    VerdictEdit,
)

__all__ = [
    "CLAIM_KINDS",
    "JOB_STATUSES",
    "VERDICTS",
    "Base",
    "Challenge",
    "Claim",
    "ClaimEdit",
    "ClaimExtraction",
    "Job",
    "LLMCacheEntry",
    "Logbook",
    "Paper",
    "Participant",
    "Store",
    "Verdict",
    "VerdictEdit",
    "head_revision",
    "make_engine",
    "normalize_url",
]
