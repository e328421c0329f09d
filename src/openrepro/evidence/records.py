"""Typed records of the judge: evidence items with checkable pointers, measurements, verdicts.

Evidence is what recorded runs did and produced; each item carries a :class:`Pointer` that code
can re-check against the stored logbook (a metric key + run + step, a run's output line, a file's
sha256). Testimony never becomes an evidence item.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

from openrepro.vocabulary import VERDICTS, ProvenanceLevel, Verdict

__all__ = [
    "FLAGS",
    "VERDICTS",
    "Decision",
    "EvidenceItem",
    "Flag",
    "Measurement",
    "Pointer",
    "ScaleFigures",
    "Verdict",
    "describe_pointer",
]

Flag = Literal[
    "injection_suspected",
    "testimony_disagrees",
    "unit_mismatch",
    "finite_horizon",
    "reduced_scale",
    "run_failed",
    "artifact_not_from_run",
    "metric_outside_run",
    # binding (docs/checks.md): an evidence-map entry that binds nothing
    "map_entry_unbound",
    # a file the logbook holds could not be read (a reader's refusal; the judge goes on)
    "evidence_unreadable",
    # the judge's own code failed on this claim (a bug to fix, logged with its traceback)
    "judge_error",
    # provenance checks (docs/provenance.md): evidence downgraded to testimony or contradicted
    "run_cell_inconsistent",
    "output_edited",
    "script_cannot_log_metric",
    "artifact_changed_after_run",
    "replay_mismatch",
    "attestation_mismatch",
    "artifact_copied",
    "run_times_inconsistent",
    "output_shows_failure",
    # a run a bundle's manifest declares (no tool recorded it): testimony until replayed/attested
    "run_self_declared",
    # human judgement (openrepro.evidence.human): consistency of the reviewers' answers
    "needs_human",
    "too_few_items",
    "too_few_reviewers",
    "low_agreement",
    "low_self_agreement",
    "inconsistent_repeats",
    "too_fast",
    "same_side",
    "self_reviewed",
    # check proposals (docs/checks.md): judged under the participant's own unconfirmed proposal
    "provisional",
]
FLAGS: tuple[Flag, ...] = get_args(Flag)


class Pointer(BaseModel):
    """Where a piece of evidence is, precisely enough for code to look again."""

    kind: Literal["metric", "output_line", "file", "table_cell"]
    run: str = ""  # run id (output lines) or run name (metrics)
    key: str = ""  # metric key
    step: int | None = None
    line: int | None = None  # 1-based line of the run's output
    path: str = ""  # file path in the logbook
    sha256: str = ""
    table: str = ""  # table cells: the table (a file's sha256, a cell id, "<run id>#<n>")
    row: int | None = None  # table cells: the data row, from 1
    column: str = ""  # table cells: the header's name


def describe_pointer(pointer: Pointer) -> str:
    """One line naming a pointer, as people read it."""
    if pointer.kind == "metric":
        return f"metric {pointer.key} (run {pointer.run}, step {pointer.step})"
    if pointer.kind == "output_line":
        return f"output line {pointer.line} of run {pointer.run}"
    if pointer.kind == "table_cell":
        where = pointer.path or f"table {pointer.table}"
        return f"{where}, row {pointer.row}, column {pointer.column}"
    return f"file {pointer.path} (sha256 {pointer.sha256[:16]})"


class EvidenceItem(BaseModel):
    """One numbered item shown to the extractor (LLM) or used directly by the code path."""

    number: int
    pointer: Pointer
    text: str  # what the item says, e.g. "claims/p1/C1/accuracy = 0.873 (run seed0, step 3)"
    value: float | None = None  # for metrics
    run_ok: bool = False  # produced by a recorded run that exited 0


class Measurement(BaseModel):
    """A measured value of the claim's metric, tied to its evidence."""

    value: float
    unit: str = ""
    metric: str = ""
    run: str = ""
    seed: str = ""
    pointer: Pointer
    run_ok: bool = True
    within_run: bool = True  # logged while a recorded run was running
    level: ProvenanceLevel = "self-recorded"  # provenance of the run it came from


class ScaleFigures(BaseModel):
    """A scale in comparable numbers (parameters, examples/tokens, steps); None = unknown. The
    paper's comes from the scale its claim states (:class:`openrepro.claims.values.Scale`, read by
    :func:`openrepro.evidence.decide.paper_scale`), a logbook's from the metrics it logs."""

    parameters: float | None = None
    data: float | None = None
    steps: float | None = None


class Decision(BaseModel):
    """What the decision table returns: the verdict, why, and the flags raised on the way."""

    verdict: Verdict
    rationale: str
    flags: list[Flag] = Field(default_factory=list)
    rule: str = ""  # the row of the table that decided
