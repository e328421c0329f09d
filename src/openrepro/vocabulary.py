"""The fixed words of openrepro's record, defined once: the verdict values and the provenance
levels (see docs/design.md, "Words"). The store's check constraints, the judge, outcomes and the
frozen dataset all take them from here."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["PROVENANCE_LEVELS", "VERDICTS", "ProvenanceLevel", "Verdict"]

#: A claim's verdict in one logbook.
Verdict = Literal["verified", "falsified", "toy", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

#: Provenance levels of evidence and verdicts, weakest first.
ProvenanceLevel = Literal["testimony", "self-recorded", "replayed", "attested"]
PROVENANCE_LEVELS: tuple[ProvenanceLevel, ...] = get_args(ProvenanceLevel)
