"""Provenance levels of evidence and verdicts, weakest first (docs/design.md §3).

- ``testimony``: prose written by the participant or its agent; never enough to verify.
- ``self-recorded``: run cells, metrics and artifacts recorded on the participant's machine,
  internally consistent.
- ``reviewed``: a human judgement (a ``human`` check) given by reviewers independent of the
  logbook (organizers, invited reviewers) on files its recorded runs produced
  (:mod:`openrepro.evidence.human`); stronger than the participant's own review, which is
  ``self-recorded``, weaker than a re-run: nobody re-ran what produced the files.
- ``replayed``: openrepro re-ran the recorded command(s) and got matching outputs/metrics.
- ``attested``: the run happened on infrastructure the participant does not control and openrepro
  fetched its logs from there (an openrepro job, an HF Job).
"""

from __future__ import annotations

from collections.abc import Iterable

from openrepro.errors import ConfigError
from openrepro.vocabulary import PROVENANCE_LEVELS, ProvenanceLevel

__all__ = [
    "PROVENANCE_LEVELS",
    "ProvenanceLevel",
    "at_least",
    "check_level",
    "level_rank",
    "strongest",
    "weakest",
]


def check_level(level: str) -> ProvenanceLevel:
    """Return ``level`` as a :data:`ProvenanceLevel`, or raise ConfigError if it is not one."""
    if level not in PROVENANCE_LEVELS:
        raise ConfigError(
            f"unknown provenance level {level!r}; expected one of {', '.join(PROVENANCE_LEVELS)}"
        )
    return PROVENANCE_LEVELS[PROVENANCE_LEVELS.index(level)]


def level_rank(level: str) -> int:
    """Position of ``level`` in :data:`PROVENANCE_LEVELS` (0 = testimony)."""
    return PROVENANCE_LEVELS.index(check_level(level))


def at_least(level: str, minimum: str) -> bool:
    """True when ``level`` is as strong as ``minimum`` or stronger."""
    return level_rank(level) >= level_rank(minimum)


def strongest(levels: Iterable[str], default: ProvenanceLevel = "testimony") -> ProvenanceLevel:
    """The strongest of ``levels`` (``default`` when there are none)."""
    best = [check_level(level) for level in levels]
    return max(best, key=level_rank) if best else default


def weakest(levels: Iterable[str], default: ProvenanceLevel = "testimony") -> ProvenanceLevel:
    """The weakest of ``levels`` (``default`` when there are none)."""
    worst = [check_level(level) for level in levels]
    return min(worst, key=level_rank) if worst else default
