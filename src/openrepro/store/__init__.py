"""The storage layer: SQLAlchemy models, sessions and Alembic migrations."""

# Each domain's tables live in their own module; importing them registers them on Base.metadata.
from openrepro.store import (  # noqa: F401
    journal,
    tables_checks,
    tables_identity,
    tables_jobs,
    tables_organizer,
    tables_outcomes,
    tables_provenance,
    tables_queue,
    tables_review,
)
from openrepro.store.db import Store, head_revision, make_engine, normalize_url
from openrepro.store.models import (
    CLAIM_KINDS,
    JOB_STATUSES,
    ROLES,
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
    "ROLES",
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
