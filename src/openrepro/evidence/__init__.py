"""Evidence: what a logbook's recorded runs did and produced, and what code concludes from it.

The layer below the judge's workflow (see docs/design.md, "The judge"):

- :mod:`~openrepro.evidence.records`: evidence items with checkable pointers, measurements,
  scales, decisions, the verdict and flag vocabularies;
- :mod:`~openrepro.evidence.gather`: evidence items and measurements read from a logbook record,
  pointer re-checks, text hygiene and injection detection;
- :mod:`~openrepro.evidence.decide`: the comparison of measured with reported values and the
  decision table (every decision names its row);
- :mod:`~openrepro.evidence.levels`: provenance levels, weakest first;
- :mod:`~openrepro.evidence.checks`: consistency checks of self-recorded evidence and each run's
  provenance level (from stored replays and attestations);
- :mod:`~openrepro.evidence.relations`: a claim's check evaluated over the values bound to its
  quantities, with statistics over seeds;
- :mod:`~openrepro.evidence.agreement`: agreement statistics of human reviewers' answers (Cohen's
  kappa, Krippendorff's alpha);
- :mod:`~openrepro.evidence.testimony`: what the participant's prose says (never evidence).

Nothing here runs a model, replays a command or writes to the store; ``judge``, ``provenance``
(replay, attestation) and ``recheck`` build on it.
"""

from openrepro.evidence.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from openrepro.evidence.checks import (
    DOWNGRADING_FLAGS,
    EvidenceLevels,
    RunStanding,
    apply_levels,
    check_record,
    stored_levels,
    verdict_level,
)
from openrepro.evidence.decide import (
    DEFAULT_REL_TOL,
    Comparison,
    compare,
    decide,
    is_quantified_over_all,
    parse_scale_number,
    scale_ratio,
)
from openrepro.evidence.gather import (
    check_pointer,
    claim_metric_prefix,
    evidence_items,
    looks_like_injection,
    measurements,
    within_recorded_run,
)
from openrepro.evidence.levels import (
    PROVENANCE_LEVELS,
    ProvenanceLevel,
    at_least,
    check_level,
    level_rank,
    strongest,
    weakest,
)
from openrepro.evidence.records import (
    FLAGS,
    VERDICTS,
    Decision,
    EvidenceItem,
    Flag,
    Measurement,
    Pointer,
    ScaleFigures,
    Verdict,
)
from openrepro.evidence.relations import Bound, Evaluation, evaluate
from openrepro.evidence.testimony import stance_of, testimony_stance

__all__ = [
    "DEFAULT_REL_TOL",
    "DOWNGRADING_FLAGS",
    "FLAGS",
    "PROVENANCE_LEVELS",
    "VERDICTS",
    "Bound",
    "Comparison",
    "Decision",
    "Evaluation",
    "EvidenceItem",
    "EvidenceLevels",
    "Flag",
    "Measurement",
    "Pointer",
    "ProvenanceLevel",
    "RunStanding",
    "ScaleFigures",
    "Verdict",
    "apply_levels",
    "at_least",
    "check_level",
    "check_pointer",
    "check_record",
    "claim_metric_prefix",
    "cohen_kappa",
    "compare",
    "decide",
    "evaluate",
    "evidence_items",
    "is_quantified_over_all",
    "krippendorff_alpha",
    "level_rank",
    "looks_like_injection",
    "measurements",
    "parse_scale_number",
    "percent_agreement",
    "scale_ratio",
    "stance_of",
    "stored_levels",
    "strongest",
    "testimony_stance",
    "verdict_level",
    "weakest",
    "within_recorded_run",
]
