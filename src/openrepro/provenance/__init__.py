"""Evidence provenance: levels, consistency checks, replays and attested runs (docs/provenance.md).

Levels (:mod:`openrepro.provenance.levels`) are imported eagerly and have no dependencies; the
checks, replays and attestations are loaded on first use, so the judge can import the levels
without an import cycle.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openrepro.provenance.levels import (
    PROVENANCE_LEVELS,
    ProvenanceLevel,
    at_least,
    check_level,
    level_rank,
    strongest,
    weakest,
)

if TYPE_CHECKING:
    from openrepro.provenance.attest import (
        JobEvidence,
        attest_logbook,
        attest_run,
        cited_jobs,
    )
    from openrepro.provenance.checks import (
        EvidenceLevels,
        RunStanding,
        apply_levels,
        check_record,
        stored_levels,
    )
    from openrepro.provenance.replay import (
        ReplayReport,
        ReplayResult,
        isolation_available,
        replay_all,
        replay_logbook,
        replay_run,
        runs_for_claim,
    )

__all__ = [
    "PROVENANCE_LEVELS",
    "EvidenceLevels",
    "JobEvidence",
    "ProvenanceLevel",
    "ReplayReport",
    "ReplayResult",
    "RunStanding",
    "apply_levels",
    "at_least",
    "attest_logbook",
    "attest_run",
    "check_level",
    "check_record",
    "cited_jobs",
    "isolation_available",
    "level_rank",
    "replay_all",
    "replay_logbook",
    "replay_run",
    "runs_for_claim",
    "stored_levels",
    "strongest",
    "weakest",
]

_LAZY = {
    "JobEvidence": "attest",
    "attest_logbook": "attest",
    "attest_run": "attest",
    "cited_jobs": "attest",
    "EvidenceLevels": "checks",
    "RunStanding": "checks",
    "apply_levels": "checks",
    "check_record": "checks",
    "stored_levels": "checks",
    "ReplayReport": "replay",
    "ReplayResult": "replay",
    "isolation_available": "replay",
    "replay_all": "replay",
    "replay_logbook": "replay",
    "replay_run": "replay",
    "runs_for_claim": "replay",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'openrepro.provenance' has no attribute {name!r}")
    return getattr(importlib.import_module(f"openrepro.provenance.{module}"), name)
