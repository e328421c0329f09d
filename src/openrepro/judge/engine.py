"""Judging one claim in one logbook: by its check, never by comparing whatever was logged with
whatever number the claim's text holds.

A claim with a check is judged by its relation over the values bound to its quantities (exact
key, the participant's evidence map, name matching, and, with judges, an LLM choosing among
numbered pointers: :mod:`openrepro.evidence.binding`), each read by code at its pointer. When no
quantity binds, the verdict is ``inconclusive`` and says why (the measurements came only from
failed runs: R1, from outside any run: R2, from runs downgraded to testimony: R2a, else R3 with
each quantity's binding reason). A claim without a check is ``inconclusive`` under rule
:data:`NO_CHECK_RULE` ("no check yet"): the old reported-value comparison is gone (it compared
the first metric logged with the first number of the claim's text). Testimony is never shown to
a model and never decides.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from openrepro.claims.checks.records import Check, Relation
from openrepro.claims.records import ClaimView
from openrepro.claims.values import ReportedValue
from openrepro.errors import LLMError, LLMOutputError, LogbookError, StoreError
from openrepro.evidence.binding import (
    CheckBinding,
    Locate,
    bind_chosen,
    bind_claim,
    pointer_candidates,
)
from openrepro.evidence.checks import EvidenceLevels, apply_levels, verdict_level
from openrepro.evidence.decide import (
    SCALE_FACTOR,
    compare,
    decide,
    logbook_scale,
    paper_scale,
    scale_ratio,
    units_disagree,
)
from openrepro.evidence.gather import (
    looks_like_injection,
    measurements,
    neutralise,
)
from openrepro.evidence.human import HumanReviews, evaluate_human
from openrepro.evidence.levels import ProvenanceLevel
from openrepro.evidence.records import FLAGS, Decision, Flag, Measurement, Pointer
from openrepro.evidence.relations import evaluate
from openrepro.evidence.testimony import testimony_stance
from openrepro.judge.judges import (
    JUDGE_VERSION,
    POINTER_PROMPT_VERSION,
    PROMPT_VERSION,
    Judges,
    judge_config,
)
from openrepro.llm import Message, Usage
from openrepro.logbooks.records import LogbookRecord

__all__ = [
    "JUDGE_VERSION",
    "NO_CHECK_RULE",
    "POINTER_PROMPT_VERSION",
    "PROMPT_VERSION",
    "JudgeCase",
    "JudgedClaim",
    "judge_claim",
    "judge_config",
    "judge_error_claim",
    "unreadable_claim",
]

#: the rule of a claim without a check: inconclusive, "no check yet"
NO_CHECK_RULE = "N0"
NO_CHECK_REASON = (
    "no check yet: nothing is compared without a check (an organizer's, a confirmed proposal "
    "or a drafted one); propose one in checks.json"
)
_log = logging.getLogger(__name__)
NO_JUDGES = Judges()


class JudgeCase(BaseModel):
    """One claim of one logbook as the judge sees it: the logbook ``record``, the claim's
    ``view``, the ``check`` that judges it (default: the view's own; the service passes the
    effective check, :func:`openrepro.claims.proposals.effective_check`) and whether that check
    is ``provisional`` (an unconfirmed proposal of ``participant``, or a model's draft), the
    runs' provenance ``levels`` (:func:`openrepro.evidence.checks.stored_levels`), ``locate``
    (the stored bytes of the logbook's files; without it no table file is read) and the human
    ``reviews`` of a ``human`` check."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    record: LogbookRecord
    view: ClaimView
    check: Check | None = None
    provisional: bool = False
    participant: str = ""
    levels: EvidenceLevels | None = None
    locate: Locate | None = None
    reviews: HumanReviews | None = None

    @model_validator(mode="before")
    @classmethod
    def _check_of_view(cls, data: Any) -> Any:
        """Without a ``check``, the view's own judges; with one, the view carries it."""
        if not isinstance(data, dict) or not isinstance(data.get("view"), ClaimView):
            return data
        view: ClaimView = data["view"]
        if "check" not in data:
            return {**data, "check": view.check}
        if data["check"] != view.check:
            return {**data, "view": view.model_copy(update={"check": data["check"]})}
        return data


class JudgedClaim(BaseModel):
    claim_id: str
    decision: Decision
    path: Literal["deterministic", "llm", "none"]
    evidence: list[Pointer] = Field(default_factory=list)
    measured: list[float] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    provenance: ProvenanceLevel = "testimony"  # the level of the evidence the verdict rests on
    #: for a claim judged by its check: the evaluation (check, bound values, test, numbers)
    details: dict[str, Any] = Field(default_factory=dict)


def _extra_flags(record: LogbookRecord, claim: ClaimView, verdict_hint: str | None) -> list[Flag]:
    flags: list[Flag] = []
    texts = [t.text for t in record.testimony] + [r.output for r in record.runs]
    if any(looks_like_injection(text) for text in texts):
        flags.append("injection_suspected")
    produced = {ref.sha256 for run in record.runs for ref in run.produced}
    if any(a.file.sha256 not in produced for a in record.artifacts):
        flags.append("artifact_not_from_run")
    stance = testimony_stance(record, claim)
    if (stance == "positive" and verdict_hint == "falsified") or (
        stance == "negative" and verdict_hint == "verified"
    ):
        flags.append("testimony_disagrees")
    return flags


def _unbound(
    record: LogbookRecord,
    claim: ClaimView,
    found: list[Measurement],
    levels: EvidenceLevels | None,
    binding: CheckBinding | None,
) -> JudgedClaim:
    """``inconclusive``: no quantity of the check bound. The reason is the measurements' (a
    failed run: R1, outside any run: R2, downgraded runs: R2a), else each quantity's binding
    reason (R3). Nothing is compared with the claim's text."""
    found, provenance_flags = apply_levels(record, claim.id, found, levels)
    usable = [m for m in found if m.within_run and m.run_ok and m.level != "testimony"]
    decision = decide(compare([] if usable else found, ReportedValue(value=0, text="")))
    if decision.rule == "R3":
        bindings = binding.bindings if binding else []
        reasons = [f"{b.quantity}: {b.reason}" for b in bindings if b.reason]
        decision.rationale = "no quantity of the check is bound" + (
            f" ({'; '.join(reasons)})" if reasons else ""
        )
    extra = _extra_flags(record, claim, decision.verdict)
    decision.flags = list(dict.fromkeys([*decision.flags, *provenance_flags, *extra]))
    return JudgedClaim(claim_id=claim.id, decision=decision,
                       path="deterministic" if found else "none",
                       evidence=[m.pointer for m in found], measured=[m.value for m in found],
                       provenance=verdict_level([]))  # fmt: skip


def _no_check(record: LogbookRecord, claim: ClaimView) -> JudgedClaim:
    """A claim without a check: ``inconclusive`` under :data:`NO_CHECK_RULE`, whatever was
    logged (no number of the claim's text is compared with anything)."""
    decision = Decision(verdict="inconclusive", rule=NO_CHECK_RULE, rationale=NO_CHECK_REASON,
                        flags=_extra_flags(record, claim, None))  # fmt: skip
    return JudgedClaim(claim_id=claim.id, decision=decision, path="none")


class _Choice(BaseModel):
    choices: list[int]


def _choice_model(count: int, quantities: int) -> type[_Choice]:
    """One pointer number (0 = none) per quantity, restricted to the list: none can be made up."""
    number: Any = Literal[tuple(range(0, count + 1))]
    choices: Any = (list[number], Field(min_length=quantities, max_length=quantities))
    return create_model("PointerChoice", __base__=_Choice, choices=choices)


def _choose_pointers(
    judges: Judges,
    record: LogbookRecord,
    claim: ClaimView,
    binding: CheckBinding,
    locate: Locate | None,
    levels: EvidenceLevels | None,
) -> tuple[CheckBinding, Usage]:
    """Rule 4 of binding: each of the ``judges`` answers, for every quantity nothing else bound,
    the number of a candidate pointer (or 0); a pointer binds only when every judge chose it,
    and code reads the values there (:func:`~openrepro.evidence.binding.bind_chosen`)."""
    assert claim.check is not None
    usage = Usage()
    unbound = [b.quantity for b in binding.bindings if b.how == "unbound"]
    candidates = [p for p in pointer_candidates(record, locate)
                  if not looks_like_injection(p.describe())]  # fmt: skip
    if not unbound or not candidates:
        return binding, usage
    described = {q.name: q for q in claim.check.all_quantities()}
    wanted = "\n".join(
        f"- {name}: " + neutralise(", ".join(part for part in (
            described[name].description, described[name].unit, described[name].setting,
            described[name].dataset) if part) or name)
        for name in unbound
    )  # fmt: skip
    listing = "\n".join(f"[{n}] {neutralise(p.describe())}" for n, p in enumerate(candidates, 1))
    messages = [
        Message(role="system", content=(
            "You match the quantities of a claim to numbered data columns of a reproduction "
            "attempt. For each quantity, in the order given, answer the number of the column "
            "that measures it, or 0 if none does. Reply with JSON only.")),
        Message(role="user", content=(
            f"Claim: {neutralise(claim.text, 400)}\nCheck: {claim.check.describe()}\n"
            f"Quantities, in order:\n{wanted}\n\nColumns:\n{listing}\n\n"
            '\nReply: {"choices": [one number per quantity]}')),
    ]  # fmt: skip
    schema = _choice_model(len(candidates), len(unbound))
    answers: list[list[int]] = []
    for judge in judges.clients():  # opened here, by the first claim that needs them
        try:
            result = judge.complete(messages, schema, prompt_version=POINTER_PROMPT_VERSION,
                                    max_tokens=64)  # fmt: skip
        except LLMOutputError as exc:
            usage.add(Usage.model_validate(exc.usage))
            return binding, usage  # a judge without an answer: the panel does not agree
        usage.add(result.usage)
        answers.append(result.value.choices)
    chosen = {}
    out = binding.model_copy(deep=True)
    for i, name in enumerate(unbound):
        picks = {answer[i] for answer in answers}
        if len(picks) == 1 and 0 not in picks:
            chosen[name] = candidates[picks.pop() - 1]
        elif len(picks) > 1:
            for b in out.bindings:
                if b.quantity == name and b.how == "unbound":
                    shown = ", ".join(str(p) for p in sorted(picks))
                    b.reason = f"{b.reason}; the judges disagree on the pointer ({shown})"
    return bind_chosen(record, claim.id, out, chosen, locate=locate, levels=levels), usage


def _by_check(
    record: LogbookRecord,
    claim: ClaimView,
    found: list[Measurement],
    levels: EvidenceLevels | None,
    locate: Locate | None,
    judges: Judges = NO_JUDGES,
) -> tuple[JudgedClaim | None, CheckBinding, Usage]:
    """The claim judged by its check (rule ``K``: the check's own rule decides, see
    :mod:`openrepro.evidence.relations`), or None when nothing that counts binds any of its
    quantities (then :func:`_unbound` says why); with the binding of
    every quantity (:func:`~openrepro.evidence.binding.bind_claim`: exact key, evidence map,
    name match)."""
    assert claim.check is not None
    binding = bind_claim(record, claim.id, claim.check, found, claim_key=claim.key,
                         locate=locate, levels=levels,
                         hints=[v.metric for v in claim.reported])  # fmt: skip
    usage = Usage()
    if judges:
        binding, usage = _choose_pointers(judges, record, claim, binding, locate, levels)
    bound, used = binding.bound, binding.used
    if not bound:
        return None, binding, usage
    values = [v for b in bound for v in [*b.seeds, *(y for _, y in b.points)]]
    mismatch = next((r for r in claim.reported if units_disagree(r, values)), None)
    if mismatch is not None:  # a percentage against fractions: not compared (R4)
        decision = Decision(verdict="inconclusive", rule="R4", flags=["unit_mismatch"],
                            rationale=f"paper reports {mismatch.text}, the bound values look "
                            "like another unit")  # fmt: skip
        extra = _extra_flags(record, claim, decision.verdict)
        decision.flags = list(dict.fromkeys([*decision.flags, *binding.flags, *extra]))
        return JudgedClaim(
            claim_id=claim.id, decision=decision, path="deterministic", usage=usage,
            evidence=[m.pointer for m in used], measured=[m.value for m in used],
            provenance=verdict_level(used),
            details={"bindings": [b.model_dump(mode="json") for b in binding.bindings]},
        ), binding, usage  # fmt: skip
    ratio = scale_ratio(paper_scale(claim.scale), logbook_scale(record, claim.id))
    reduced = ratio is not None and ratio >= SCALE_FACTOR
    result = evaluate(claim.check, bound, reduced_scale=reduced)
    flags: list[Flag] = [f for f in FLAGS if f in result.flags]
    rationale = "; ".join(part for part in (result.description, result.test, result.detail) if part)
    decision = Decision(verdict=result.verdict, rule=f"K:{result.rule}",
                        rationale=f"{result.rule_name}: {rationale}", flags=flags)  # fmt: skip
    extra = _extra_flags(record, claim, decision.verdict)
    decision.flags = list(dict.fromkeys([*decision.flags, *binding.flags, *extra]))
    _say_unreadable(decision, binding)
    details = result.model_dump(mode="json")
    details["bindings"] = [b.model_dump(mode="json") for b in binding.bindings]
    chose = any(b.how == "llm" for b in binding.bindings)
    return JudgedClaim(
        claim_id=claim.id, decision=decision, path="llm" if chose else "deterministic",
        usage=usage,
        evidence=[m.pointer for m in used], measured=[m.value for m in used],
        provenance=verdict_level(used), details=details,
    ), binding, usage  # fmt: skip


def _say_unreadable(decision: Decision, binding: CheckBinding) -> None:
    """A table that could not be read is named in the rationale (``evidence_unreadable``)."""
    if binding.unreadable:
        decision.rationale += f" (unreadable: {'; '.join(binding.unreadable)})"


def judge_error_claim(claim_id: str, problem: Exception) -> JudgedClaim:
    """The verdict of a claim on which the judge's own code failed (an exception that is not a
    reader's :class:`~openrepro.errors.LogbookError`): ``inconclusive``, rule ``J1``, flag
    ``judge_error``, the reason naming it a judge error; the judge goes on. Never "evidence
    could not be read": the logbook is not at fault."""
    what = f"{type(problem).__name__}: {problem}" if str(problem) else type(problem).__name__
    decision = Decision(verdict="inconclusive", rule="J1",
                        rationale=f"judge error (a fault of the judge, not of the logbook): "
                                  f"{what}; reported to the organizers",
                        flags=["judge_error"])  # fmt: skip
    return JudgedClaim(claim_id=claim_id, decision=decision, path="none")


def unreadable_claim(claim_id: str, problem: Exception) -> JudgedClaim:
    """The verdict of a claim whose evidence could not be read at all (a reader or binder
    error): ``inconclusive`` with the reason and ``evidence_unreadable``; the judge goes on."""
    decision = Decision(verdict="inconclusive", rule="E1",
                        rationale=f"the logbook's evidence could not be read: {problem}",
                        flags=["evidence_unreadable"])  # fmt: skip
    return JudgedClaim(claim_id=claim_id, decision=decision, path="none")


def _with_bindings(
    judged: JudgedClaim, binding: CheckBinding | None, usage: Usage | None = None
) -> JudgedClaim:
    """An unbound verdict (R1-R3) that still says how each quantity was (not) bound, with the
    flags binding raised (an evidence-map entry that bound nothing), and the tokens a pointer
    choice spent."""
    if usage is not None:
        judged.usage.add(usage)
    if binding is None or not binding.bindings:
        return judged
    shown = ("map_entry_unbound", "evidence_unreadable", "artifact_copied",
             "artifact_changed_after_run")  # fmt: skip
    extra = [f for f in binding.flags if f in shown]
    judged.decision.flags = list(dict.fromkeys([*judged.decision.flags, *extra]))
    unbound = [b for b in binding.bindings if b.how == "unbound"]
    if judged.decision.verdict == "inconclusive" and judged.decision.rule == "R3" and unbound:
        # the cause, not the symptom: which quantity got no value, and why
        judged.decision.rationale = "; ".join(
            f"no value bound for quantity {b.quantity} ({b.reason or 'nothing binds it'})"
            for b in unbound
        )
    _say_unreadable(judged.decision, binding)
    bindings = [b.model_dump(mode="json") for b in binding.bindings]
    judged.details = {**judged.details, "bindings": bindings}
    return judged


def _by_human(claim: ClaimView, reviews: HumanReviews | None) -> JudgedClaim:
    """A ``human`` check decided from the stored answers of its review task (rules H0-H6 of
    :mod:`openrepro.evidence.human`); the verdict's level is who judged."""
    assert claim.check is not None
    result = evaluate_human(claim.check, reviews)
    flags: list[Flag] = [f for f in FLAGS if f in result.flags]
    rationale = "; ".join(part for part in (result.description, result.test, result.detail) if part)
    decision = Decision(verdict=result.verdict, rule=f"K:{result.rule}",
                        rationale=f"{result.rule_name}: {rationale}", flags=flags)  # fmt: skip
    return JudgedClaim(
        claim_id=claim.id, decision=decision, path="deterministic",
        evidence=list(reviews.files) if reviews else [], provenance=result.level,
        details=result.model_dump(mode="json"),
    )  # fmt: skip


def judge_claim(case: JudgeCase, judges: Judges = NO_JUDGES) -> JudgedClaim:
    """Judge one claim of one logbook (``case``) by its check (see the module docstring). With
    ``judges`` (one model, or a panel), a quantity nothing else binds is bound only to a
    pointer every judge chose; no judge is opened unless one is needed. Every measurement takes
    its run's provenance level from ``case.levels`` and the verdict the weakest level it rests
    on (:mod:`openrepro.evidence.checks`). A claim with a ``human`` check is decided by
    ``case.reviews`` only (:func:`_by_human`). A verdict under a provisional check (an
    unconfirmed proposal or a model's draft) is flagged ``provisional`` and says so.

    A claim whose evidence cannot be read (a reader's :class:`~openrepro.errors.LogbookError`)
    is :func:`unreadable_claim`; one on which the judge's own code fails is logged and
    :func:`judge_error_claim`: one claim never stops a logbook. A model or store failure
    (:class:`~openrepro.errors.LLMError`, :class:`~openrepro.errors.StoreError`) is raised."""
    try:
        judged = _judge(case, judges)
    except (LLMError, StoreError):
        raise
    except LogbookError as exc:  # a reader's refusal: one bad logbook never stops it
        judged = unreadable_claim(case.view.id, exc)
    except Exception as exc:  # the judge's own fault: logged, counted, named so
        _log.exception("judge error on claim %s", case.view.id)
        judged = judge_error_claim(case.view.id, exc)
    if case.provisional:  # an unconfirmed proposal or draft: shown, not counted
        decision = judged.decision
        decision.flags = list(dict.fromkeys([*decision.flags, "provisional"]))
        under = ("a model's drafted check, not yet confirmed"
                 if case.check is not None and case.check.origin.value == "llm"
                 else f"{case.participant}'s unconfirmed check proposal")  # fmt: skip
        decision.rationale = f"provisional (under {under}): {decision.rationale}"
    return judged


def _judge(case: JudgeCase, judges: Judges) -> JudgedClaim:
    record, claim, levels, locate = case.record, case.view, case.levels, case.locate
    if claim.check is None:
        return _no_check(record, claim)
    if claim.check.relation is Relation.human:
        return _by_human(claim, case.reviews)
    found = [m for m in measurements(record, claim.id) if not m.metric.startswith("scale/")]
    checked, binding, spent = _by_check(record, claim, found, levels, locate, judges)
    if checked is not None:
        return checked
    return _with_bindings(_unbound(record, claim, found, levels, binding), binding, spent)
