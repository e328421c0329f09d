"""The fixed words of openrepro's record, defined once: the verdict values and the provenance
levels (see docs/design.md, "Words"). The store's check constraints, the judge, outcomes and the
frozen dataset all take them from here."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["PROVENANCE_LEVELS", "VERDICTS", "ProvenanceLevel", "Verdict"]

#: A claim's verdict in one logbook.
Verdict = Literal["verified", "falsified", "toy", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

#: Provenance levels of evidence and verdicts, weakest first. ``reviewed``: a human judgement
#: given by reviewers independent of the logbook (organizers, invited reviewers) on outputs of
#: its recorded runs; the participant's own review of their outputs stays ``self-recorded``.
ProvenanceLevel = Literal["testimony", "self-recorded", "reviewed", "replayed", "attested"]
PROVENANCE_LEVELS: tuple[ProvenanceLevel, ...] = get_args(ProvenanceLevel)
