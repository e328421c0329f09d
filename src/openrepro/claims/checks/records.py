"""The check: what to measure for a claim and the relation the paper asserts between measurements.

A :class:`Check` names its **quantities** (each with a unit, a setting or dataset, and the exact
metric key ``claims/<claim id>/<quantity>`` a logbook logs it under), one **relation** from
:class:`Relation`, the metric's **direction** (higher or lower is better), a **tolerance**, and
the **scale** the paper used. Every number in it is a :class:`Constant` that carries the text it
was read from, so that :mod:`openrepro.claims.checks.grounding` can verify it against the claim's
verbatim quote. Conjunctions (``all_of``) and quantified statements (``for_all``, ``exists``)
nest checks: ``parts`` holds the conjuncts, ``inner`` the statement quantified over a sweep
(a ``for_all`` may enumerate its ``domain`` of numbers or its ``labels`` of named settings, and
count them: ``count`` settings, ``at_least`` of which must hold: "in 9 of 10 tasks"). Theory
and scaling claims have their own relations: ``rate`` (a :class:`Rate`: ``O``, ``Theta`` or
``Omega`` of a power of the swept variable, with a log factor), ``identity`` (a residual at
most a tolerance) and the ``exponential`` growth law.
A ``human`` check carries its :class:`HumanJudgement` (the question shown to reviewers, the answer
scale, the decision share, the minimum items and reviewers, the minimum agreement); a stored
human check without one reads with the defaults (:meth:`Check.judgement`).

Checks are stored as JSON (:meth:`Check.to_json` / :meth:`Check.from_json`) with a format version
(:data:`CHECK_FORMAT`) and a per-claim ``revision`` that grows with each edit.
"""

from __future__ import annotations

import json
import re
from enum import Enum, StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from openrepro.claims.values import Scale, find_powers
from openrepro.errors import CheckError

__all__ = [
    "APPROX_DIFF_REL_TOL",
    "APPROX_REL_TOL",
    "CHECK_FORMAT",
    "DEFAULT_HUMAN_SHARE",
    "DEFAULT_REL_TOL",
    "HUMAN_ANSWERS",
    "IDENTITY_ABS_TOL",
    "MAX_CHECKS_FILE_BYTES",
    "MAX_CHECK_DEPTH",
    "MAX_CHECK_NODES",
    "SINGLE_QUANTITY",
    "TRUSTED_ORIGINS",
    "Check",
    "Comparator",
    "Constant",
    "Direction",
    "GrowthLaw",
    "HumanJudgement",
    "HumanScale",
    "Order",
    "Origin",
    "Quantity",
    "Rate",
    "Relation",
    "Tolerance",
    "Trend",
    "before_quantity",
    "metric_key",
    "sweep_metric",
    "sweeps_of",
]

#: the stored JSON format of checks; a reader refuses formats it does not know
CHECK_FORMAT = 1
#: relative tolerance of a plainly stated number ("reaches 88.1%")
DEFAULT_REL_TOL = 0.05
#: relative tolerance of an approximate one ("about 8x", "roughly 5%", "~66.59%")
APPROX_REL_TOL = 0.10
#: relative tolerance of an approximate difference or ratio ("roughly 5% better", "about 8x")
APPROX_DIFF_REL_TOL = 0.25

#: the residual an ``identity`` check allows when neither the quote nor an organizer sets one
IDENTITY_ABS_TOL = 1e-9

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class Relation(StrEnum):
    """What the paper asserts; :mod:`openrepro.evidence.relations` documents how each is decided."""

    equal = "equal"  # subject = constant, within the tolerance ("reaches 88.1%")
    bound = "bound"  # subject <comparator> constant ("at least 90%", "below 0.75")
    difference = "difference"  # subject - baseline <comparator> constant ("+2.3 BLEU over LoRA")
    ratio = "ratio"  # subject / baseline <comparator> constant ("8x faster", "40% of memory")
    ordering = "ordering"  # subject better than each baseline ("outperforms", "best among")
    comparable = "comparable"  # subject = baseline within the tolerance ("similar memory")
    change = "change"  # baseline (before) -> subject (after), "from 24.3 to 22.8"
    trend = "trend"  # subject monotone over a swept variable ("increases with model size")
    growth = "growth"  # subject grows by a law over a swept variable ("grows linearly")
    rate = "rate"  # subject is O / Θ / Ω of a power of the swept variable ("decays as O(1/T)")
    identity = "identity"  # a residual or error is zero up to a tolerance ("the same distribution")
    for_all = "for_all"  # ``inner`` holds at every point of a sweep ("for all batch sizes")
    exists = "exists"  # ``inner`` holds at some point of a sweep ("can incur")
    all_of = "all_of"  # every one of ``parts`` holds
    human = "human"  # only a person can judge it (images, prose); never decided by code


class Comparator(StrEnum):
    ge = "ge"
    gt = "gt"
    le = "le"
    lt = "lt"
    eq = "eq"  # within the tolerance
    between = "between"  # constant <= value <= upper ("2-6% higher")


class Direction(Enum):
    higher = "higher"  # higher is better (accuracy, reward)
    lower = "lower"  # lower is better (error, loss, memory, time)
    none = "none"  # not a matter of better or worse, or not stated


class Trend(StrEnum):
    increasing = "increasing"
    decreasing = "decreasing"


class GrowthLaw(StrEnum):
    constant = "constant"  # y = a
    logarithmic = "logarithmic"  # y = a + b ln x
    linear = "linear"  # y = a + b x
    quadratic = "quadratic"  # y = a + b x^2
    power = "power"  # y = a x^p (``constant`` is the exponent p when the paper states one)
    sublinear = "sublinear"  # y = a x^p with p < 1
    exponential = "exponential"  # y = a b^x (``constant`` is the base b when the paper states one)


class Order(StrEnum):
    """The asymptotic bound of a ``rate`` check on the fitted exponent ``p`` of the sweep."""

    O = "O"  # noqa: E741  at most of that order: p <= exponent (a faster decay also holds)
    Theta = "Theta"  # exactly of that order: p = exponent, within the tolerance
    Omega = "Omega"  # at least of that order: p >= exponent


class HumanScale(StrEnum):
    """How reviewers answer a human check."""

    usable = "usable"  # one output at a time: "usable" or "not usable"
    preference = "preference"  # two outputs, blinded sides: which is better (or "same")


#: the answers of each scale, as stored (unblinded); the first is the claimed side
HUMAN_ANSWERS: dict[HumanScale, tuple[str, ...]] = {
    HumanScale.usable: ("usable", "not usable"),
    HumanScale.preference: ("B", "A", "same"),
}
#: the decision share when neither the quote nor an organizer sets one
DEFAULT_HUMAN_SHARE: dict[HumanScale, float] = {HumanScale.usable: 0.8, HumanScale.preference: 0.5}


class HumanJudgement(BaseModel):
    """How people decide a ``human`` check (evaluated by :mod:`openrepro.evidence.human`).

    ``usable``: each item is one output of the claim's method; the claim holds when the share of
    items judged ``usable`` is at least the decision share. ``preference``: each item is a pair,
    A the baseline's output and B the method's (shown on random sides); the claim holds when the
    share of items where B is preferred is at least the share (default: more than half). The
    share is the check's grounded ``constant`` when the quote states one ("80% of the images"),
    else ``share`` (set by an organizer), else :data:`DEFAULT_HUMAN_SHARE`.
    """

    model_config = ConfigDict(extra="forbid")

    question: str = ""  # shown to reviewers; "" = the scale's default question
    scale: HumanScale = HumanScale.usable
    share: float | None = Field(default=None, gt=0, lt=1)
    min_items: int = Field(default=20, ge=1)  # distinct items judged by the counted reviewers
    min_reviewers: int = Field(default=1, ge=1)
    #: each counted reviewer's agreement with themself on repeated items (reviewers below it are
    #: left out of the decision, and named)
    min_self_agreement: float = Field(default=0.8, ge=0, le=1)
    #: Cohen's kappa (two reviewers) or Krippendorff's alpha (more) among the counted reviewers
    min_agreement: float = Field(default=0.4, ge=-1, le=1)
    #: an answer given sooner than this after the item was shown is flagged as too fast
    min_seconds: float = Field(default=1.0, ge=0)

    def shown_question(self) -> str:
        if self.question:
            return self.question
        if self.scale is HumanScale.preference:
            return "Which of the two is better?"
        return "Is this output usable?"


class Origin(StrEnum):
    rules = "rules"  # drafted by code from the quote (openrepro.claims.checks.draft)
    llm = "llm"  # drafted by a model through the constrained schema, validated by code
    organizer = "organizer"  # written or edited by an organizer
    participant = "participant"  # proposed by a participant's agent (claims.proposals)
    #: drafted (by a model, a participant) and confirmed by an independent drafter's equivalent
    #: draft (claims.drafts): who agreed is in the check's ``note``
    confirmed = "confirmed"


#: origins of a claim's check that count and that agreement never replaces (an organizer's, a
#: participant's proposal confirmed by agreement, a draft confirmed by agreement)
TRUSTED_ORIGINS: frozenset[str] = frozenset(
    {Origin.organizer.value, Origin.participant.value, Origin.confirmed.value}
)


class Constant(BaseModel):
    """A number of the check, with the text of the quote it was read from (``"~8x"`` -> 8)."""

    model_config = ConfigDict(frozen=True)

    value: float
    text: str = Field(min_length=1)


_ORDER_NAMES = {
    "o": Order.O, "big_o": Order.O, "\u00f5": Order.O, "at_most": Order.O,
    "theta": Order.Theta, "\u03b8": Order.Theta, "\u0398": Order.Theta, "tight": Order.Theta,
    "omega": Order.Omega, "\u03c9": Order.Omega, "\u03a9": Order.Omega, "at_least": Order.Omega,
}  # fmt: skip


class Rate(BaseModel):
    """The asymptotic rate of a ``rate`` check: ``order`` of ``symbol`` to the ``exponent``,
    times ``log(symbol)`` to the ``log_exponent`` ("O(log T / T)": O, T, -1, 1).

    ``exponent`` and ``log_exponent`` are constants: their ``text`` is the expression as the
    quote writes it (``"1/k²"``, ``"O(1/T)"``, ``"T^{-1/2}"``, ``"log T"``) and grounding reads
    the power of ``symbol`` there (:func:`openrepro.claims.values.find_powers`). ``symbol`` is
    the variable as the formula writes it (``"T"``, ``"k"``); the swept variable of the check
    (``sweep``) is what a logbook logs it as.
    """

    model_config = ConfigDict(extra="forbid")

    order: Order
    symbol: str = Field(default="", max_length=24)
    exponent: Constant
    log_exponent: Constant | None = None

    @field_validator("order", mode="before")
    @classmethod
    def _order_names(cls, value: Any) -> Any:
        """``"O"``, ``"Theta"``, ``"Omega"``; also ``"Θ"``, ``"Ω"``, ``"big_o"``, any case."""
        if isinstance(value, str) and value not in {o.value for o in Order}:
            return _ORDER_NAMES.get(value.strip().lower(), value)
        return value

    @classmethod
    def read(cls, quote: str, symbol: str = "") -> Rate | None:
        """The first asymptotic rate ``quote`` states (``O(1/T)``, ``Θ(1/k²)``, ...) as a
        :class:`Rate` whose constants are the expression as written (so it is grounded), on
        ``symbol`` (default: the expression's only variable); None when there is none, or the
        expression has several variables and no ``symbol`` says which."""
        for mention in find_powers(quote):
            if not mention.order:
                continue
            exponent, logs = mention.exponent(symbol), mention.log_power(symbol)
            if exponent is None or logs is None:
                continue
            variables = [*mention.powers, *(v for v in mention.logs if v not in mention.powers)]
            return cls(
                order=Order(mention.order),
                symbol=symbol or (variables[0] if variables else ""),
                exponent=Constant(value=exponent, text=mention.text),
                log_exponent=Constant(value=logs, text=mention.text) if logs else None,
            )
        return None

    def describe(self) -> str:
        """``Θ(k^-2)``, ``O(T^-1 log T)``."""
        sign = {Order.O: "O", Order.Theta: "\u0398", Order.Omega: "\u03a9"}[self.order]
        x = self.symbol or "x"
        term = "1" if self.exponent.value == 0 else f"{x}^{self.exponent.value:g}"
        if self.log_exponent is not None and self.log_exponent.value:
            power = self.log_exponent.value
            term += f" log{'' if power == 1 else f'^{power:g}'} {x}"
        return f"{sign}({term})"


class Tolerance(BaseModel):
    """How close counts as equal: ``max(rel * |reference|, abs)``."""

    model_config = ConfigDict(frozen=True)

    rel: float = Field(default=DEFAULT_REL_TOL, ge=0, le=1)
    abs: float = Field(default=0.0, ge=0)

    def margin(self, reference: float) -> float:
        return max(self.rel * abs(reference), self.abs)


def before_quantity(subject: str) -> str:
    """The name of the value a ``change`` starts from ("from 24.3 to 22.8": ``<subject>_before``),
    the baseline of a change whose drafter names no other."""
    return f"{subject}_before"


def metric_key(claim_id: str, quantity: str) -> str:
    """The exact metric key a logbook logs ``quantity`` of ``claim_id`` under."""
    return f"claims/{claim_id}/{quantity}"


def sweep_metric(sweep: str) -> str:
    """The metric name a run logs the swept variable under (``claims/<claim id>/<this>``): the
    sweep's words in lower case joined by ``_`` ("model size" -> ``model_size``, "k" -> ``k``).
    A swept quantity is measured once per run: the run's last value of the quantity at the
    run's value of this metric."""
    words = re.findall(r"[a-z0-9]+", sweep.lower())
    name = "_".join(words)[:40].strip("_") or "x"
    return name if name[0].isalpha() else f"x_{name}"


class Quantity(BaseModel):
    """One thing to measure. ``key`` is ``claims/<claim id>/<name>`` once the check belongs to a
    claim (:meth:`Check.for_claim`); a logbook that logs under that key is bound exactly."""

    model_config = ConfigDict(extra="forbid")

    name: str  # a slug: lower case, digits, underscores ("apt_accuracy")
    description: str = ""  # in words: "end-task accuracy of APT"
    unit: str = ""  # "%", "x", "s", "GB", ...
    setting: str = ""  # "T5, 60% sparsity"
    dataset: str = ""
    sweep: str = ""  # the swept variable when measured as a series ("model size")
    key: str = ""

    @model_validator(mode="after")
    def _valid_name(self) -> Quantity:
        if not _NAME.match(self.name):
            raise ValueError(
                f"quantity name {self.name!r} must be a slug (a-z, 0-9, _; starting with a letter)"
            )
        return self


class Check(BaseModel):
    """A typed, grounded check (see the module docstring). ``subject`` and ``baselines`` name
    quantities of this node; ``constant`` (and ``upper`` for ``between``) are its numbers."""

    model_config = ConfigDict(extra="forbid")

    format: int = CHECK_FORMAT
    revision: int = Field(default=1, ge=1)
    origin: Origin = Origin.rules
    relation: Relation
    quantities: list[Quantity] = Field(default_factory=list)
    subject: str = ""
    baselines: list[str] = Field(default_factory=list)
    comparator: Comparator | None = None
    constant: Constant | None = None
    upper: Constant | None = None
    #: a difference or ratio read in relative terms ("5% faster": (a - b) / |b|)
    relative: bool = False
    direction: Direction = Direction.none
    tolerance: Tolerance = Field(default_factory=Tolerance)
    trend: Trend | None = None
    law: GrowthLaw | None = None
    sweep: str = ""  # the swept variable (trend, growth, for_all, exists)
    #: for_all: the sweep is open-ended ("for every k"), so a finite sweep can only be ``toy``
    unbounded: bool = False
    #: for_all over an enumerated domain ("for batch sizes 8, 16 and 32"): the sweep values the
    #: claim names, each grounded in the quote; every one must be measured for the claim to hold
    domain: list[Constant] = Field(default_factory=list)
    #: for_all over named settings ("on CIFAR-10, SVHN and STL-10"): each name as the quote
    #: writes it (grounded there); every one must be measured, as for ``domain``
    labels: list[str] = Field(default_factory=list)
    #: for_all: how many settings the claim quantifies over ("across four datasets": 4)
    count: Constant | None = None
    #: for_all: how many of them must hold ("in 9 of 10 tasks": 9 of ``count`` 10)
    at_least: Constant | None = None
    #: a ``rate`` check's asymptotic rate
    rate: Rate | None = None
    inner: Check | None = None
    parts: list[Check] = Field(default_factory=list)
    scale: Scale = Field(default_factory=Scale)
    claim_id: str = ""
    quote: str = ""  # the verbatim quote the constants are grounded in
    rule: str = ""  # the drafting rule (or "llm", "organizer") that produced it
    note: str = ""
    #: a human check: how people judge it (None: the defaults, see :meth:`judgement`)
    human: HumanJudgement | None = None

    @model_serializer(mode="wrap")
    def _stored_form(self, handler: SerializerFunctionWrapHandler) -> Any:
        """No ``human`` key for a check without human fields: stored checks keep the form they
        had before human checks carried fields."""
        data = handler(self)
        if isinstance(data, dict) and data.get("human", 0) is None:
            del data["human"]
        if isinstance(data, dict) and data.get("domain", 0) == []:
            del data["domain"]  # likewise for a check without an enumerated domain
        if isinstance(data, dict):  # and for the fields of quantifiers and rates
            for key, empty in (("labels", []), ("count", None), ("at_least", None),
                               ("rate", None)):  # fmt: skip
                if key in data and data[key] == empty:
                    del data[key]
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Check:
        problems = _problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # -- reading -------------------------------------------------------------------------

    def quantity(self, name: str) -> Quantity:
        for q in self.all_quantities():
            if q.name == name:
                return q
        raise CheckError(f"check has no quantity {name!r}")

    def all_quantities(self) -> list[Quantity]:
        """Every quantity of this check and its nested checks, each once, in order."""
        seen: dict[str, Quantity] = {}
        for node in self.nodes():
            for q in node.quantities:
                seen.setdefault(q.name, q)
        return list(seen.values())

    def judgement(self) -> HumanJudgement:
        """How people judge this ``human`` check (its own fields, else the defaults)."""
        return self.human if self.human is not None else HumanJudgement()

    def human_share(self) -> float:
        """The decision share of a ``human`` check: the grounded constant (a percentage is read
        as its hundredth), else the organizer's ``share``, else the scale's default."""
        judgement = self.judgement()
        if self.constant is not None:
            value = self.constant.value
            return value / 100 if value > 1 else value
        if judgement.share is not None:
            return judgement.share
        return DEFAULT_HUMAN_SHARE[judgement.scale]

    def nodes(self) -> list[Check]:
        """This check and every nested one, depth first."""
        out: list[Check] = [self]
        if self.inner is not None:
            out += self.inner.nodes()
        for part in self.parts:
            out += part.nodes()
        return out

    def constants(self) -> list[Constant]:
        """Every number of the check (nested checks included); each must be grounded."""
        return [
            c
            for node in self.nodes()
            for c in (
                node.constant,
                node.upper,
                *node.domain,
                node.count,
                node.at_least,
                *((node.rate.exponent, node.rate.log_exponent) if node.rate else ()),
            )
            if c is not None
        ]

    def identity_tolerance(self) -> float:
        """The residual an ``identity`` check allows: the stated ``constant`` ("agree to within
        1e-6"), else the organizer's ``tolerance.abs``, else :data:`IDENTITY_ABS_TOL`."""
        if self.constant is not None:
            return abs(self.constant.value)
        return self.tolerance.abs if self.tolerance.abs > 0 else IDENTITY_ABS_TOL

    def exponent_margin(self) -> float:
        """How far a fitted exponent may be from a ``rate`` check's: ``tolerance.abs`` when set,
        else ``tolerance.rel`` of the exponent's size (at least 1: an ``O(1)`` has a margin)."""
        if self.tolerance.abs > 0:
            return self.tolerance.abs
        size = abs(self.rate.exponent.value) if self.rate is not None else 1.0
        return self.tolerance.rel * max(size, 1.0)

    def for_claim(self, claim_id: str) -> Check:
        """A copy that belongs to ``claim_id``: every quantity keyed ``claims/<id>/<name>``."""

        def keyed(node: Check) -> Check:
            return node.model_copy(
                update={
                    "claim_id": claim_id,
                    "quantities": [
                        q.model_copy(update={"key": metric_key(claim_id, q.name)})
                        for q in node.quantities
                    ],
                    "inner": keyed(node.inner) if node.inner is not None else None,
                    "parts": [keyed(p) for p in node.parts],
                }
            )

        return keyed(self)

    def suffixed(self, suffix: str) -> Check:
        """A copy whose quantities carry ``suffix`` ("apt" -> "apt_2"), for one conjunct of
        several that name the same quantities."""

        def name(n: str) -> str:
            return f"{n}_{suffix}"[:64]

        return self.model_copy(
            update={
                "quantities": [
                    q.model_copy(update={"name": name(q.name)}) for q in self.quantities
                ],
                "subject": name(self.subject) if self.subject else "",
                "baselines": [name(b) for b in self.baselines],
                "inner": self.inner.suffixed(suffix) if self.inner else None,
                "parts": [p.suffixed(suffix) for p in self.parts],
            }
        )

    def revise(self, *, origin: Origin, note: str = "", **changes: Any) -> Check:
        """The next revision of this check (an edit by an organizer, a redraft), validated."""
        data = self.model_dump()
        data.update(changes)
        data.update({"revision": self.revision + 1, "origin": origin, "note": note or self.note})
        try:
            return Check.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "check"
            raise CheckError(f"invalid check: {where}: {first['msg']}") from exc

    # -- words ---------------------------------------------------------------------------

    def describe(self) -> str:
        """The check in words, e.g. ``apt_speed / lora_prune_speed >= 8 (within 5%)``."""
        return _describe(self)

    # -- storage -------------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(
            self.model_dump(mode="json", exclude_defaults=True), sort_keys=True, ensure_ascii=False
        )

    @classmethod
    def from_json(cls, text: str | dict[str, Any]) -> Check:
        """A check from its stored JSON; a :class:`CheckError` names what is wrong."""
        try:
            data = json.loads(text) if isinstance(text, str) else dict(text)
        except json.JSONDecodeError as exc:
            raise CheckError(f"check is not JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise CheckError("check must be a JSON object")
        _require_shape(data)
        version = data.get("format", CHECK_FORMAT)
        if version != CHECK_FORMAT:
            raise CheckError(
                f"check format {version} is not known (this openrepro reads format {CHECK_FORMAT})"
            )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "check"
            raise CheckError(f"invalid check: {where}: {first['msg']}") from exc


# caps on a check read from JSON: a participant's proposals (openrepro.claims.proposals) and
# any other; the caps on the rest of a logbook are in openrepro.logbooks.limits
MAX_CHECKS_FILE_BYTES = 256 * 1024  # a file of proposed checks (a logbook's checks.json)
MAX_CHECK_NODES = 64  # checks in one check: itself, its parts and inner checks, nested
MAX_CHECK_DEPTH = 8  # checks nested in one check (an all_of of a for_all of a bound: 3)

#: JSON levels one check node may hold below it besides nested checks (quantities, a rate's
#: exponent, scale, human fields): what a check's JSON is allowed beyond its nesting of checks
_NODE_LEVELS = 6


def _require_shape(data: dict[str, Any]) -> None:
    """Refuse, before any validation, a check of more than :data:`MAX_CHECK_NODES` checks (its
    ``parts`` and ``inner`` checks, nested) or with checks nested deeper than
    :data:`MAX_CHECK_DEPTH`, and JSON nested deeper than such a check can be: counted without
    recursion, so a hostile ``checks.json`` costs neither seconds of validation nor a
    ``RecursionError``."""
    levels = 2 * MAX_CHECK_DEPTH + _NODE_LEVELS
    nodes = 0
    # (value, JSON level, checks it is nested in, whether it is a check)
    stack: list[tuple[Any, int, int, bool]] = [(data, 1, 1, True)]
    while stack:
        value, level, depth, is_check = stack.pop()
        if level > levels:
            raise CheckError(f"check is nested too deep (more than {levels} JSON levels)")
        if is_check:
            nodes += 1
            if nodes > MAX_CHECK_NODES:
                raise CheckError(
                    f"check has more than {MAX_CHECK_NODES} checks (parts and inner checks, "
                    "nested): a check's limit"
                )
            if depth > MAX_CHECK_DEPTH:
                raise CheckError(
                    f"check is nested too deep (checks within checks, more than "
                    f"{MAX_CHECK_DEPTH} deep)"
                )
        if isinstance(value, dict):
            for key, child in value.items():
                if is_check and key == "parts" and isinstance(child, list):
                    if nodes + len(child) > MAX_CHECK_NODES:
                        raise CheckError(
                            f"check has more than {MAX_CHECK_NODES} checks (parts and inner "
                            "checks, nested): a check's limit"
                        )
                    stack.extend((part, level + 2, depth + 1, isinstance(part, dict))
                                 for part in child if isinstance(part, dict | list))  # fmt: skip
                elif isinstance(child, dict | list):
                    nested = is_check and key == "inner" and isinstance(child, dict)
                    stack.append((child, level + 1, depth + nested, nested))
        elif isinstance(value, list):
            stack.extend((v, level + 1, depth, False) for v in value if isinstance(v, dict | list))


_NEEDS_CONSTANT = {Relation.equal, Relation.bound, Relation.difference, Relation.ratio}
#: relations of one quantity against a constant or a law: they take no baseline
SINGLE_QUANTITY: frozenset[Relation] = frozenset(
    {
        Relation.equal,
        Relation.bound,
        Relation.trend,
        Relation.growth,
        Relation.rate,
        Relation.identity,
    }
)
_NEEDS_BASELINE = {
    Relation.difference,
    Relation.ratio,
    Relation.ordering,
    Relation.comparable,
    Relation.change,
}
_LEAF = {
    Relation.rate,
    Relation.identity,
    Relation.equal,
    Relation.bound,
    Relation.difference,
    Relation.ratio,
    Relation.ordering,
    Relation.comparable,
    Relation.change,
    Relation.trend,
    Relation.growth,
}


def _problems(check: Check) -> list[str]:
    """What makes ``check`` inconsistent (empty when it is well formed)."""
    r = check.relation
    problems: list[str] = []
    names = [q.name for q in check.quantities]
    if len(set(names)) != len(names):
        problems.append("quantity names must be unique")
    if r in _LEAF:
        if not check.subject:
            problems.append(f"{r.value} needs a subject quantity")
        for name in [check.subject, *check.baselines]:
            if name and name not in names:
                problems.append(f"{name!r} is not one of the check's quantities")
        if r in _NEEDS_BASELINE and not check.baselines:
            problems.append(f"{r.value} needs a baseline quantity")
        if r in SINGLE_QUANTITY and check.baselines:
            problems.append(f"{r.value} compares a quantity with a constant, not a baseline")
    if r in _NEEDS_CONSTANT and check.constant is None:
        problems.append(f"{r.value} needs a constant")
    if r is Relation.bound and check.comparator in {None, Comparator.eq}:
        problems.append("bound needs a comparator: ge, gt, le, lt or between")
    if check.comparator is Comparator.between and check.upper is None:
        problems.append("between needs an upper constant")
    if (
        check.upper is not None
        and check.comparator is not Comparator.between
        and (r is not Relation.change)
    ):
        problems.append("upper is only for the between comparator and for change")
    if r is Relation.change and (check.constant is None) != (check.upper is None):
        problems.append("change states both numbers (from constant to upper) or neither")
    if r is Relation.change and check.comparator is not None:
        problems.append("change takes no comparator")
    if r is Relation.change and check.constant is None and check.trend is None:
        problems.append("change needs its two numbers or a direction (trend)")
    if r is Relation.trend and check.trend is None:
        problems.append("trend needs increasing or decreasing")
    if r is Relation.growth and check.law is None:
        problems.append("growth needs a law")
    if (
        check.law is GrowthLaw.exponential
        and check.constant is not None
        and (check.constant.value <= 0 or check.constant.value == 1)
    ):
        problems.append("an exponential law's constant is its base: positive, not 1")
    if r is Relation.rate:
        if check.rate is None:
            problems.append("rate needs its rate: order (O, Theta, Omega) and exponent")
        if check.comparator is not None or check.constant is not None or check.law is not None:
            problems.append("rate states its bound in rate (order, exponent), not in "
                            "comparator, constant or law")  # fmt: skip
        if check.trend is not None:
            problems.append("rate takes no trend: the exponent's sign says it")
        swept = any(q.sweep for q in check.quantities if q.name == check.subject)
        if not check.sweep and not swept:
            problems.append('rate needs the swept variable (sweep), e.g. "T"')
    if check.rate is not None and r is not Relation.rate:
        problems.append("only a rate check has a rate")
    if r is Relation.identity:
        if check.comparator is not None or check.upper is not None:
            problems.append("identity takes no comparator: the residual is at most the tolerance")
        if check.constant is not None and check.constant.value == 0:
            problems.append("identity's constant is the stated tolerance: not 0")
    if (check.labels or check.count or check.at_least) and r is not Relation.for_all:
        problems.append("only for_all has labels, count or at_least")
    if len({label.strip().lower() for label in check.labels}) != len(check.labels) or any(
        not label.strip() for label in check.labels
    ):
        problems.append("labels must be distinct names")
    if check.labels and check.domain:
        problems.append("a domain is numbers or labels, not both")
    for field, value in (("count", check.count), ("at_least", check.at_least)):
        if value is not None and (value.value < 1 or value.value != int(value.value)):
            problems.append(f"{field} must be a whole number of settings (1 or more)")
    if (
        check.count is not None
        and check.at_least is not None
        and (check.at_least.value > check.count.value)
    ):
        problems.append("at_least cannot exceed count")
    enumerated = len(check.labels) or len(check.domain)
    if check.count is not None and enumerated and enumerated != check.count.value:
        problems.append(f"count {check.count.value:g} but {enumerated} settings are named")
    if (check.count or check.at_least) and check.unbounded:
        problems.append("a counted domain is finite: it cannot be open-ended (unbounded)")
    if r in {Relation.for_all, Relation.exists} and check.inner is None:
        problems.append(f"{r.value} needs an inner check")
    if check.domain and r is not Relation.for_all:
        problems.append("only for_all enumerates a domain")
    if (check.domain or check.labels) and check.unbounded:
        problems.append("an enumerated domain is finite: it cannot be open-ended (unbounded)")
    if r is not Relation.all_of and check.parts:
        problems.append("only all_of has parts")
    if r is Relation.all_of and len(check.parts) < 2:
        problems.append("all_of needs at least two parts")
    if r not in {Relation.for_all, Relation.exists} and check.inner is not None:
        problems.append("only for_all and exists have an inner check")
    if r is not Relation.human and check.human is not None:
        problems.append("only a human check has human judgement fields")
    if r is Relation.human and check.constant is not None and not 0 < check.constant.value < 100:
        problems.append("a human check's constant is a share of items (0 to 100%)")
    return problems


_OPS = {
    Comparator.ge: ">=",
    Comparator.gt: ">",
    Comparator.le: "<=",
    Comparator.lt: "<",
    Comparator.eq: "=",
    Comparator.between: "in",
}


def _number(check: Check) -> str:
    if check.constant is None:
        return "?"
    if check.comparator is Comparator.between and check.upper is not None:
        return f"[{check.constant.value:g}, {check.upper.value:g}]"
    return f"{check.constant.value:g}"


def _tol(check: Check) -> str:
    """The tolerance in words, relative and absolute: every check shows what it accepts."""
    t = check.tolerance
    rel = f"{t.rel * 100:g}%"
    if t.abs and t.rel:
        return f" (within {rel} or {t.abs:g}, whichever is larger)"
    if t.abs:
        return f" (within {t.abs:g})"
    if t.rel:
        return f" (within {rel})"
    return " (no tolerance)"


def _describe(check: Check) -> str:
    r, s = check.relation, check.subject
    op = _OPS.get(check.comparator or Comparator.eq, "=")
    base = ", ".join(check.baselines)
    better = {"higher": "higher than", "lower": "lower than"}.get(
        check.direction.value, "better than"
    )
    if r is Relation.equal:
        return f"{s} = {_number(check)}{_tol(check)}"
    if r is Relation.bound:
        return f"{s} {op} {_number(check)}{_tol(check)}"
    if r is Relation.difference:
        kind = "relative difference" if check.relative else "difference"
        return f"{kind} {s} - {base} {op} {_number(check)}{_tol(check)}"
    if r is Relation.ratio:
        return f"{s} / {base} {op} {_number(check)}{_tol(check)}"
    if r is Relation.ordering:
        word = (
            {
                Comparator.gt: "higher than",
                Comparator.lt: "lower than",
                Comparator.ge: "at least",
                Comparator.le: "at most",
            }.get(check.comparator, better)
            if check.comparator is not None
            else better
        )
        slack = _tol(check) if check.comparator in {Comparator.ge, Comparator.le} else ""
        return f"{s} {word} {base}{slack}"
    if r is Relation.comparable:
        return f"{s} comparable to {base}{_tol(check)}"
    if r is Relation.change:
        numbers = (
            f" from {check.constant.value:g} to {check.upper.value:g}"
            if check.constant and check.upper
            else ""
        )
        return f"change {base} -> {s}{numbers}{_tol(check) if numbers else ''}"
    if r is Relation.trend:
        trend = check.trend.value if check.trend else "?"
        # the tolerance: how far one step may go against the trend
        steps = _tol(check).replace("(within", "(steps against it within", 1)
        return f"{s} {trend} in {check.sweep or 'the sweep'}{steps}"
    within = _tol(check).strip(" ()")
    if r is Relation.growth and check.law is GrowthLaw.exponential:
        verb = "decays" if check.trend is Trend.decreasing else "grows"
        base = f" (base {check.constant.value:g}, {within})" if check.constant else ""
        return f"{s} {verb} exponentially{base} in {check.sweep or 'the sweep'}"
    if r is Relation.growth:
        law = check.law.value if check.law else "?"
        rate = f" (rate {check.constant.value:g}, {within})" if check.constant else ""
        return f"{s} grows {law}{rate} in {check.sweep or 'the sweep'}"
    if r is Relation.rate:
        shown = check.rate.describe() if check.rate else "?"
        return (
            f"{s} = {shown} in {check.sweep or 'the sweep'} "
            f"(log-log exponent, within {check.exponent_margin():g})"
        )
    if r is Relation.identity:
        return f"|{s}| <= {check.identity_tolerance():g} (an identity: the residual vanishes)"
    if r is Relation.for_all:
        inner = _describe(check.inner) if check.inner else "?"
        named = [c.text for c in check.domain] + list(check.labels)
        among = f" in {{{', '.join(named)}}}" if named else ""
        what = check.sweep or "point"
        if check.at_least is not None:
            of = f" of {check.count.value:g}" if check.count else ""
            return f"for at least {check.at_least.value:g}{of} {what}{among}: {inner}"
        if check.count is not None:
            return f"for all {check.count.value:g} {what}{among}: {inner}"
        return f"for every {what}{among}{' (open-ended)' if check.unbounded else ''}: " + inner
    if r is Relation.exists:
        inner = _describe(check.inner) if check.inner else "?"
        return f"for some {check.sweep or 'point'}: {inner}"
    if r is Relation.all_of:
        return " and ".join(f"({_describe(p)})" for p in check.parts)
    judgement = check.judgement()
    answer = "B preferred" if judgement.scale is HumanScale.preference else "usable"
    return (
        f"human judgement ({judgement.scale.value}): share of items judged {answer} >= "
        f"{check.human_share():.0%}, by >= {judgement.min_reviewers} reviewer(s) on >= "
        f"{judgement.min_items} items: {judgement.shown_question()}"
    )


Check.model_rebuild()


def sweeps_of(check: Check) -> dict[str, str]:
    """Quantity name -> the variable it is swept over, for every swept quantity of ``check``."""
    out: dict[str, str] = {}
    for node in check.nodes():
        for q in node.quantities:
            if q.sweep:
                out.setdefault(q.name, q.sweep)
        if node.sweep:
            names = [node.subject, *node.baselines] if node.subject else []
            # a quantifier (for_all, exists) sweeps the quantities of the check it quantifies
            for name in names or [q.name for q in node.all_quantities()]:
                out.setdefault(name, node.sweep)
    return out
