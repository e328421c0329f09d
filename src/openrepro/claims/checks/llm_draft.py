"""Drafting checks with a language model, through a constrained schema validated by code.

The model fills :class:`LLMCheckDraft` (prompt ``check-draft-v7``): the relation and every
choice from an enum, quantity names as slugs, the numbers **as text copied from the claim**,
further conjuncts in ``also`` ("X reaches 54.7% versus 41.0% for Y" is two equalities), or
``"relation": "none"`` with a reason where no measurement checks the claim. Theory and scaling
claims have their fields too: a ``rate`` (the bound ``order`` O/Theta/Omega, the ``variable``,
the ``exponent`` as the expression the claim writes: ``"O(1/T)"``, ``"1/k^2"``), an
``identity`` (the residual quantity, or the two quantities that must agree, and the tolerance
as written), the ``exponential`` growth law (its base as written, when stated), and a counted or
named ``for_all`` (``labels``: the settings the claim names; ``count`` / ``at_least``: "in 9 of
10 tasks").

Code then does the rest: it reads each number with
:func:`openrepro.claims.values.find_numbers` (counts also with
:func:`~openrepro.claims.values.find_count_words`), each exponent and log power with
:func:`~openrepro.claims.values.find_powers` on the copied expression, builds the
:class:`~openrepro.claims.checks.records.Check` (whose validator refuses inconsistent ones),
and checks grounding against the quote (every constant, every label). A reply that fails any of
this is no check (``Draft(check=None, reason=...)``), never a guess; so is a reply that is not
valid JSON for the schema after the client's repair round, and a check that fails the rules'
right-or-silent audit (:func:`openrepro.claims.checks.draft.audit_check`: a number the claim
reports that the check does not use, a quantifier over settings dropped).

**A complete check or none** (v6, v7): the reply lists in ``left_out`` the claim's results its
check does not state; code takes no check of such an answer (:func:`left_out`), so a claim is
never counted reproduced on a part of it. Older prompts replay with their own schema
(:data:`PROMPT_SCHEMAS`, ``draft_check_llm(..., prompt=...)``).

**The repair round** (v5): where code refuses the model's answer (not a "none"),
:func:`draft_check_llm` sends it back once (:func:`repair_messages`: the first request, the
answer, and the prompt's ``## repair`` text with code's reason and what to change) and validates
the second answer the same way; the draft's rule is then :data:`REPAIRED_RULE`, so a bench counts
the first answers' refusals apart from the final ones.

:func:`draft_with_fallback` is the drafting pipeline: rules first
(:func:`openrepro.claims.checks.draft.draft_check`), the model only where the rules abstain.
An abstention the rules mark ``settled`` (a kind their rules do not draft) goes to the model
only when the check language states that kind (:data:`MODEL_DRAFTS_SETTLED`: a rate, a formula
with an exponent, a counted quantifier, a theorem (v4: checked where it has a numerical
instance), "up to N" (v4: the best case, ``exists``)); a rank, a description of the data or of
the figures are not asked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openrepro.claims.checks.draft import Draft, audit_check, draft_check, is_aggregate_name
from openrepro.claims.checks.grounding import grounding_problems
from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    DEFAULT_REL_TOL,
    SINGLE_QUANTITY,
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    Order,
    Origin,
    Quantity,
    Rate,
    Relation,
    Tolerance,
    Trend,
    before_quantity,
)
from openrepro.claims.prompts import load_prompt
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import (
    MAGNITUDE_FACTOR,
    NumberMention,
    PowerMention,
    find_count_words,
    find_magnitudes,
    find_number_words,
    find_numbers,
    find_powers,
    find_suffixed_numbers,
    magnitude_range,
    parse_power,
    slashed_labels,
    split_range,
    variable_symbol,
)
from openrepro.errors import LLMOutputError
from openrepro.llm import LLMClient, Message

__all__ = [
    "MODEL_DRAFTS_SETTLED",
    "PROMPT_SCHEMAS",
    "PROMPT_VERSION",
    "REPAIRED_RULE",
    "LLMCheckDraft",
    "LLMCheckDraftV5",
    "LLMCheckPart",
    "check_from_llm",
    "draft_check_llm",
    "draft_messages",
    "draft_schema",
    "draft_with_fallback",
    "left_out",
    "model_may_draft",
    "refused",
    "repair_messages",
]

PROMPT_VERSION = "check-draft-v7"

#: the rule of a draft whose check (or "none") came from the repair round: code refused the
#: model's first answer and sent its reason back once (:func:`repair_messages`)
REPAIRED_RULE = "llm-repaired"

#: the rules' settled abstentions (``Draft.settled``, the reasons of
#: :mod:`openrepro.claims.checks.draft`) whose kind the check language states: the model is
#: asked for these (reason prefix, or words inside it, -> the kind). Every other settled
#: abstention (a rank, a description of the training data or of the figures) stays settled: no
#: check states it, so the model is not asked either.
MODEL_DRAFTS_SETTLED: dict[str, str] = {
    "no check: a rate or an asymptotic bound": "rate",
    "no check: a rate or a formula with an exponent": "rate or exponential law",
    "no check: a counted quantifier": "counted quantifier",
    # check-draft-v4: a theorem with a numerical instance (a rate, an identity, "there is an
    # instance where"), and "up to N" as the best case over settings (exists)
    "no check: a theorem's statement": "theorem with a numerical instance",
    "is a maximum over settings not enumerated": "best case (exists)",
}

_LeafRelation = Literal[
    "equal",
    "bound",
    "difference",
    "ratio",
    "ordering",
    "comparable",
    "change",
    "trend",
    "growth",
    "rate",
    "identity",
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
    #: a percentage that is a fraction of one ("5% significance": p < 0.05)
    fraction: bool = False
    direction: Literal["higher", "lower", "none"] = "none"
    trend: Literal["increasing", "decreasing", "none"] = "none"
    law: Literal[
        "linear", "logarithmic", "quadratic", "sublinear", "constant", "exponential", "none"
    ] = "none"
    #: trend, growth, rate: the swept variable ("T", "horizon", "model size")
    sweep: str = Field(default="", max_length=40)
    #: rate: the bound, the variable as the formula writes it, the expression as written
    order: Literal["O", "Theta", "Omega", "none"] = "none"
    variable: str = Field(default="", max_length=24)
    exponent: str = Field(default="", max_length=80)
    #: this part's own quantifier ("up to N" in one part: exists) and what it ranges over
    quantifier: Literal["none", "for_all", "exists"] = "none"
    over: str = Field(default="", max_length=40)


class LLMCheckDraftV5(LLMCheckPart):
    """The constrained schema the model fills: a relation (or ``none`` with a reason),
    optionally quantified (over named or counted settings), with the claim's other parts in
    ``also`` (a conjunction)."""

    # prompt check-draft-v5's reply: its title and docstring are the schema's as v5's answers
    # were recorded with (the recordings are keyed by the hash of the messages and the schema)
    model_config = ConfigDict(title="LLMCheckDraft")

    relation: _LeafRelation | Literal["none"]  # type: ignore[assignment]
    subject: _Name = Field(default="", max_length=64)
    reason: str = Field(default="", max_length=200)
    #: for_all: the settings the claim names, how many settings there are and how many must
    #: hold ("9 of 10 tasks": "10" and "9"), as written; ``quantifier`` and ``over`` (what it
    #: ranges over: "dataset", "task") quantify the whole draft, ``also`` included
    labels: list[str] = Field(default_factory=list, max_length=12)
    count: str = Field(default="", max_length=20)
    at_least: str = Field(default="", max_length=20)
    also: list[LLMCheckPart] = Field(default_factory=list, max_length=12)


class LLMCheckDraft(LLMCheckDraftV5):
    """The schema of prompt ``check-draft-v6``: v5's, and ``left_out``, the claim's result
    assertions that no part states (where a sweep peaks, a frontier, "the only method that", a
    rate's second variable). A check that leaves a result out would verify a claim it checked in
    part only: code takes no check of such an answer (the model's own abstention, not a
    refusal), so the claim goes to a person."""

    left_out: list[str] = Field(default_factory=list, max_length=6)


#: the drafting prompts a client may be asked with, and the schema of each one's reply (the
#: recorded answers of an older prompt replay against its own messages and schema; v7's reply
#: is v6's, docstring included: the docstring is part of the schema each request is keyed by)
PROMPT_SCHEMAS: dict[str, type[LLMCheckDraftV5]] = {
    "check-draft-v5": LLMCheckDraftV5,
    "check-draft-v6": LLMCheckDraft,
    "check-draft-v7": LLMCheckDraft,
}


def _slug(name: str) -> str:
    slug = "_".join(re.findall(r"[a-z0-9]+", name.lower()))
    if slug[:1].isdigit():  # a name that begins with its model's number: "3lp_gmc_r2"
        slug = f"q_{slug}"
    if not slug:
        raise ValueError(f"quantity name {name!r} is not a name")
    return slug[:64]


#: what may stand around the one number a reply copies: an approximation or a comparison before
#: it, unit words or an exponential law's variable after it ("~90k", "\u2248 10^2", "+9 dB",
#: "12 GPU hours", "2^H")
_NUMBER_BEFORE = re.compile(
    r"\s*(?:[~\u2248<>\u2264\u2265]|about|around|roughly|approximately|approx\.?|nearly|almost|"
    r"over|under|up to|at least|at most|more than|less than|only)?(?:\s*\ban?\s+)?\s*"
    r"[$\u20ac\u00a3]?",
    re.IGNORECASE,
)
_NUMBER_AFTER = re.compile(
    r"\s*(?:\u2030|\u00b0|\+|/?[A-Za-z\u00b5\u03bc][\w/-]*(?:\s+[A-Za-z][\w/-]*){0,2}|"
    r"\^\{?[A-Za-z]\w*\}?)?\s*\.?"
)


#: an uncertainty written after a value ("0.046 \u00b1 0.016", "71.2 +/- 0.4%"): the value is
#: the number, its spread is the judge's to measure over seeds
_SPREAD = re.compile(r"\s*(?:\u00b1|\+/-|\+-)\s*\d[\d.]*(?:e-?\d+)?\s*%?\s*$")


def _one_number(text: str, *, counts: bool = False) -> NumberMention:
    text = _SPREAD.sub("", text)
    mentions = find_numbers(text)
    if counts and not mentions:
        mentions = find_count_words(text)
    if not mentions and not counts:  # a unit suffix glued on: "28U"
        mentions = [m for m in find_suffixed_numbers(text) if m.text == text.strip()]
    if not mentions and not counts:  # a number written as a word: "zero", "third", "a third"
        mentions = find_number_words(text)
    if len(mentions) != 1:
        raise ValueError(f"{text!r} is not one number")
    mention = mentions[0]
    before, after = text[: mention.start], text[mention.end :]
    if re.match(r"\s*/\s*\d", after):  # "9/10": a count out of a total, two numbers
        raise ValueError(f"{text!r} is two numbers, not one")
    if not (_NUMBER_BEFORE.fullmatch(before) and _NUMBER_AFTER.fullmatch(after)):
        # "1 - M/|V|", "p(U)/(K+1)": a formula around a number states no number
        raise ValueError(f"{text!r} is not one number (a formula: leave the number empty)")
    return mention


def _in_points(mention: NumberMention, quote: str) -> bool:
    """Whether ``mention`` is a gain in points ("3 pp", "8 percentage points", "2.1 points")
    where the quote writes it."""
    if mention.unit in {"pp", "points", "point"} or mention.unit.startswith("percentage"):
        return True
    after = rf"(?<![\d.]){re.escape(mention.text)}\s*(?:percentage[\s-]+points?|pp|points?)\b"
    return re.search(after, quote, re.IGNORECASE) is not None


def _constant(text: str, quote: str, relative: bool, fraction: bool = False) -> Constant | None:
    """The number ``text`` states, read by code; None when ``text`` is empty. With
    ``relative`` (a relative difference, or a percentage that is a fraction of one) a
    percentage is read as its hundredth."""
    if not text.strip():
        return None
    mention = _one_number(text)
    # "roughly 8 percentage points" between values given as fractions of one: 0.08
    percent = mention.unit == "%" or (fraction and _in_points(mention, quote))
    value = mention.value / 100 if relative and percent else mention.value
    return Constant(value=value, text=mention.text)


def _expression(text: str) -> PowerMention:
    """The one rate or power ``text`` writes ("O(1/T)", "1/k^2", "√T", "log T / T")."""
    mentions = find_powers(text)
    if len(mentions) > 1:
        read = parse_power(text)  # "N^(2/3) T^(1/3)": a product of powers, written with a space
        if read is None:
            raise ValueError(f"rate exponent {text!r} is not one expression")
        return PowerMention(text=text, powers=read[0], logs=read[1], end=len(text))
    if mentions:
        return mentions[0]
    read = parse_power(text)
    if read is None:
        raise ValueError(
            f"rate exponent {text!r} is not a product of powers code can read (a sum, or an "
            "exponent that is not a number)"
        )
    return PowerMention(text=text, powers=read[0], logs=read[1], end=len(text))


def _rate(part: LLMCheckPart, quote: str) -> Rate:
    """The rate the reply states, its exponent and log power read by code from the expression
    the reply copied from the claim; the order too, when the claim writes one around it."""
    text = part.exponent.strip()
    if not text:
        raise ValueError("a rate needs its expression as the claim writes it (exponent)")
    mention = _expression(text)
    symbol = variable_symbol(part.variable) if part.variable.strip() else ""
    around = next(
        (m for m in find_powers(quote) if m.order and text in m.text),
        mention if mention.order else None,
    )  # "1/k^2" copied out of the claim's "Θ(1/k^2)" is a Θ
    order = around.order if around is not None else ""
    order = order or (part.order if part.order != "none" else "")
    if not order:
        raise ValueError(f"a rate needs its order (O, Theta or Omega) for {text!r}")
    if around is not None and part.order not in {"none", around.order}:
        raise ValueError(f"the claim writes {around.text!r}, not an order {part.order}")
    variables = [*mention.powers, *(v for v in mention.logs if v not in mention.powers)]
    if symbol and variables and symbol not in variables:
        raise ValueError(
            f"{symbol!r} is not a variable of {text!r} (its variables: {', '.join(variables)})"
        )
    if not symbol:
        swept = variable_symbol(part.sweep) if part.sweep.strip() else ""
        if len(variables) == 1:
            symbol = variables[0]
        elif swept and (swept in variables or not variables):  # "Omega(1)" over T
            symbol = swept
        else:
            raise ValueError(f"a rate on {text!r} needs its variable")
    exponent, logs = mention.exponent(symbol), mention.log_power(symbol)
    if exponent is None or logs is None:
        raise ValueError(
            f"{text!r} does not give the exponent of {symbol!r} (inside a sum or a polylog)"
        )
    return Rate(
        order=Order(order),
        symbol=symbol,
        exponent=Constant(value=exponent, text=text),
        log_exponent=Constant(value=logs, text=text) if logs else None,
    )


#: the words that say which way a difference goes, nearest to its number: a fall ("reduces",
#: "drops", "costs 4.7 points"), an improvement ("outperforms", "gains": negative only where
#: lower is better, an error or a latency) or a rise ("increases", "higher", "worse")
_CUE = re.compile(
    r"\b(?:(?P<down>reduc\w*|decreas\w*|lower\w*|cut\w*|drop\w*|shrink\w*|fewer|less|sav\w*|"
    r"degrad\w*|declin\w*|fall\w*|fell|costs|hurts?|los(?:e|es|ing|t))|(?P<better>"
    r"outperform\w*|improv\w*|better|gains?|surpass\w*|beats?|exceed\w*|boost\w*|"
    r"speed-?ups?|faster)|(?P<up>increas\w*|higher|more|"
    r"rais\w*|grow\w*|larger|worse|slower|overheads?|slowdowns?))\b",
    re.IGNORECASE,
)
#: the words right after a number, up to the first punctuation: where the cue after it stands
#: ("2.67-point average performance drop", "21.6% latency reduction", "an 8.79\u00b0 improvement")
_THAN = re.compile(r"\s+than\s*(?:about\s+|roughly\s+|~\s*)?[-+\u2212]?$", re.IGNORECASE)
_CLAUSE_WORDS = frozenset(
    {"while", "whereas", "but", "and", "with", "using", "despite", "although", "though",
     "yet", "at", "compared", "versus", "vs", "than"}
)  # fmt: skip
_AFTER_WORDS = re.compile(r"^[^\s,;.()]*((?:\s+[\w-]+){1,4})")
_FLIP = {Comparator.ge: Comparator.le, Comparator.gt: Comparator.lt,
         Comparator.le: Comparator.ge, Comparator.lt: Comparator.gt}  # fmt: skip


def _falls(quote: str, at: int, end: int, direction: Direction) -> bool:
    """Whether the claim says the difference whose number stands at ``quote[at:end]`` is a fall
    of the subject below its baseline: the cue right after the number ("a 21.6% latency
    reduction"), else the nearest before it in the same sentence ("SFT drops MMMU by 12.0
    points (52.1%\u219240.1%) and MMLU-Pro by 16.9 points")."""
    after = _AFTER_WORDS.match(quote[end : end + 60])
    words = after.group(1).split() if after else []
    # "surpassing B by 3.7% while using fewer FLOPs": the next clause's cue is not this one's
    cut = next((i for i, w in enumerate(words) if w.lower() in _CLAUSE_WORDS), len(words))
    cue = next((c for word in words[:cut] if (c := _CUE.fullmatch(word))), None)
    if cue is None:
        window = quote[max(0, at - 300) : at]
        stop = max(window.rfind(". "), window.rfind(";"), window.rfind("? "))
        clause = window[stop + 1 :]
        # "less than 2% extra latency": a comparator's words before the number, not a fall
        cues = [c for c in _CUE.finditer(clause) if not _THAN.match(clause[c.end() :])]
        cue = cues[-1] if cues else None
    if cue is None:
        return False
    if cue.group("down"):
        return True
    return bool(cue.group("better")) and direction is Direction.lower


def _find_number(quote: str, text: str, start: int = 0) -> int:
    """Where ``quote`` writes the number ``text`` as a whole number (not "2.1" inside "52.1%"),
    from ``start``; -1 when it does not."""
    found = re.compile(rf"(?<![\d.]){re.escape(text)}(?!\d)").search(quote, start)
    return found.start() if found else -1


def _reduction(
    quote: str,
    constant: Constant,
    upper: Constant | None,
    comparator: Comparator | None,
    direction: Direction,
) -> tuple[Constant, Constant | None, Comparator | None]:
    """A difference the claim states as a fall is negative: subject minus baseline falls by
    that much ("reduces GFLOPs by 15.29%", "a 37% degradation", "removing X costs 4.7 points",
    "outperforms B by 53.7%" in an error, where lower is better). The model copies the number
    as written, unsigned; a number written with its sign is taken as given."""
    if constant.text.lstrip().startswith(("+", "-", "\u2212")) or constant.value < 0:
        return constant, upper, comparator
    at = _find_number(quote, constant.text)
    last = upper if upper is not None else constant
    end = _find_number(quote, last.text, max(at, 0)) if at >= 0 else -1
    if at < 0 or not _falls(quote, at, (end if end >= 0 else at) + len(last.text), direction):
        return constant, upper, comparator
    negative = constant.model_copy(update={"value": -constant.value})
    if upper is None:
        return negative, None, _FLIP.get(comparator, comparator) if comparator else None
    # "by 10-15%": between -0.15 and -0.10
    return upper.model_copy(update={"value": -upper.value}), negative, comparator


#: a quantity named as an ablated variant ("accuracy_without_verification", "no_gmm_acc")
_ABLATED = re.compile(r"(?:^|_)(?:without|wo|w_o|no|minus|ablat\w*|remov\w*)(?:_|$)")


def _magnitude(constant: Constant, quote: str) -> NumberMention | None:
    """The order of magnitude the quote states where ``constant`` is copied from ("roughly
    1e-5", "~10^2": :func:`~openrepro.claims.values.find_magnitudes`), or None."""
    text = constant.text.strip()
    notation = bool(find_magnitudes(f"~{text}"))  # "10^2" copied for the claim's "10²"
    return next(
        (
            m
            for m in find_magnitudes(normalize_with_map(quote)[0]) + find_magnitudes(quote)
            if m.text == text or (notation and math.isclose(m.value, constant.value, rel_tol=1e-9))
        ),
        None,
    )


#: words before a number that make it inexact: a value at its bound written so is not exact
_INEXACT = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|near|close\s+to|"
    r"over|under|up\s+to|at\s+least|at\s+most|more\s+than|less\s+than)|[~\u223c\u2248<>"
    r"\u2264\u2265])\s*$",
    re.IGNORECASE,
)


#: quantities whose value 1 is their bound (a rate, an accuracy, a match): "1.00" is perfect
_UNIT_INTERVAL = re.compile(
    r"rate|accura|match|agree|recall|precision|success|probab|fraction|share|coverage|auc|"
    r"f1|score|consisten|fidelity|pass|correl|tau|kendall|spearman",
    re.IGNORECASE,
)


def _exact(number: str, quote: str, subject: str) -> bool:
    """Whether the value copied as ``number`` is at its bound and written exactly: 100%, a
    rate, accuracy or match (``subject``) written "1.0" / "1.00", or zero ("0", "0.0", "zero"),
    with no approximation before it, in the copy or in the quote. Such a value has no slack
    either way (a slope or a ratio of 1.0 is not at a bound: it keeps its tolerance)."""
    if not number.strip():
        return False
    mention = _one_number(number)
    one = not mention.unit and re.fullmatch(r"1\.0+", mention.text) is not None
    at_bound = (
        (mention.unit == "%" and mention.value == 100)
        or (one and _UNIT_INTERVAL.search(subject) is not None)
        or mention.value == 0
    )
    if not at_bound or number[: mention.start].strip():
        return False  # "~100%", "about 1.0": the copy says it is approximate
    hay = normalize_with_map(quote)[0]
    places = [m.start() for m in re.finditer(re.escape(mention.text), hay)]
    return bool(places) and not any(_INEXACT.search(hay[max(0, at - 24) : at]) for at in places)


#: the things a count counts ("2,169 samples", "647 test cases", "26 scenarios")
_COUNT_NOUN = re.compile(
    r"\s+(?:[\w-]+\s+){0,2}?(?:samples|examples|tasks|pairs|videos|images|questions|"
    r"instances|scenarios|test\s+cases|cases|problems|documents|cities|languages|categories|"
    r"classes|queries|items|entries|papers|prompts|dialogues|conversations|clips|scenes|"
    r"subjects|participants|annotations|repositories|functions|programs|benchmarks|datasets|"
    r"models|domains|species|molecules|proteins|bugs|vulnerabilities|tokens|dimensions)\b",
    re.IGNORECASE,
)


def _exact_count(number: str, quote: str) -> bool:
    """Whether ``number`` is a count of things the quote writes exactly ("2,169 samples", "26
    scenarios"): an integer with no unit and no approximation before it, a plural count noun
    within three words after it. A count is exact: 5 % let 2,169 samples be 2,061 (read by
    hand, fresh10); "64K" or "about 2,000 samples" keep the tolerance."""
    if not number.strip():
        return False
    mention = _one_number(number)
    if mention.unit or "." in mention.text or mention.value < 2 or number[: mention.start].strip():
        return False
    hay = normalize_with_map(quote)[0]
    at = _find_number(hay, mention.text)
    return (
        at >= 0
        and _COUNT_NOUN.match(hay[at + len(mention.text) : at + len(mention.text) + 40]) is not None
        and not _INEXACT.search(hay[max(0, at - 24) : at])
    )


#: a claim of an empirical convergence ("converges to the predicted equilibrium")
_CONVERGES = re.compile(
    r"\b(?:converg\w*|approach\w*|tends?\s+to(?:wards?)?|settl\w*|equaliz\w*|equalis\w*)\b",
    re.IGNORECASE,
)


_DECIMALS = re.compile(r"\d[\d,]*(?:\.(?P<frac>\d+))?")


def _written_precision(*constants: Constant | None) -> float:
    """The least slack of values written with decimals: one unit of the last decimal the claim
    writes ("0.02%" is held to 0.01, "r = -0.05" to 0.01), in the constant's own scale (a
    percentage read as its hundredth scales with it); 0 for integers, powers and suffixed
    numbers ("12", "3e-5", "4.5k"), which the relative tolerance alone holds. A 5 % slack on a
    value near zero is tighter than the rounding of the value itself (read by hand, fresh9)."""
    precision = 0.0
    for constant in constants:
        if constant is None:
            continue
        try:
            mention = _one_number(constant.text)
        except ValueError:
            continue
        digits = _DECIMALS.search(mention.text)
        if (
            digits is None
            or not digits.group("frac")
            or mention.value == 0
            or re.search(r"[eE][-+]?\d|\^|[x\u00d7]\s?10|\d[kKMB]\b", mention.text)
        ):
            continue
        scale = abs(constant.value / mention.value)
        precision = max(precision, 10.0 ** -len(digits.group("frac")) * scale)
    return precision


#: a non-strict ordering the claim words as "no worse" ("without degrading", "comparable to or
#: larger", "matches or exceeds", "preserves"): a tie within the value's tolerance holds it
_NO_WORSE = re.compile(
    r"\b(?:without\s+(?:\w+\s+)?(?:degrad\w*|hurt\w*|loss|losing|sacrific\w*|compromis\w*|"
    r"harm\w*)|no\s+worse|not\s+worse|comparable\s+(?:to\s+|with\s+)?or\s+\w+|"
    r"(?:match\w*|on\s+par)\s+(?:or|and)\s+(?:exceed\w*|surpass\w*|better|beat\w*)|"
    r"remains?\s+competitive|(?:preserv|maintain)\w*|retain\w*)",
    re.IGNORECASE,
)
#: how far an approximate share of a baseline ("roughly 25% of the tokens") may be: 5 points
ROUGH_SHARE_POINTS = 0.05
#: a value below this is at the scale of numerical error ("a residual of 3.3e-7"): a run
#: reproduces its order of magnitude, not its digits
_NUMERICAL_SCALE = 1e-4


def _tolerance(
    relation: Relation,
    comparator: Comparator | None,
    quote: str,
    approx_tol: float,
    constant: Constant | None,
    upper: Constant | None,
    *,
    exact: bool,
    magnitude: bool,
) -> Tolerance:
    """How close a leaf's values must come, each choice from a read-by-hand review:

    - a value at its bound ("100%", "a perfect 1.00", "zero errors") is held exactly (5 % slack
      accepted 95 % for "100% match", fresh7), and so is an order of magnitude (its range is
      the slack);
    - "at least", "below", "best", "outperforms": no slack, the judge's interval over seeds
      decides (5 % let "best on all four" hold 5 % below an ablation, fresh7);
    - but a range of reported values ("ranges from 85.9% to 95.6%": a bound ``between``) holds
      its ends as values are held (with no slack a run whose weakest value came in 0.2 below
      failed, fresh10), and a "no worse" ordering ("without degrading", "comparable to or
      larger") lets a tie within the value's tolerance hold (fresh10);
    - a value at the scale of numerical error (below 1e-4: "a conservation error of 3.3e-7") is
      held to its order of magnitude, up to √10 times it (5 % of it is rounding noise, fresh10);
    - else the relation's usual tolerance, at least one unit of the value's last written
      decimal (:func:`_written_precision`)."""
    if exact or magnitude:
        return Tolerance(rel=0.0)
    if relation is Relation.bound:
        if comparator is Comparator.between:
            return Tolerance(rel=DEFAULT_REL_TOL, abs=_written_precision(constant, upper))
        return Tolerance(rel=0.0)
    if relation is Relation.ordering:
        no_worse = comparator in {Comparator.ge, Comparator.le} and _NO_WORSE.search(quote)
        return Tolerance(rel=DEFAULT_REL_TOL if no_worse else 0.0)
    written = _written_precision(constant, upper)
    if (
        relation is Relation.equal
        and constant is not None
        and 0 < abs(constant.value) < _NUMERICAL_SCALE
    ):
        written = max(written, abs(constant.value) * (MAGNITUDE_FACTOR - 1))
    return Tolerance(rel=approx_tol, abs=written)


#: a subject that names a change already ("gain", "improvement"): a difference of it from a
#: baseline's value subtracts a value from a gain
_CHANGE_NAME = re.compile(
    r"(?:^|_)(?:gain|gains|improvement|delta|drop|increase|decrease|reduction|speedup|uplift|"
    r"boost)(?:_|$)"
)


def _leaf(reply: LLMCheckPart, quote: str) -> Check:
    """One relation of the reply as a check (a ValueError or ValidationError when invalid)."""
    subject = _slug(reply.subject)
    baselines = [b for b in dict.fromkeys(_slug(b) for b in reply.baselines) if b != subject]
    relation = Relation(reply.relation)
    if (
        relation is Relation.difference
        and baselines
        and _CHANGE_NAME.search(subject)
        and not _CHANGE_NAME.search(baselines[0])
    ):  # a speedup minus a speedup is a difference of two values
        raise ValueError(
            f"a difference of {subject!r} from {baselines[0]!r} subtracts a value from a gain"
        )
    if relation is Relation.change and not baselines:  # "from 71.5% to 81.1%": the value before
        baselines = [before_quantity(subject)]
    relative = reply.relative and relation is Relation.difference
    # a ratio is a fraction of one: "less than 10% of the cost" is subject / baseline < 0.1
    hundredth = relative or reply.fraction or relation is Relation.ratio
    number, upper_text, comparator_text = reply.number, reply.upper, reply.comparator
    ends = split_range(number) if not upper_text.strip() else None
    if ends is not None and relation is not Relation.change:  # "4-6": between 4 and 6
        number, upper_text, comparator_text = ends[0], ends[1], "between"
        if relation is Relation.equal:
            relation = Relation.bound
    constant = _constant(number, quote, hundredth, reply.fraction)
    upper = _constant(upper_text, quote, hundredth, reply.fraction)
    if (
        ends is not None
        and hundredth
        and constant is not None
        and _one_number(ends[1]).unit == "%"
        and _one_number(ends[0]).unit != "%"
    ):  # "10-15%": the range's unit is both ends' (find_numbers reads "10" as 10%)
        constant = constant.model_copy(update={"value": constant.value / 100})
    elif ends is None and hundredth and constant is not None and upper is not None:
        # the model split "0.8-1%" itself: number "0.8", upper "1%" (one unit, both ends')
        units = (_one_number(number).unit, _one_number(upper_text).unit)
        if units == ("", "%"):
            constant = constant.model_copy(update={"value": constant.value / 100})
        elif units == ("%", ""):
            upper = upper.model_copy(update={"value": upper.value / 100})
    comparator: Comparator | None = Comparator(comparator_text)
    if (
        relation is Relation.difference
        and constant is not None
        and constant.value == 0
        and upper is None
        and comparator is Comparator.eq
    ):  # "zero net improvement": no relative tolerance holds around 0; the two are comparable
        relation, constant = Relation.comparable, None
    ablated = bool(baselines) and _ABLATED.search(baselines[0]) and not _ABLATED.search(subject)
    if relation is Relation.difference and constant is not None and not ablated:
        # "removing X drops accuracy by 8.56" as full minus without_x: the drop is the
        # baseline's, and the difference as the model oriented it is +8.56 (fresh12)
        constant, upper, comparator = _reduction(
            quote, constant, upper, comparator, Direction(reply.direction)
        )
    magnitude = (
        _magnitude(constant, quote)
        if constant is not None
        and upper is None
        and relation in {Relation.equal, Relation.bound, Relation.ratio}
        else None
    )
    if magnitude is not None and constant is not None:  # "roughly 1e-5": an order of magnitude
        # ("two orders of magnitude faster": a ratio of about 10^2)
        low, high = magnitude_range(magnitude.value)
        if relation is Relation.equal or comparator in {Comparator.eq, Comparator.between}:
            relation = Relation.ratio if relation is Relation.ratio else Relation.bound
            comparator = Comparator.between
            constant, upper = (constant.model_copy(update={"value": low}),
                               constant.model_copy(update={"value": high}))  # fmt: skip
        else:  # "below roughly 1e-5": the bound on the claim's side of the magnitude
            value = high if comparator in {Comparator.le, Comparator.lt} else low
            constant = constant.model_copy(update={"value": value})
    if relation is Relation.identity and constant is None and _CONVERGES.search(quote):
        raise ValueError(
            "a run that converges to a value or an equilibrium is not an identity (a finite "
            "run never reaches it exactly)"
        )
    if (
        relation is Relation.identity
        and not baselines
        and constant is not None
        and (constant.value == 0)
    ):  # "a divergence of 0.0": the value itself, held exactly
        relation = Relation.equal
    exact = relation is Relation.equal and (
        _exact(number, quote, subject) or _exact_count(number, quote)
    )
    law = GrowthLaw(reply.law) if reply.law != "none" else None
    trend = Trend(reply.trend) if reply.trend != "none" else None
    description = subject.replace("_", " ")
    rate = _rate(reply, quote) if relation is Relation.rate else None
    sweep = reply.sweep.strip() or (rate.symbol if rate is not None else "")
    if relation in {Relation.ordering, Relation.trend, Relation.growth, Relation.rate}:
        upper = None
        if not (relation is Relation.growth and law is GrowthLaw.exponential):
            constant = None  # only an exponential law has a constant (its base)
    if relation is Relation.comparable:
        upper = None
    if relation in {Relation.equal, Relation.change, Relation.rate, Relation.identity}:
        comparator = None
    if relation is Relation.ordering and comparator in {Comparator.eq, Comparator.between}:
        comparator = None
    if relation is Relation.rate:
        law = trend = None  # the exponent's sign says which way it goes
    if relation is Relation.identity:
        upper = None
        if len(baselines) > 1:
            raise ValueError("an identity equates two quantities, not more")
        if baselines:  # "A and B agree": the residual |A - B| is the subject
            description = f"max |{subject} - {baselines[0]}| (the residual of the identity)"
            subject = _slug(f"{subject}_minus_{baselines[0]}"[:64])
            baselines = []
    if comparator is not Comparator.between and relation is not Relation.change:
        upper = None
    if (
        comparator is Comparator.between
        and constant is not None
        and upper is not None
        and constant.value > upper.value
    ):  # "drops of -0.36 to -0.48": a range's ends in order
        constant, upper = upper, constant
    # a ratio written as a share of the baseline ("retains 97.16%") is held like a value; a
    # factor ("8x faster") and a difference of two noisy values keep the wider tolerance
    share = (
        relation is Relation.ratio
        and constant is not None
        and ("%" in constant.text or (upper is not None and "%" in upper.text))
    )
    # an approximate share ("~99% of full-data performance", "roughly 25% of the tokens") is
    # held within 5 points: 25 % of it let 74 % pass for "~99%" (read by hand, fresh9, fresh12)
    rough_share = (
        share
        and constant is not None
        and bool(
            _INEXACT.search(number[: number.find(constant.text)])
            or _INEXACT.search(quote[: max(0, quote.find(constant.text))])
        )
    )
    approx_tol = (
        APPROX_DIFF_REL_TOL
        if relation in {Relation.difference, Relation.ratio} and not share
        else DEFAULT_REL_TOL
    )
    single = SINGLE_QUANTITY
    leaf = Check(
        origin=Origin.llm,
        relation=relation,
        quantities=[
            Quantity(
                name=subject,
                description=description,
                sweep=sweep if relation in {Relation.rate, Relation.trend, Relation.growth} else "",
            ),
            *(Quantity(name=n, description=n.replace("_", " ")) for n in baselines),
        ],
        subject=subject,
        baselines=baselines if relation not in single else [],
        comparator=comparator,
        constant=constant,
        upper=upper,
        relative=relative,
        direction=Direction(reply.direction),
        tolerance=Tolerance(rel=0.0, abs=ROUGH_SHARE_POINTS)
        if rough_share
        else _tolerance(
            relation,
            comparator,
            quote,
            approx_tol,
            constant,
            upper,
            exact=exact,
            magnitude=magnitude is not None,
        ),
        trend=trend,
        law=law,
        sweep=sweep if relation in {Relation.rate, Relation.trend, Relation.growth} else "",
        rate=rate,
    )
    if leaf.relation in single:
        leaf = leaf.model_copy(update={"quantities": leaf.quantities[:1]})
    return leaf


def _part(part: LLMCheckPart, quote: str) -> Check:
    """One of the ``also`` parts, inside its own quantifier when it has one ("up to N")."""
    leaf = _leaf(part, quote)
    if part.quantifier == "none":
        return leaf
    return Check(
        origin=Origin.llm, relation=Relation(part.quantifier), inner=leaf, sweep=part.over.strip()
    )


def _phrase(text: str, hay: str) -> bool:
    """Whether ``hay`` (normalised, lower case) writes ``text`` as a whole phrase."""
    needle = normalize_with_map(text)[0].strip().lower()
    return bool(needle) and re.search(rf"(?<![\w.]){re.escape(needle)}(?![\w])", hay) is not None


def _quantifier(reply: LLMCheckDraftV5, inner: Check, quote: str) -> Check:
    """The reply's quantifier around ``inner``: its labels, count and at_least read by code and
    found in the claim as written ("9 of 10 tasks", "across four datasets", "on SVHN")."""
    counted = bool(reply.labels or reply.count.strip() or reply.at_least.strip())
    if reply.quantifier != "for_all":
        if counted:
            raise ValueError("only for_all has labels, count or at_least")
        return Check(
            origin=Origin.llm,
            relation=Relation(reply.quantifier),
            inner=inner,
            sweep=reply.over.strip(),
        )
    hay = normalize_with_map(quote)[0].lower()
    named = " ".join([hay, *slashed_labels(normalize_with_map(quote)[0])]).lower()
    labels = [label.strip() for label in reply.labels]
    numbers = [find_numbers(label) for label in labels]
    domain: list[Constant] = []
    if labels and all(
        len(n) == 1 and n[0].text == label for n, label in zip(numbers, labels, strict=True)
    ):
        # "a in {1.5, 2.0}": the settings are values of the sweep, an enumerated domain
        domain = [Constant(value=n[0].value, text=n[0].text) for n in numbers]
        labels = []
    for label in labels:
        if len(label) < 2 or not _phrase(label, named):
            raise ValueError(f"setting {label!r} is not named in the quote")
    count = at_least = None
    if reply.count.strip():
        mention = _one_number(reply.count, counts=True)
        if mention.unit:
            raise ValueError(f"count {reply.count!r} is a measurement, not a number of settings")
        count = Constant(value=mention.value, text=mention.text)
    if reply.at_least.strip():
        mention = _one_number(reply.at_least, counts=True)
        if count is None:
            raise ValueError('at_least needs the count it is out of ("9 of 10": count 10)')
        written = rf"(?<![\w.]){re.escape(mention.text.lower())}\s+(?:out\s+)?of\s+(?:the\s+)?"
        if not re.search(written + rf"{re.escape(count.text.lower())}(?![\w.%])", hay):
            raise ValueError(
                f'the claim does not write {mention.text!r} of {count.text!r} ("9 of 10")'
            )
        at_least = Constant(value=mention.value, text=mention.text)
    elif count is not None and not re.search(
        rf"(?<![\w.]){re.escape(count.text.lower())}\s+[^\W\d_]", hay
    ):  # "four datasets", "10 tasks": a count of things, not "90%"
        if count.value != len(labels) or not labels:
            raise ValueError(f"count {count.text!r} is not written in the quote as a count")
        count = None  # the number of the settings it names: the labels say it
    return Check(
        origin=Origin.llm,
        relation=Relation.for_all,
        inner=inner,
        sweep=reply.over.strip(),
        labels=labels,
        domain=domain,
        count=count,
        at_least=at_least,
    )


#: what a drafter should change, by the words of a refusal (the first that matches)
_FIXES: tuple[tuple[str, str], ...] = (
    ("needs a baseline", "name the quantity it is compared with in baselines, even where the "
     "claim names it only by a word ('lossless' -> lossless_accuracy)"),
    ("(a formula", "a formula of symbols states no number: leave that part out, or answer "
     "'none' when nothing else is checkable"),
    ("is two numbers", "'9/10 tasks' is at_least '9' of count '10' with quantifier for_all; "
     "two reported values are two parts"),
    ("only inside a formula", "a number inside a formula of symbols is not a stated value: "
     "leave that part out unless the claim gives the formula's value as a number"),
    ("is not one number", "copy one number as the claim writes it into number (a range's "
     "second end into upper; '9/10' is two numbers); a formula of symbols states no number"),
    ("is not stated in the quote", "copy each number exactly as the claim writes it"),
    ("is not named in the quote", "copy each setting's name exactly as the claim writes it"),
    ("not a product of powers", "copy the rate's whole expression as the claim writes it "
     "(O/Theta/Omega around it); a symbolic exponent (n^(d-1)) or poly(...) cannot be "
     "checked: leave that part out"),
    ("does not give the exponent", "name in variable a variable outside any sum or polylog, "
     "or leave that part out"),
    ("is not a variable of", "name in variable a variable the expression writes with a "
     "number for its exponent (a variable only inside a symbolic exponent cannot be checked: "
     "leave that part out)"),
    ("needs its variable", "name in variable (or sweep) the variable the runs sweep"),
    ("needs its order", "give the order: O, Theta or Omega"),
    ("needs a constant", "copy the number the claim states into number"),
    ("needs a comparator", "give the comparator: ge, gt, le, lt or between"),
    ("would not use", "put every number the claim reports as a result into one part (also), "
     "the baselines' values too; where such a number cannot be checked, answer 'none'"),
    ("settings are named", "count is the number of settings: list every one in labels, or "
     "leave labels empty and give count as the claim writes it"),
    ("settings not enumerated", "name the settings in labels, or give their count as written "
     "with quantifier for_all; an average over them is one quantity (subject average_...)"),
    ("identity's constant", "an identity's number is the tolerance the claim writes "
     "('1e-12'); an exact value (0, 100%) is 'equal'"),
    ("for every setting", "a value the claim gives for one setting is a part of its own, "
     "outside the for_all (name the setting in the quantity)"),
    ("is not an identity", "state the gap's decreasing trend over the swept variable, or a "
     "rate the claim writes, or answer 'none'"),
    ("contradict each other", "a claim whose numbers disagree cannot be checked as written: "
     "answer 'none'"),
    ("inside a for_all over", "state an average as a part of its own outside the for_all (a "
     "part's own quantifier holds only that part; the draft's quantifier holds every part)"),
    ("from a gain", "a difference's subject is the method's value (accuracy_with_x) and its "
     "baseline the compared value (accuracy_without_x); the gain is its number"),
    ("do not enforce", "add an ordering part (the better quantity above the other, "
     "comparator gt), or answer 'none'"),
)  # fmt: skip


def _what_to_change(reason: str) -> str:
    """``reason`` with what to change in the draft, where the refusal's words say it."""
    fix = next((fix for words, fix in _FIXES if words in reason), "")
    return f"{reason} (to fix: {fix})" if fix else reason


_HOLDS: dict[Comparator | None, Callable[[float, float], bool]] = {
    None: lambda gap, margin: abs(gap) <= margin,
    Comparator.eq: lambda gap, margin: abs(gap) <= margin,
    Comparator.ge: lambda gap, margin: gap >= -margin,
    Comparator.gt: lambda gap, margin: gap > -margin,
    Comparator.le: lambda gap, margin: gap <= margin,
    Comparator.lt: lambda gap, margin: gap < margin,
}


def _agreeing(leaf: Check, values: dict[str, list[float]]) -> Check:
    """A difference part as the claim's own values of its two quantities, stated in other
    parts, have it: as it is where they agree with it; with its sign turned where they agree
    only with the opposite sign (the words' cue misread the direction: "from 0.411 to 0.358,
    a 13% gain" in an error); a ValueError where they disagree with its number either way (a
    claim whose numbers contradict each other: "52.1 -> 79.6, a 21.9-point gain": a faithful
    run fails one part or the other). Anything else is returned as it is."""
    if (
        leaf.relation is not Relation.difference
        or leaf.constant is None
        or len(leaf.baselines) != 1
        or leaf.comparator not in _HOLDS
    ):
        return leaf
    a, b = values.get(leaf.subject, []), values.get(leaf.baselines[0], [])
    if len(a) != 1 or len(b) != 1 or (leaf.relative and b[0] == 0):
        return leaf
    implied = (a[0] - b[0]) / abs(b[0]) if leaf.relative else a[0] - b[0]
    d = leaf.constant.value
    margin = leaf.tolerance.margin(d)
    holds = _HOLDS[leaf.comparator]
    if holds(implied - d, margin):
        return leaf
    flipped = _FLIP.get(leaf.comparator, leaf.comparator) if leaf.comparator else None
    if _HOLDS[flipped](implied + d, margin):
        return leaf.model_copy(
            update={
                "constant": leaf.constant.model_copy(update={"value": -d}),
                "comparator": flipped,
            }
        )
    raise ValueError(
        f"the claim's own values contradict each other: {leaf.subject} - {leaf.baselines[0]} "
        f"is {implied:.4g} by the values it states, not {leaf.constant.text}"
    )


def _consistent(leaves: list[Check]) -> list[Check]:
    """The parts as the claim's own values, stated in other parts (``equal``, and the two ends
    of a ``change``), have them: a "comparable" they refute ("0.012, nearly matching 0.010":
    20 % apart, beyond the comparable's 5 %) is left out, never the values (those say how close
    the claim means); a difference they contradict takes their sign, and a claim whose
    difference disagrees with them either way is refused (:func:`_agreeing`)."""
    values: dict[str, list[float]] = {}
    for leaf in leaves:
        if leaf.relation is Relation.equal and leaf.constant is not None and leaf.subject:
            values.setdefault(leaf.subject, []).append(leaf.constant.value)
        if (
            leaf.relation is Relation.change
            and leaf.constant is not None
            and leaf.upper is not None
            and len(leaf.baselines) == 1
        ):  # "from 52.1 to 79.6": the value before, and the value after
            values.setdefault(leaf.baselines[0], []).append(leaf.constant.value)
            values.setdefault(leaf.subject, []).append(leaf.upper.value)

    def refuted(leaf: Check) -> bool:
        if leaf.relation is not Relation.comparable or len(leaf.baselines) != 1:
            return False
        a, b = values.get(leaf.subject, []), values.get(leaf.baselines[0], [])
        if len(a) != 1 or len(b) != 1:
            return False
        return abs(a[0] - b[0]) > leaf.tolerance.margin(max(abs(a[0]), abs(b[0])))

    kept = [_agreeing(leaf, values) for leaf in leaves if not refuted(leaf)]
    return kept or leaves


#: words that state a universal over settings ("on all four datasets", "across benchmarks")
_UNIVERSAL = re.compile(
    r"\b(?:all|every|each|both|across|consistently|always|any|uniformly)\b", re.IGNORECASE
)
#: a value the quote scopes to one setting: "0.951 (Quux)", "10^3 on Zorp", "for Quux"
_SCOPED_AFTER = re.compile(
    r"^[^\s,;.]*\s*(?:\(\s*(?!Table|Fig|Figure|Sec|Section|Eq|Appendix|e\.g|i\.e)[A-Z]"
    r"|(?:on|for|in|with)\s+(?:the\s+)?[A-Z][\w-]*\d*\b(?![^,;.]{0,12}\band\b))"
)


def _scope_problem(check: Check, quote: str) -> str:
    """Why a quantifier of ``check`` over settings claims a value the quote does not state for
    every setting, or "": a ``for_all`` of one value ("for every dataset: auroc = 0.951") holds
    for each setting only where the claim says so (all, each, both, across, or by naming two or
    more settings: "exact on A and on B") and does not scope the value to one setting
    ("0.951 (Quux)", "roughly 10^3 on Zorp"). A ``for_all`` of several parts (an ordering per
    setting, and values named per setting) is left as it is, unless one of its quantities is
    named an aggregate ("avg_top1_gain", "mean_accuracy"): an average over the settings is one
    value, never one per setting (fresh11: "+1.60% on average across five scales" was held at
    every scale)."""
    hay = normalize_with_map(quote)[0]
    # "on A and B" names the settings (a part's own for_all has no labels: the draft's do)
    named = any(len(n.labels) >= 2 for n in check.nodes() if n.relation is Relation.for_all)
    for node in check.nodes():
        if node.relation is not Relation.for_all or node.inner is None:
            continue
        inner = node.inner
        aggregate = next(
            (q.name for n in inner.nodes() for q in n.quantities if is_aggregate_name(q.name)),
            "",
        )
        if aggregate:
            return (f"an aggregate {aggregate!r} inside a for_all over the settings it "
                    "aggregates")  # fmt: skip
        if inner.relation is Relation.equal and inner.constant is not None:
            text = inner.constant.text.strip()
            if not _UNIVERSAL.search(hay) and not named:
                return (f"a value {text!r} for every setting, where the claim states no "
                        "universal over settings")  # fmt: skip
            places = [m.end() for m in re.finditer(re.escape(text), hay)]
            if places and all(_SCOPED_AFTER.match(hay[at : at + 40]) for at in places):
                return f"a value {text!r} for every setting, where the claim gives it for one"
    return ""


#: words that order two values ("outperforms", "higher than", "drops", "ahead of")
_ORDER_WORD = re.compile(
    rf"{_CUE.pattern}|\b(?:than|ahead\s+of|above|below|exceeds?|beats?|surpass\w*)\b",
    re.IGNORECASE,
)


_FROM_TO = re.compile(r"\s*%?\s*(?:to|\u2192|->)\s*", re.IGNORECASE)


def _unordered_overlap(leaves: list[Check], quote: str) -> str:
    """Why two values of the check do not enforce the order the claim states, or "": two
    ``equal`` parts whose numbers the quote joins with a word that orders them, between the two
    ("A reaches 71.2, outperforming B's 70.9", "from 92.0% to 93.2%"), whose tolerances overlap
    (a run with B above A passes both), and no part that relates the two (an ordering, a
    difference, a ratio, a change, a comparable). Read by hand on fresh10, such checks passed
    reversed orders; the repair round asks for the ordering. Values of two settings listed in
    one sentence ("77.8% on backend and 77.9% on database") have no such word between them, and
    a word with another number between the two orders another pair (fresh11)."""
    values = [
        leaf
        for leaf in leaves
        if leaf.relation is Relation.equal and leaf.constant is not None and leaf.subject
    ]
    related = [
        {leaf.subject, *leaf.baselines}
        for leaf in leaves
        if leaf.relation
        in {Relation.ordering, Relation.difference, Relation.ratio, Relation.change,
            Relation.comparable}
    ]  # fmt: skip
    hay = normalize_with_map(quote)[0]
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            assert a.constant is not None and b.constant is not None
            x, y = a.constant.value, b.constant.value
            if x == y or a.subject == b.subject:
                continue
            if abs(x - y) > a.tolerance.margin(x) + b.tolerance.margin(y):
                continue
            if any({a.subject, b.subject} <= names for names in related):
                continue
            at_a, at_b = _find_number(hay, a.constant.text), _find_number(hay, b.constant.text)
            if at_a < 0 or at_b < 0:
                continue
            low, high = min(at_a, at_b), max(at_a, at_b)
            first = a if at_a == low else b
            between = hay[low + len(first.constant.text) if first.constant else low : high]
            # "from 92.0% to 93.2%" orders them; "ranges from 0.597 to 0.650" is a range
            ordered = _ORDER_WORD.search(between) or (
                _FROM_TO.fullmatch(between)
                and re.search(r"\bfrom\s*$", hay[max(0, low - 12) : low])
                and not re.search(r"\brang\w*\s+from\s*$", hay[max(0, low - 24) : low])
            )
            # a number between the two: the word orders another pair ("63.0%, a 17-point
            # improvement over B, while C reaches 65.3%")
            if ". " in between or ";" in between or find_numbers(between) or not ordered:
                continue
            return (
                f"the values of {a.subject} ({a.constant.text}) and {b.subject} "
                f"({b.constant.text}) are within each other's tolerance, so they do not enforce "
                "the order the claim states between them"
            )
    return ""


def _stated(leaf: Check) -> set[str]:
    """The quantities ``leaf`` states a value of (the subject of a node with a constant)."""
    return {n.subject for n in leaf.nodes() if n.subject and n.constant is not None}


def _named_apart(leaves: list[Check]) -> list[Check]:
    """The parts with their quantities named apart only where two parts state a value of the
    same name ("accuracy = 54.7%" and "accuracy = 41.0%": two quantities, suffixed per part);
    a name several parts compare ("full > without_a", "full > without_b") is one quantity."""
    counts: dict[str, int] = {}
    for leaf in leaves:
        for name in _stated(leaf):
            counts[name] = counts.get(name, 0) + 1
    clash = {name for name, n in counts.items() if n > 1}
    if not clash:
        return leaves
    return [
        leaf.suffixed(str(i + 1)) if _stated(leaf) & clash else leaf
        for i, leaf in enumerate(leaves)
    ]


_Part = TypeVar("_Part", bound=LLMCheckPart)


_Draft = TypeVar("_Draft", bound=LLMCheckDraftV5)


def _points_of_fractions(reply: _Draft, quote: str) -> _Draft:
    """A gain in % or in points between quantities whose values the claim gives as fractions
    of one ("SR 0.656 ... 0.602, a roughly 5.4% absolute improvement", "0.1959 vs 0.1191,
    roughly 8 percentage points") is a difference of 0.054 (0.08): the parts that state those
    values say the scale, so the number is read as a hundredth (``fraction``)."""
    parts: list[LLMCheckPart] = [reply, *reply.also]
    values: dict[str, list[NumberMention]] = {}
    for part in parts:
        if part.relation == "equal" and part.number.strip():
            try:
                mention = _one_number(part.number)
                values.setdefault(_slug(part.subject), []).append(mention)
            except ValueError:
                continue

    def scaled(part: _Part) -> _Part:
        if part.relation != "difference" or part.relative or part.fraction:
            return part
        try:
            unit = _one_number(part.number).unit if part.number.strip() else ""
            names = [_slug(part.subject), *(_slug(b) for b in part.baselines)]
        except ValueError:
            return part
        stated = [m for name in names for m in values.get(name, [])]
        points = unit == "%" or (
            bool(part.number.strip()) and _in_points(_one_number(part.number), quote)
        )
        if not points or not stated or any(m.unit or not 0 <= m.value <= 1 for m in stated):
            return part
        return part.model_copy(update={"fraction": True})

    also = [scaled(part) for part in reply.also]
    head = scaled(reply)
    return head.model_copy(update={"also": also}) if also else head


def left_out(reply: LLMCheckDraftV5) -> list[str]:
    """The result assertions the model says its check leaves out (v6's ``left_out``; none for
    an older prompt's reply, whose schema has no such field)."""
    if reply.relation == "none" or not isinstance(reply, LLMCheckDraft):
        return []
    return [item.strip() for item in reply.left_out if item.strip()]


def check_from_llm(reply: LLMCheckDraftV5, quote: str) -> Draft:
    """The check a model's reply describes, validated, grounded and audited by code (or why
    not). A reply whose check the model itself says leaves out a result assertion
    (:func:`left_out`) gives no check: the model's abstention, not code's refusal."""
    if reply.relation == "none":
        why = reply.reason.strip() or "no reason given"
        return Draft(reason=f"the model finds no check: {why}", rule="llm")
    missing = left_out(reply)
    if missing:
        return Draft(
            reason="the model finds no complete check: its check leaves out " + "; ".join(missing),
            rule="llm",
        )
    reply = _points_of_fractions(reply, quote)
    try:
        leaves = [_leaf(reply, quote), *(_part(part, quote) for part in reply.also)]
        leaves = _consistent(leaves)
        # on the names as the model gave them: naming apart suffixes a value's name where a
        # difference states it too, and the difference relates the two values
        unordered = _unordered_overlap(leaves, quote)
        if unordered:
            raise ValueError(unordered)
        leaves = _named_apart(leaves)
        check = (
            leaves[0]
            if len(leaves) == 1
            else Check(origin=Origin.llm, relation=Relation.all_of, parts=leaves)
        )
        if reply.quantifier != "none" or reply.labels or reply.count or reply.at_least:
            check = _quantifier(reply, check, quote)
        scope = _scope_problem(check, quote)
        if scope:
            raise ValueError(scope)
        check = Check.model_validate(
            check.model_copy(update={"quote": quote, "rule": "llm"}).model_dump()
        )
    except (ValueError, ValidationError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        return Draft(reason=_what_to_change(f"model's draft is invalid: {first}"), rule="llm")
    problems = grounding_problems(check, quote)
    if problems:
        why = "model's draft is not grounded: " + "; ".join(problems)
        return Draft(reason=_what_to_change(why), rule="llm")
    audit = audit_check(quote, check)
    if audit:
        return Draft(reason=_what_to_change(f"model's draft refused: {audit}"), rule="llm")
    return Draft(check=check, rule="llm")


def draft_schema(prompt: str = PROMPT_VERSION) -> type[LLMCheckDraftV5]:
    """The schema of the reply to drafting prompt ``prompt`` (:data:`PROMPT_SCHEMAS`)."""
    try:
        return PROMPT_SCHEMAS[prompt]
    except KeyError:
        known = ", ".join(PROMPT_SCHEMAS)
        raise ValueError(f"unknown check-drafting prompt {prompt!r} (known: {known})") from None


def draft_messages(quote: str, prompt: str = PROMPT_VERSION) -> list[Message]:
    """The chat messages :func:`draft_check_llm` sends for ``quote`` (prompt ``prompt``, by
    default :data:`PROMPT_VERSION`); the reply must satisfy ``draft_schema(prompt)``'s JSON
    schema."""
    draft_schema(prompt)
    system, user = load_prompt(prompt).render(claim=quote)
    return [Message(role="system", content=system), Message(role="user", content=user)]


def repair_messages(
    quote: str, reply: str, reason: str, prompt: str = PROMPT_VERSION
) -> list[Message]:
    """The one follow-up :func:`draft_check_llm` sends when code refuses the model's first
    answer ``reply`` (its raw text) for ``reason`` (code's reason, with what to change): the
    first request, the answer, and the prompt's ``## repair`` text with the reason."""
    repair = load_prompt(prompt).render_repair(reason=reason)
    return [
        *draft_messages(quote, prompt),
        Message(role="assistant", content=reply),
        Message(role="user", content=repair),
    ]


def refused(draft: Draft, reply: LLMCheckDraftV5) -> bool:
    """Whether code refused a model's answer: the model gave a check (not "none", and not one
    it says leaves a result out) and no check came of it."""
    return draft.check is None and reply.relation != "none" and not left_out(reply)


def draft_check_llm(
    quote: str,
    client: LLMClient,
    *,
    claim_id: str = "",
    max_tokens: int | None = None,
    repair: bool = True,
    prompt: str = PROMPT_VERSION,
) -> Draft:
    """A check drafted by the model behind ``client`` for ``quote``, validated by code.
    ``max_tokens``: the reply's budget, else the client's own (a capable model's v4 draft of a
    claim with several parts runs to ~800 tokens: a fifth of the recorded replies exceed 384;
    the client doubles the budget once on a cut reply). ``prompt``: the drafting prompt (an
    older one replays its recorded answers; :data:`PROMPT_SCHEMAS`).

    With ``repair``, an answer code refuses (not a "none") is sent back once with code's reason
    (:func:`repair_messages`) and the second answer is validated the same way; the draft then
    has the rule :data:`REPAIRED_RULE`, whatever the second answer gave (a check, "none", or a
    second refusal, whose reason names the first one too)."""
    schema = draft_schema(prompt)
    messages = draft_messages(quote, prompt)
    try:
        result = client.complete(messages, schema, prompt_version=prompt, max_tokens=max_tokens)
    except LLMOutputError as exc:
        return Draft(reason=f"model reply is not a valid draft: {exc}", rule="llm")
    draft = check_from_llm(result.value, quote)
    if repair and refused(draft, result.value):
        follow_up = repair_messages(quote, result.raw, draft.reason, prompt)
        try:
            second = client.complete(
                follow_up, schema, prompt_version=prompt, max_tokens=max_tokens
            )
        except LLMOutputError as exc:
            return Draft(
                reason=f"{draft.reason}; after the repair round, model reply is not a valid "
                f"draft: {exc}",
                rule=REPAIRED_RULE,
            )
        again = check_from_llm(second.value, quote)
        reason = again.reason
        if refused(again, second.value):
            first = "the same" if again.reason == draft.reason else f"first: {draft.reason}"
            reason = f"{again.reason} (after the repair round; {first})"
        draft = again.model_copy(update={"rule": REPAIRED_RULE, "reason": reason})
    if draft.check is not None and claim_id:
        return draft.model_copy(update={"check": draft.check.for_claim(claim_id)})
    return draft


def model_may_draft(draft: Draft) -> bool:
    """Whether the model is asked after the rules' ``draft``: no check, and the abstention is
    not settled, or settled on a kind the check language states (:data:`MODEL_DRAFTS_SETTLED`)."""
    if draft.check is not None:
        return False
    return not draft.settled or any(
        draft.reason.startswith(p) or (not p.startswith("no check:") and p in draft.reason)
        for p in MODEL_DRAFTS_SETTLED
    )


def draft_with_fallback(
    quote: str, client: LLMClient | None, *, claim_id: str = "", gate: bool = False
) -> Draft:
    """Rules first (behind the confidence gate with ``gate``); the model only where the rules
    abstain and :func:`model_may_draft` (and only when ``client`` is given). Where the model
    drafts no check either, the rules' draft is kept with both reasons."""
    draft = draft_check(quote, claim_id=claim_id, gate=gate)
    if client is None or not model_may_draft(draft):
        return draft
    by_model = draft_check_llm(quote, client, claim_id=claim_id)
    if by_model.check is None:
        return draft.model_copy(
            update={"reason": f"rules: {draft.reason}; {by_model.reason}", "rule": by_model.rule}
        )
    return by_model.model_copy(update={"withheld": draft.withheld})
