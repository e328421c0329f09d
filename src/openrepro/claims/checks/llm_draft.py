"""Drafting checks with a language model, through a constrained schema validated by code.

The model fills :class:`LLMCheckDraft`: the relation and every choice from an enum, quantity
names as slugs, the numbers **as text copied from the claim**, further conjuncts in ``also``
("X reaches 54.7% versus 41.0% for Y" is two equalities), or ``"relation": "none"`` with a
reason where no measurement checks the claim. Code then does the rest: it
reads each number with :func:`openrepro.claims.values.find_numbers`, builds the
:class:`~openrepro.claims.checks.records.Check` (whose validator refuses inconsistent ones), and
checks
grounding against the quote. A reply that fails any of this is no check (``Draft(check=None,
reason=...)``), never a guess; so is a reply that is not valid JSON for the schema after the
client's repair round, and a check that fails the rules' right-or-silent audit
(:func:`openrepro.claims.checks.draft.audit_check`: a number the claim reports that the check
does not use, a quantifier over settings dropped).

:func:`draft_with_fallback` is the drafting pipeline: rules first
(:func:`openrepro.claims.checks.draft.draft_check`), the model only where the rules abstain
and the abstention is not settled (a theorem, a rate, a counted quantifier: no check of this
vocabulary states them, so the model is not asked either).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from openrepro.claims.checks.draft import Draft, audit_check, draft_check
from openrepro.claims.checks.grounding import grounding_problems
from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    DEFAULT_REL_TOL,
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    Origin,
    Quantity,
    Relation,
    Tolerance,
    Trend,
)
from openrepro.claims.prompts import load_prompt
from openrepro.claims.values import find_numbers
from openrepro.errors import LLMOutputError
from openrepro.llm import LLMClient, Message

__all__ = [
    "PROMPT_VERSION",
    "LLMCheckDraft",
    "LLMCheckPart",
    "check_from_llm",
    "draft_check_llm",
    "draft_with_fallback",
]

PROMPT_VERSION = "check-draft-v2"

_LeafRelation = Literal[
    "equal", "bound", "difference", "ratio", "ordering", "comparable", "change", "trend", "growth"
]
_Name = str


class LLMCheckPart(BaseModel):
    """One relation of the model's draft (the schema of each part)."""

    relation: _LeafRelation
    subject: _Name = Field(max_length=64)
    baselines: list[_Name] = Field(default_factory=list, max_length=6)
    comparator: Literal["ge", "gt", "le", "lt", "eq", "between"] = "eq"
    number: str = Field(default="", max_length=40)
    upper: str = Field(default="", max_length=40)
    relative: bool = False
    direction: Literal["higher", "lower", "none"] = "none"
    trend: Literal["increasing", "decreasing", "none"] = "none"
    law: Literal["linear", "logarithmic", "quadratic", "sublinear", "constant", "none"] = "none"


class LLMCheckDraft(LLMCheckPart):
    """The constrained schema the model fills: a relation (or ``none`` with a reason),
    optionally quantified, with the claim's other parts in ``also`` (a conjunction)."""

    relation: _LeafRelation | Literal["none"]  # type: ignore[assignment]
    subject: _Name = Field(default="", max_length=64)
    reason: str = Field(default="", max_length=200)
    quantifier: Literal["none", "for_all", "exists"] = "none"
    also: list[LLMCheckPart] = Field(default_factory=list, max_length=6)


def _slug(name: str) -> str:
    slug = "_".join(re.findall(r"[a-z0-9]+", name.lower()))[:64]
    if not slug or not slug[0].isalpha():
        raise ValueError(f"quantity name {name!r} is not a name")
    return slug


def _constant(text: str, quote: str, relative: bool) -> Constant | None:
    """The number ``text`` states, read by code; None when ``text`` is empty."""
    if not text.strip():
        return None
    mentions = find_numbers(text)
    if len(mentions) != 1:
        raise ValueError(f"{text!r} is not one number")
    mention = mentions[0]
    value = mention.value / 100 if relative and mention.unit == "%" else mention.value
    return Constant(value=value, text=mention.text)


def _leaf(reply: LLMCheckPart, quote: str) -> Check:
    """One relation of the reply as a check (a ValueError or ValidationError when invalid)."""
    subject = _slug(reply.subject)
    baselines = [b for b in dict.fromkeys(_slug(b) for b in reply.baselines) if b != subject]
    relation = Relation(reply.relation)
    relative = reply.relative and relation is Relation.difference
    constant = _constant(reply.number, quote, relative)
    upper = _constant(reply.upper, quote, relative)
    comparator: Comparator | None = Comparator(reply.comparator)
    if relation in {Relation.ordering, Relation.trend, Relation.growth}:
        constant = upper = None
    if relation is Relation.comparable:
        upper = None
    if relation is Relation.equal or relation is Relation.change:
        comparator = None
    if relation is Relation.ordering and comparator in {Comparator.eq, Comparator.between}:
        comparator = None
    if comparator is not Comparator.between and relation is not Relation.change:
        upper = None
    approx_tol = (
        APPROX_DIFF_REL_TOL
        if relation in {Relation.difference, Relation.ratio}
        else DEFAULT_REL_TOL
    )
    leaf = Check(
        origin=Origin.llm,
        relation=relation,
        quantities=[
            Quantity(name=n, description=n.replace("_", " ")) for n in [subject, *baselines]
        ],
        subject=subject,
        baselines=baselines
        if relation not in {Relation.equal, Relation.bound, Relation.trend, Relation.growth}
        else [],
        comparator=comparator,
        constant=constant,
        upper=upper,
        relative=relative,
        direction=Direction(reply.direction),
        tolerance=Tolerance(rel=0.0) if relation is Relation.bound else Tolerance(rel=approx_tol),
        trend=Trend(reply.trend) if reply.trend != "none" else None,
        law=GrowthLaw(reply.law) if reply.law != "none" else None,
    )
    if leaf.relation in {Relation.equal, Relation.bound, Relation.trend, Relation.growth}:
        leaf = leaf.model_copy(update={"quantities": leaf.quantities[:1]})
    return leaf


def _suffixed(check: Check, suffix: str) -> Check:
    def name(n: str) -> str:
        return f"{n}_{suffix}"[:64]

    return check.model_copy(
        update={
            "quantities": [q.model_copy(update={"name": name(q.name)}) for q in check.quantities],
            "subject": name(check.subject) if check.subject else "",
            "baselines": [name(b) for b in check.baselines],
        }
    )


def check_from_llm(reply: LLMCheckDraft, quote: str) -> Draft:
    """The check a model's reply describes, validated, grounded and audited by code (or why
    not)."""
    if reply.relation == "none":
        why = reply.reason.strip() or "no reason given"
        return Draft(reason=f"the model finds no check: {why}", rule="llm")
    try:
        leaves = [_leaf(reply, quote), *(_leaf(part, quote) for part in reply.also)]
        names = [q.name for leaf in leaves for q in leaf.quantities]
        if len(set(names)) != len(names):
            leaves = [_suffixed(leaf, str(i + 1)) for i, leaf in enumerate(leaves)]
        check = (
            leaves[0]
            if len(leaves) == 1
            else Check(origin=Origin.llm, relation=Relation.all_of, parts=leaves)
        )
        if reply.quantifier != "none":
            check = Check(origin=Origin.llm, relation=Relation(reply.quantifier), inner=check)
        check = Check.model_validate(
            check.model_copy(update={"quote": quote, "rule": "llm"}).model_dump()
        )
    except (ValueError, ValidationError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        return Draft(reason=f"model's draft is invalid: {first}", rule="llm")
    problems = grounding_problems(check, quote)
    if problems:
        return Draft(reason="model's draft is not grounded: " + "; ".join(problems), rule="llm")
    audit = audit_check(quote, check)
    if audit:
        return Draft(reason=f"model's draft refused: {audit}", rule="llm")
    return Draft(check=check, rule="llm")


def draft_check_llm(
    quote: str, client: LLMClient, *, claim_id: str = "", max_tokens: int = 256
) -> Draft:
    """A check drafted by the model behind ``client`` for ``quote``, validated by code."""
    system, user = load_prompt(PROMPT_VERSION).render(claim=quote)
    messages = [Message(role="system", content=system), Message(role="user", content=user)]
    try:
        result = client.complete(
            messages, LLMCheckDraft, prompt_version=PROMPT_VERSION, max_tokens=max_tokens
        )
    except LLMOutputError as exc:
        return Draft(reason=f"model reply is not a valid draft: {exc}", rule="llm")
    draft = check_from_llm(result.value, quote)
    if draft.check is not None and claim_id:
        return draft.model_copy(update={"check": draft.check.for_claim(claim_id)})
    return draft


def draft_with_fallback(
    quote: str, client: LLMClient | None, *, claim_id: str = "", gate: bool = False
) -> Draft:
    """Rules first (behind their confidence gate with ``gate``: a withheld reading stays in
    ``Draft.withheld``); the model only where the rules abstain without settling it (and only
    when ``client`` is given)."""
    draft = draft_check(quote, claim_id=claim_id, gate=gate)
    if draft.check is not None or client is None or draft.settled:
        return draft
    by_model = draft_check_llm(quote, client, claim_id=claim_id)
    if by_model.check is None:
        return Draft(reason=f"rules: {draft.reason}; {by_model.reason}", rule=by_model.rule,
                     withheld=draft.withheld)  # fmt: skip
    return by_model
