"""Drafting checks from a claim's quote by rules: common phrasings only, and no guessing.

:func:`draft_check` reads one quote and returns a :class:`Draft`: a grounded
:class:`~openrepro.claims.checks.records.Check` with ``origin=rules`` and the id of the rule that
made
it, or None with the reason no rule applies. A phrasing that is vague ("most", "in general",
"almost always", "noticeably") or that the vocabulary cannot state ("second best") gets no
check: an organizer, or the constrained LLM drafter, may write one.

The quote is split into clauses (sentences, ``;``, ``but``, ``while``, ``, then``); each clause
gets at most one relation, tried in this order (first match wins), and several clauses make an
``all_of``:

| rule | phrasing | relation |
| --- | --- | --- |
| D1 | "grows linearly / quadratically / logarithmically", "sublinear growth", "∝" | growth |
| D2 | "slope ... is positive", "as X increases, Y decreases", "increases steadily" | trend |
| D3 | "from A to B" (numbers) | change |
| D4 | "Nx faster / fewer / less", "reduces ... by Nx", "N% of the memory of" | ratio |
| D5 | "N% (absolute) improvement over", "N% better than", "+N points over", "2-6%" | difference |
| D6 | "within N of", "within +/- N" | comparable (tolerance N) |
| D7 | "at least / above / over / > / exceeds N", "at most / below / under / < / up to N" | bound |
| D8 | "achieves / reaches / is (about, ~) N" with a metric or a unit | equal |
| D9 | "comparable or higher", "equal or higher", "at least as well as" | ordering (>=) |
| D10 | "similar", "comparable", "roughly equivalent", "about the same", "on par" | comparable |
| D11 | "outperforms", "better / higher / lower than", "surpasses", "best / lowest" | ordering |
| V1 | "X a vs Y b (and Z c)", where no rule above uses every value | all_of of equal |

Right or silent (the section of that name below, and docs/checks.md): before the rules, a claim
no check of this vocabulary states (a theorem, a rate, an exponent, a counted quantifier, a
rank, "up to N%") gets no check with a reason (``Draft.settled``); after them, a check that does
not use every number the claim reports, or that drops a quantifier over settings the claim does
not enumerate, is refused. :func:`audit_check` applies the latter to any drafter's check.

Before them (and before the vagueness test), rule **H1**: a perceptual phrasing ("visually",
"perceptual", "look(s)", "usable", "faithful", "human evaluators", "preferred by", "readable",
"realistic", "image quality") makes the whole quote a ``human`` check with a default question:
``preference`` (two sides) when it compares ("than", "over", "preferred", "compared to"),
else ``usable``; a percentage in the quote (":N% of the images") is its decision share.

Around a clause: "across / for / on all <datasets, sizes, ...>", "always", "for every k",
"on both <settings>" wrap it in ``for_all`` (open-ended for a variable such as "every k" or "all
sizes", finite otherwise), "can" wraps it in ``exists``, "both A and B <verb>" and "both in X and
Y" make an ``all_of`` of one copy per subject or metric.

Default readings of ambiguous phrases (documented in docs/checks.md):

- "reaches 88.1%", "achieves 61.52%": equality within :data:`DEFAULT_REL_TOL` (5 %);
- "about / roughly / approximately / ~ / around N": equality within :data:`APPROX_REL_TOL` (10 %);
- "8x faster" (no qualifier): at least 8, within 5 %; "about 8x faster": equal to 8 within 10 %;
- "N% better / faster / less" than a baseline: a relative difference ((a - b) / b = N / 100),
  except for metrics that are themselves rates in % (accuracy, success rate, F1, ECE, ...) and
  for "(absolute)" or "points", which are absolute differences of N points;
- "N% of the memory of B": a ratio a / b = N / 100;
- "at least / below N" (an explicit bound): no tolerance;
- "outperforms", "better": strictly better in the metric's direction (lower for error, loss,
  ECE, FID, C2ST, perplexity, memory, time, cost), decided with confidence over seeds;
- a group baseline ("all other methods", "the next best method") is one quantity: the judge
  binds the strongest rival to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from openrepro.claims.checks.grounding import grounding_problems
from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    APPROX_REL_TOL,
    DEFAULT_REL_TOL,
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    HumanJudgement,
    HumanScale,
    Origin,
    Quantity,
    Relation,
    Tolerance,
    Trend,
    before_quantity,
)
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import (
    NumberMention,
    Scale,
    dataset_of,
    find_count_words,
    find_numbers,
    parse_scale,
)
from openrepro.config import DEFAULT_CHECK_DRAFTING, CheckDrafting

__all__ = [
    "Draft",
    "audit_check",
    "confidence_gate",
    "direction_of",
    "draft_check",
    "draft_for_claim",
    "is_setting",
]


class Draft(BaseModel):
    """A drafted check, or None with the reason; ``rule`` names the drafting rule(s).

    ``settled``: no check is drafted because the claim is of a kind no check of this vocabulary
    states (a theorem, a rate, a counted quantifier, ...), not because no rule matched: a model
    is not asked to draft one either, except for the kinds the check language states
    (``llm_draft.MODEL_DRAFTS_SETTLED``: rates, exponents, counted quantifiers)."""

    check: Check | None = None
    reason: str = ""
    rule: str = ""
    settled: bool = False
    withheld: Check | None = None  # the rules' reading the confidence gate did not publish


_NUM = (
    r"[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)?\.?\d+(?:[eE][-+]?\d+)?"
    r"(?:\s?[x\u00d7*]\s?10\^\{?-?\d+\}?)?"
)
_APPROX = r"(?:about|roughly|approximately|approx\.?|around|nearly|almost|~|\u2248)"
_VAGUE = re.compile(
    r"\b(?:(?<!at )most|mostly|almost always|almost all|generally|in general|usually|typically|"
    r"often|tends? to|marginal\w*|noticeabl\w*|considerabl\w*|somewhat|fairly|rarely|except|"
    r"apart from|implies|realistic|accurately|closely|effective\w*|excellent|poor(?:ly)?|"
    r"second|third|vulnerable|robust(?!\s+performance)|blurry|distorted|clear|style|quality|looks|"
    r"qualitativ\w*|visuali[sz]\w*|plateau\w*|converges? as|stable|stays|minor|"
    r"order of magnitude|orders of magnitude|on the order of|enough|some degradation|not|"
    r"certain|depends? on|whether)\b",
    re.IGNORECASE,
)
_LOWER_METRICS = (
    r"error|loss|ece|fid|c2st|perplexity|mse|mae|rmse|l2re|wer|cer|memory|vram|time|latency|"
    r"cost|costs|distance|divergence|kl|toxicity|drop ratio|simulations|iterations|regret|"
    r"uncertainty|norm difference|coreset sizes?|entropy|parameters?(?!\s+initiali)|nll|"
    r"negative log-likelihood"
)
_HIGHER_METRICS = (
    r"accuracy|accuracies|acc|f1|f1-score|bleu|rouge|reward|rewards|return|returns|success|"
    r"score|scores|performance|win rate|pass@\d+|precision|recall|throughput|speed|auc|auroc|"
    r"lpips|fidelity|successes|similarity|efficien\w*|improvement|m?iou|ciou|m?ap|macro-f1|"
    r"pass rate|correlation|spearman"
)
_RATE_METRICS = re.compile(
    r"\b(?:accuracy|accuracies|success rate|f1|ece|win rate|precision|recall|top-\d|"
    r"exact match|pass@\d+|% of)\b",
    re.IGNORECASE,
)
_SETTING_AFTER = re.compile(
    r"^\s?(?:%\s)?(?:sparsity|simulations?|samples?|steps?|timesteps?|epochs?|-?shot|iterations?|"
    r"components?|tasks?|batch|parameters?|params|layers?|bits?|-bit|rounds?|seeds?|repeats|"
    r"tokens?|examples|trajectories|episodes|predator|synthetic|measurements|policies|"
    r"representation|adapters?|datasets?|benchmark|models?|GB|[KMB]\b|mark|timestep|"
    r"valid summary)",
    re.IGNORECASE,
)
_SUBJECT_VERB = re.compile(
    r"\b(?:outperform\w*|achiev\w*|ha[sd]|have|is|are|was|were|yields?|reach\w*|perform\w*|"
    r"uses?|requires?|costs?|converge\w*|surpass\w*|attains?|shows?|reduces?|maintains?|"
    r"obtains?|takes?|leads?|beats?|produces?|grows?|increases?|decreases?|drops?|"
    r"brings?|defends?|learns?|improves?|exhibits?|demonstrates?|encourages?|falls?|"
    r"gets?|scores?|settl\w*|remains?|lowers?|raises?)\b",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^.*?\b(?:shows?|showed|show or implies|indicates?|demonstrates?|reveals?)\s+"
    r"(?:or implies\s+)?that,?\s+",
    re.IGNORECASE,
)
_THAN = re.compile(
    r"\b(?:than|over|compared (?:to|with)|relative to|vs\.?|versus|against|similar to|"
    r"different from|"
    r"(?<!such )as(?!\s+(?:discussed|shown|pointed|measured|reported|described|well)\b))"
    r"\s+(?P<rest>[^.;:]+)",
    re.IGNORECASE,
)
_GROUP = re.compile(
    r"^(?:that of\s+|those of\s+)?(?:all\s+(?:of\s+)?(?:the\s+)?other|the\s+other|other|"
    r"any\s+other|"
    r"the\s+others|others|the\s+next\s+best|the\s+rest|all\s+(?:the\s+)?(?:baselines|methods|"
    r"others|other methods)|the gradient|gradient)",
    re.IGNORECASE,
)
_STOP = re.compile(
    r"\s+(?:on|for|in|across|when|with|at|by|under|during|after|within|using|wrt\.?|from|"
    r"regardless|throughout|while|to achieve|both|and (?:also|maintain)|despite|as measured|"
    r"as shown|as discussed|as pointed|following|i\.e\.|e\.g\.|both in|in terms)\b.*$",
    re.IGNORECASE,
)
_UNIVERSAL = re.compile(
    r"\b(?:(?:across|for|on|in|over|throughout|under)\s+(?:all|every|each|any)\b(?!\s+(?:of\s+)?"
    r"(?:the\s+)?other)(?P<what>(?:\s+[\w.-]+){0,4})|always|in all cases|regardless of|"
    r"(?:across|for|on|in|under|at)\s+both\s+(?![\w-]+\s+and\s+[\w-]+\s+(?:achieve|have|are|"
    r"perform|use))(?P<both>[^,;]+?(?:settings|environments|models|datasets|tasks|epsilon|"
    r"scenarios|splits|sizes)))",
    re.IGNORECASE,
)
_OPEN_ENDED = re.compile(
    r"^\s*(?:k|n|m|t|sizes?|horizons?|values? of \w+|\$?[a-z]\$?)\b", re.IGNORECASE
)


def direction_of(text: str) -> Direction:
    """Whether the metric ``text`` talks about is better higher or lower (the first one named)."""
    lowered = text.lower()
    lower = re.search(rf"\b(?:{_LOWER_METRICS})\b", lowered)
    higher = re.search(rf"\b(?:{_HIGHER_METRICS})\b", lowered)
    if re.search(r"\b(?:faster|slower|quicker|speed-?up)\b", lowered) and not re.search(
        r"\b(?:time|latency)\b", lowered
    ):
        return Direction.higher if not lower or "converge" in lowered else Direction.lower
    if lower and (not higher or lower.start() < higher.start()):
        return Direction.lower
    if higher:
        return Direction.higher
    return Direction.none


_ADVERBS = {
    "substantially", "significantly", "consistently", "similarly", "slightly", "only", "also",
    "further", "considerably", "dramatically", "notably", "clearly", "strongly", "largely",
    "greatly", "markedly", "far", "much", "still", "even", "generally", "overall", "roughly",
    "approximately", "nearly", "about", "paradoxically", "reliably", "uniformly",
}  # fmt: skip


def _slug(phrase: str, fallback: str) -> str:
    words = re.findall(r"[a-z0-9]+", phrase.lower())
    words = [
        w
        for w in words
        if w
        not in {"the", "a", "an", "of", "method", "model", "s", "our", "we", "it", "its", "this"}
        and w not in _ADVERBS
    ]
    slug = "_".join(words[-5:])[:40].strip("_")
    if not slug:
        return fallback
    return slug if slug[0].isalpha() else f"q_{slug}"


@dataclass
class _Clause:
    text: str  # the clause, normalised
    full: str  # the whole quote, normalised (for direction and subject fallbacks)
    rules: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        return _LEAD_IN.sub("", self.text)


def _subject(clause: _Clause) -> str:
    body = re.sub(
        r",\s*(?:as\s+)?(?:estimated|measured|computed|averaged|evaluated|counted)\b[^,]*,",
        "",
        clause.body,
        flags=re.I,
    )
    match = _SUBJECT_VERB.search(body)
    phrase = body[: match.start()] if match else ""
    phrase = re.sub(r"^(?:for|in|on|at|when|compared to)\b[^,]*,\s*", "", phrase, flags=re.I)
    return _slug(phrase, "subject")


def _baselines(clause: _Clause) -> list[str]:
    """Baseline quantity names from "than / over / compared to X"; a group is one quantity."""
    match = _THAN.search(clause.body)
    if not match:
        return []
    rest = _STOP.sub("", match.group("rest")).strip(" ,")
    if not rest or re.match(r"^[\d.~<>(+-]", rest):
        return []
    examples = re.search(r"\s+(?:such as|including|like)\s+", rest, re.I)
    if examples:  # "models such as A, B and C": the group is the baseline, one quantity
        return [_slug(rest[: examples.start()], "baseline")]
    if _GROUP.match(rest):
        return ["other_methods"]
    rest = re.sub(
        r"^(?:both|either|all of|any of|those of|that of|the methods?)\s+", "", rest, flags=re.I
    )
    pieces = [p for p in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", rest) if p.strip()]
    if not pieces or len(pieces) > 8:
        return []
    names: list[str] = []
    for piece in pieces:
        name = _slug(piece, f"baseline_{len(names) + 1}")
        if name not in names:
            names.append(name)
    return names


def _quantities(names: list[str], clause: _Clause) -> list[Quantity]:
    return [Quantity(name=n, description=n.replace("_", " ")) for n in names]


def _approx(prefix: str) -> bool:
    return bool(re.search(rf"{_APPROX}\s*$", prefix, re.IGNORECASE))


def _tol(approx: bool, explicit_bound: bool = False) -> Tolerance:
    if explicit_bound:
        return Tolerance(rel=0.0)
    return Tolerance(rel=APPROX_REL_TOL if approx else DEFAULT_REL_TOL)


def _distinct(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (a, f"{b}_baseline")


# -- the rules ------------------------------------------------------------------------------


def _growth(c: _Clause) -> Check | None:
    m = re.search(
        r"\bgrow(?:s|th)?\s+(?:\(?roughly\)?\s+|approximately\s+)?(?P<a>linearly|quadratically|"
        r"logarithmically|sublinearly)|\b(?P<b>linear|quadratic|sublinear|logarithmic)\s+growth|"
        r"\u221d",
        c.text,
        re.IGNORECASE,
    )
    if not m:
        return None
    word = (m.group("a") or m.group("b") or "linear").lower()
    law = {
        "linear": GrowthLaw.linear,
        "linearly": GrowthLaw.linear,
        "quadratic": GrowthLaw.quadratic,
        "quadratically": GrowthLaw.quadratic,
        "logarithmic": GrowthLaw.logarithmic,
        "logarithmically": GrowthLaw.logarithmic,
        "sublinear": GrowthLaw.sublinear,
        "sublinearly": GrowthLaw.sublinear,
    }[word]
    subject = _subject(c)
    if re.search(r"\bslower than\b", c.text, re.I):
        return None  # a comparison of growth rates: not one law
    c.rules.append("D1")
    return Check(
        relation=Relation.growth,
        quantities=_quantities([subject], c),
        subject=subject,
        law=law,
        direction=direction_of(c.text),
        sweep=_sweep_variable(c.text),
    )


def _sweep_variable(text: str) -> str:
    m = re.search(
        r"\b(?:as|with|over|across)\s+(?:the\s+)?(?P<v>(?:number of \w+|[\w-]+(?: size)?"
        r"|time|training|the course of training))",
        text,
        re.I,
    )
    return m.group("v") if m else ""


def _trend(c: _Clause) -> Check | None:
    t = c.text
    trend: Trend | None = None
    slope = re.search(r"\bslope\b.*\bis\s+(?P<s>positive|negative)\b", t, re.I)
    if slope:
        trend = Trend.increasing if slope.group("s").lower() == "positive" else Trend.decreasing
    else:
        m = re.search(
            r"\b(?:as|when)\s+[\w\s-]+?\s+(?:increases?|grows?),\s*[^,]*?\b(?P<v>increases?|"
            r"decreases?|drops?|rises?|improves?|grows?)\b|"
            r"\b(?P<w>increas\w*|decreas\w*|drops?|rises?|improv\w*|grows?)\s+(?:\w+\s+){0,2}?"
            r"(?:steadily|monotonically|over time|over the course|during training|throughout|"
            r"with (?:time|iterations|more|larger|increasing)|sharply|rapidly|as)\b|"
            r"\b(?:steadily|monotonically|consistently|rapidly|sharply)\s+(?P<x>increas\w*|"
            r"decreas\w*|improv\w*)\b|"
            r"\blarger\s+[\w\s-]+?\s+result\s+in\s+(?P<y>lower|larger|higher|smaller)\b",
            t,
            re.I,
        )
        if not m:
            return None
        word = (m.group("v") or m.group("w") or m.group("x") or m.group("y") or "").lower()
        rising = word.startswith(("increas", "rise", "improv", "grow", "larger", "higher"))
        trend = Trend.increasing if rising else Trend.decreasing
        if re.search(r"\b(?:than|compared to|over the baseline)\b", t, re.I) and not m.group("y"):
            return None  # "increases ... compared to B" is a comparison, not a trend
    subject = _subject(c)
    c.rules.append("D2")
    return Check(
        relation=Relation.trend,
        quantities=_quantities([subject], c),
        subject=subject,
        trend=trend,
        direction=direction_of(t),
        sweep=_sweep_variable(t),
    )


def _number_at(c: _Clause, start: int) -> NumberMention | None:
    for mention in find_numbers(c.text):
        if mention.start <= start < mention.end or mention.start == start:
            return mention
    return None


def _change(c: _Clause) -> Check | None:
    m = re.search(
        rf"\bfrom\s+{_APPROX}?\s*(?P<a>{_NUM})\s?%?\s+to\s+{_APPROX}?\s*(?P<b>{_NUM})", c.text, re.I
    )
    if not m:
        return None
    a, b = _number_at(c, m.start("a")), _number_at(c, m.start("b"))
    if a is None or b is None:
        return None
    subject = _subject(c)
    before = before_quantity(subject)
    c.rules.append("D3")
    return Check(
        relation=Relation.change,
        quantities=_quantities([subject, before], c),
        subject=subject,
        baselines=[before],
        constant=Constant(value=a.value, text=a.text),
        upper=Constant(value=b.value, text=b.text),
        comparator=None,
        direction=direction_of(c.text),
        tolerance=_tol(_approx(c.text[: m.start("b")])),
    )


def _comparator(qualifier: str, approx: bool) -> tuple[Comparator, Tolerance]:
    """The comparator and tolerance of a difference or ratio from its qualifier."""
    q = qualifier.lower().strip()
    if re.search(r"at least|more than|over|greater than|>|\u2265|exceed", q):
        return Comparator.ge, Tolerance(rel=0.0)
    if re.search(r"at most|up to|less than|fewer than|<|\u2264|under|below", q):
        return Comparator.le, Tolerance(rel=0.0)
    if approx:
        return Comparator.eq, Tolerance(rel=APPROX_DIFF_REL_TOL)
    return Comparator.eq, Tolerance(rel=DEFAULT_REL_TOL)


_QUAL = r"(?P<q>at least|more than|over|greater than|>|\u2265|up to|at most|less than|<|\u2264)?\s*"


def _ratio(c: _Clause) -> Check | None:
    t = c.text
    m = re.search(
        rf"{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:x|\u00d7|times|-fold)\s+"
        r"(?P<w>faster|slower|quicker|fewer|less|more|smaller|larger|lower|higher|cheaper|"
        r"better|greater|earlier)\b",
        t,
        re.I,
    ) or re.search(
        r"\b(?P<w>faster|slower|reduces?|cuts?|lowers?|speeds?\s+up|accelerates?|improves?)\b"
        rf"[^.;]{{0,60}}?\bby\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:x|\u00d7|times|-fold)",
        t,
        re.I,
    )
    share = None
    if not m:
        m = re.search(
            rf"\b(?P<w>retain\w*|keep\w*|preserv\w*)\s+(?P<q>)(?P<approx>{_APPROX})?\s*"
            rf"(?P<n>{_NUM})\s?%\s+of\b",
            t,
            re.I,
        )
        if m:
            number = _number_at(c, m.start("n"))
            if number is None:
                return None
            subject = _subject(c)
            c.rules.append("D4")
            return Check(
                relation=Relation.ratio,
                quantities=_quantities([subject, f"{subject}_reference"], c),
                subject=subject,
                baselines=[f"{subject}_reference"],
                comparator=Comparator.eq,
                constant=Constant(value=number.value / 100, text=number.text),
                tolerance=_tol(bool(m.group("approx"))),
                direction=Direction.higher,
            )
    if not m:
        share = re.search(
            rf"(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?%\s+of\s+(?:the\s+)?[\w\s-]{{0,30}}?"
            r"\b(?:compared (?:to|with)|relative to|of|used by)\b",
            t,
            re.I,
        )
        if not share:
            return None
    hit = m or share
    assert hit is not None
    number = _number_at(c, hit.start("n"))
    if number is None:
        return None
    approx = bool(hit.group("approx"))
    qualifier = (hit.group("q") or "") if m else ""
    comparator, tol = _comparator(qualifier, approx)
    if share is not None:
        constant = Constant(value=number.value / 100, text=number.text)
    else:
        constant = Constant(value=number.value, text=number.text)
        if comparator is Comparator.eq and not approx:
            comparator = Comparator.ge  # "8x faster": at least 8, within the tolerance
    subject = _subject(c)
    baselines = _baselines(c) or ["baseline"]
    subject, base = _distinct(subject, baselines[0])
    c.rules.append("D4")
    word = m.group("w").lower() if m else ""
    direction = direction_of(c.full if direction_of(t) is Direction.none else t)
    if word in {"faster", "quicker", "earlier"} or word.startswith(("speed", "accelerat")):
        direction = Direction.higher if word != "earlier" else Direction.lower
    if word in {"fewer", "less", "smaller", "lower", "cheaper"} or word.startswith(
        ("reduc", "cut")
    ):
        direction = Direction.lower
    return Check(
        relation=Relation.ratio,
        quantities=_quantities([subject, base], c),
        subject=subject,
        baselines=[base],
        comparator=comparator,
        constant=constant,
        tolerance=tol,
        direction=direction,
    )


_NEGATIVE = re.compile(
    r"^(?:slower|lower|less|worse|poorer|drop|decrease|reduction|degradation|"
    r"smaller|fewer)",
    re.I,
)


#: "outperforms the LoRA baseline by at least 2 points": the margin of an ordering is a difference
_BY_MARGIN = re.compile(
    r"\b(?P<w>outperform|surpass|beat|exceed|improve)(?:s|es|ed|ing)?\b[^.;:]{0,80}?"
    rf"\bby\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?P<pct>%|points?|pp)?"
    r"(?P<abs>)(?P<u>)(?![\w.])",
    re.I,
)


def _difference(c: _Clause) -> Check | None:
    t = c.text
    word = (
        r"(?P<w>improvement|increase|gain|enhancement|boost|drop|decrease|reduction|"
        r"degradation|better|higher|lower|faster|slower|less|more|worse|greater|smaller)"
    )
    m = (
        re.search(
            rf"{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:(?:-|\u2013|to)\s?(?P<u>{_NUM}))?"
            rf"\s?(?P<pct>%|points?|pp)?\s?(?P<abs>\(absolute\)\s?)?(?:points?\s)?(?:\w+\s)?{word}\b",
            t,
            re.I,
        )
        or re.search(
            rf"\b{word}\s+of\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?P<pct>%|points?)"
            r"(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\b{word}\s*\((?:with\s+an?\s+)?{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?"
            r"(?P<pct>%)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\+\s?(?P<n>{_NUM})\s?(?P<pct>%|points?|pp|[A-Za-z-]+)?\s+(?P<w>over|above|than)"
            r"(?P<q>)(?P<approx>)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\b(?:saves?|saving|cuts?|cutting)\s+(?P<q>)(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})"
            r"\s?(?P<pct>%)\s+of\b(?P<w>)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
    )
    margin = None if m else _BY_MARGIN.search(t)
    m = m or margin
    if not m:
        return None
    number = _number_at(c, m.start("n"))
    if number is None or (margin is None and _not_compared(c, number)):
        return None  # "outperforms B by 2 points": the margin, never a setting
    upper_mention = _number_at(c, m.start("u")) if m.group("u") else None
    if "x" in {number.unit, upper_mention.unit if upper_mention else ""}:
        return None  # "1.11-4.7x lower": a ratio, not a difference
    w = m.group("w").lower() or "less"  # "saves 68% of the tokens": 68% less
    sign = -1.0 if _NEGATIVE.match(w) else 1.0
    if margin is not None and direction_of(t) is Direction.lower:
        sign = -1.0  # "outperforms B by 5% in latency": 5% lower
    percent = (
        (m.group("pct") or "") == "%"
        or number.unit == "%"
        or (upper_mention is not None and upper_mention.unit == "%")
    )
    absolute = (
        bool(m.group("abs"))
        or not percent
        or bool(_RATE_METRICS.search(t))
        or ("points" in (m.group("pct") or ""))
        or w in {"improvement", "increase", "gain", "enhancement", "boost"}
    )
    scale = 0.01 if percent and not absolute else 1.0
    approx = bool(m.group("approx"))
    comparator, tol = _comparator(m.group("q") or "", approx)
    value = sign * number.value * scale
    constant = Constant(value=value, text=number.text)
    upper = None
    if upper_mention is not None:
        upper = Constant(value=sign * upper_mention.value * scale, text=upper_mention.text)
        comparator, tol = Comparator.between, Tolerance(rel=0.0)
        if sign < 0:
            constant, upper = upper, constant
    elif sign < 0 and comparator is Comparator.ge:
        comparator = Comparator.le  # "more than 10% lower": a - b <= -10
    subject = _subject(c)
    baselines = _baselines(c) or (_direct_baseline(c) if margin is not None else []) or ["baseline"]
    subject, base = _distinct(subject, baselines[0])
    c.rules.append("D5")
    direction = direction_of(t)
    if margin is not None and direction is Direction.none:
        direction = Direction.higher  # "outperforms by 2 points", no metric named: a score
    if w in {"faster", "slower"}:
        direction = Direction.higher
    if not m.group("w"):
        direction = Direction.lower  # what is saved: tokens, time, cost
    return Check(
        relation=Relation.difference,
        quantities=_quantities([subject, base], c),
        subject=subject,
        baselines=[base],
        comparator=comparator,
        constant=constant,
        upper=upper,
        relative=scale != 1.0,
        tolerance=tol,
        direction=direction,
    )


def _within(c: _Clause) -> Check | None:
    m = re.search(
        rf"\bwithin\s+(?:\+-|\+/-|\u00b1|\+-\s)?\s*(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})"
        r"\s?%?(?:\s+\w+)?\s+(?:of|C2ST|\))",
        c.text,
        re.I,
    ) or re.search(rf"\bwithin\s+(?:\+-|\+/-|\u00b1)\s*(?P<approx>)(?P<n>{_NUM})", c.text, re.I)
    if not m:
        return None
    number = _number_at(c, m.start("n"))
    if number is None or _SETTING_AFTER.match(c.text[number.end :]):
        return None
    rel = number.unit == "%" and not _RATE_METRICS.search(c.text)
    tol = (
        Tolerance(rel=min(number.value / 100, 1.0)) if rel else Tolerance(rel=0.0, abs=number.value)
    )
    subject = _subject(c)
    baselines = _baselines(c) or _peers(c)[1:] or ["baseline"]
    if _peers(c):
        subject = _peers(c)[0]
    names = [subject, *[b for b in baselines if b != subject]]
    c.rules.append("D6")
    return Check(
        relation=Relation.comparable,
        quantities=_quantities(names, c),
        subject=subject,
        baselines=names[1:],
        constant=Constant(value=number.value, text=number.text),
        tolerance=tol,
        direction=direction_of(c.full),
    )


_BOUND = re.compile(
    r"(?P<q>at least|no less than|not less than|\u2265|>=|more than|greater than|above|over|"
    r"exceed(?:s|ing|ed)?|>|at most|no more than|no greater than|not more than|up to|\u2264|<=|"
    r"less than|fewer than|below|under|<)\s*(?:values of\s+|the\s+)?(?:>\s*)?"
    rf"(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})",
    re.IGNORECASE,
)


_SETTING_UNITS = {
    "day",
    "days",
    "step",
    "steps",
    "epoch",
    "epochs",
    "token",
    "tokens",
    "parameter",
    "parameters",
    "param",
    "params",
    "K",
    "M",
    "B",
    "T",
}


_SAMPLE_COUNT = re.compile(
    r"^\s?(?:[A-Za-z-]+\s){0,2}?(?:draws|trials|runs|repetitions|replicates|rollouts|samples|"
    r"simulations|seeds|episodes|steps|iterations|queries|prompts|trajectories|days|weeks|months|"
    r"mice|subjects|participants|patients|classes)\b",
    re.IGNORECASE,
)


#: What stands just before a setting's number: "batch size of 64", "k = 5", "after 3 epochs",
#: "within 100 steps", "with only 8", "a threshold of 0.95", "Figure 3", "± 0.2". An equals
#: sign after a correlation's name ("r = 0.91", "rho = 0.8") reports a result, not a setting.
_SETTING_BEFORE = re.compile(
    r"(?:batch sizes?(?: of)?|sizes? of|rate of|decay of|coefficient of|patch size|"
    r"(?<!\b[rR])(?<!\b[rR]\s)(?<!rho)(?<!rho\s)(?<!\u03c1)(?<!\u03c1\s)\s?=|[$^]|equation|eqn\.?|section|figure|table|level|"
    r"room|gamma|epsilon|lambda|budgets?(?: of)?|values of|\bk|\bK|first|after|"
    r"trained (?:on|with|for)|with(?: only)?|at(?: an?)?|threshold of|imbalance factor|"
    r"standard error of|\+-|\+/-|\u00b1|up to \$?\w+=?)\s*\(?\s*$",
    re.IGNORECASE,
)
#: A bound's words before a number ("at least", "about", "<"): a setting's number may carry
#: one ("after at least 3 epochs").
_QUALIFIERS = re.compile(
    rf"(?:{_APPROX}|at least|more than|less than|below|above|over|under|"
    r"greater than|exceed\w*|around or above|[<>]|\s)+$",
    re.IGNORECASE,
)
#: "low thresholds (1.0, 2.0)": the values swept.
_SWEPT = re.compile(
    r"\b(?:thresholds?|sizes?|rates?|values|settings|levels|budgets?)\s*\([^()]*$", re.IGNORECASE
)


def is_setting(text: str, number: NumberMention) -> bool:
    """Whether ``number`` (found in ``text``) is a setting of the experiment (a size, a
    budget, a threshold, a count of runs or samples, a hyperparameter, a reference to a
    figure), not a value the claim reports: the one answer the drafting rules (which numbers a
    relation may compare) and the audit (which numbers a check must use) share."""
    after = text[number.end :]
    if number.unit in _SETTING_UNITS or _SETTING_AFTER.match(after):
        return True
    if _SAMPLE_COUNT.match(after) and number.unit != "%" and "." not in number.text:
        return True  # "10^6 draws", "5 random seeds"; not "94.9 over three seeds"
    before = text[: number.start]
    if _SWEPT.search(before):
        return True
    return bool(
        _SETTING_BEFORE.search(before) or _SETTING_BEFORE.search(_QUALIFIERS.sub("", before))
    )


def _not_a_value(text: str, number: NumberMention) -> bool:
    """Not the value a bound or an equality states, though not a setting either (the audit
    still counts it among the numbers a check must use): "improves X by (at least) 5%", an
    amount of change (the difference rules read it as a margin), and "within 100 steps" or
    "within 0.5 of each other", a horizon or a tolerance."""
    before = _QUALIFIERS.sub("", text[: number.start])
    return bool(re.search(r"\b(?:by|within)\s*\(?\s*$", before, re.I))


def _not_compared(c: _Clause, number: NumberMention) -> bool:
    """A number no bound, equality or plain difference compares with: a setting, an amount of
    change or a tolerance."""
    return is_setting(c.text, number) or _not_a_value(c.text, number)


def _bound(c: _Clause) -> Check | None:
    found: list[tuple[Comparator, NumberMention, bool]] = []
    for m in _BOUND.finditer(c.text):
        number = _number_at(c, m.start("n"))
        if number is None or _not_compared(c, number):
            continue
        q = m.group("q").lower()
        if re.search(
            r"\bfor\s+(?:small|large)\s+values\b|\bwhen\s+\$?\w+\$?\s*$", c.text[: m.start()], re.I
        ):
            continue  # "for small values of gamma (less than 1.5)": the sweep's domain
        upper = q in {
            "at most",
            "no more than",
            "no greater than",
            "not more than",
            "up to",
            "\u2264",
            "<=",
            "less than",
            "fewer than",
            "below",
            "under",
            "<",
        }
        strict = q in {
            ">",
            "<",
            "more than",
            "greater than",
            "above",
            "less than",
            "fewer than",
            "below",
            "under",
        } or q.startswith("exceed")
        op = (
            (Comparator.lt if strict else Comparator.le)
            if upper
            else (Comparator.gt if strict else Comparator.ge)
        )
        if re.search(
            r"\b(?:doesn't|does not|don't|do not|never|not)\b[^.;]{0,40}$",
            c.text[: m.start()],
            re.I,
        ):
            op = {
                Comparator.lt: Comparator.ge,
                Comparator.le: Comparator.gt,
                Comparator.gt: Comparator.le,
                Comparator.ge: Comparator.lt,
            }[op]
        around = bool(re.search(r"around or\s*$", c.text[: m.start()], re.I))
        found.append((op, number, around or bool(m.group("approx"))))
    if not found:
        return None
    subject = _subject(c)
    checks: list[Check] = []
    for i, (op, number, approx) in enumerate(found):
        name = subject if len(found) == 1 else f"{subject}_{i + 1}"
        checks.append(
            Check(
                relation=Relation.bound,
                quantities=_quantities([name], c),
                subject=name,
                comparator=op,
                constant=Constant(value=number.value, text=number.text),
                tolerance=Tolerance(rel=APPROX_REL_TOL if approx else 0.0),
                direction=direction_of(
                    c.text if direction_of(c.text) is not Direction.none else c.full
                ),
            )
        )
    c.rules.append("D7")
    return checks[0] if len(checks) == 1 else Check(relation=Relation.all_of, parts=checks)


_REPORT = re.compile(
    r"(?:achiev\w*|reach\w*|attain\w*|obtain\w*|yields?|is|was|were|are|of|around|"
    rf"{_APPROX}|=|equivalent to|close to|(?:falls?|drops?|goes|going|decreases?|increases?|rises?)"
    r" to|takes? up|reaching|exceeding)\s*(?:\(\+-\s?[\d.]+k?\)\s*)?(?:an?\s+)?(?:[\w@-]+\s+){0,3}?"
    rf"(?P<approx>{_APPROX})?\s*$",
    re.IGNORECASE,
)


def _in_range(text: str, number: NumberMention) -> bool:
    """Whether ``number`` is one end of a range ("0.2-0.3", "18.0-2875.8", "1.11-4.7x")."""
    return bool(
        re.match(r"\s?[-\u2013]\s?\d", text[number.end : number.end + 3])
        or re.search(r"\d\s?[-\u2013]\s?$", text[max(0, number.start - 3) : number.start])
    )


def _equal(c: _Clause) -> Check | None:
    metric = direction_of(c.text) is not Direction.none
    found: list[tuple[NumberMention, bool]] = []
    for number in find_numbers(c.text):
        if _not_compared(c, number) or (
            number.unit in {"K", "M", "B", "T", "GB"}
            and not re.search(r"\b(?:VRAM|memory)\b", c.text, re.I)
        ):
            continue
        before = c.text[max(0, number.start - 60) : number.start]
        if re.search(rf"\bby\s+(?:{_APPROX}\s+)?$", before, re.I) or _in_range(c.text, number):
            continue  # "improves X by about 5%": an amount of change; "0.2-0.3": a range
        report = _REPORT.search(before)
        if not report and not (found and re.search(r"\band\s+$", before)):
            continue
        approx = (
            bool(report and report.group("approx"))
            or bool(re.search(rf"{_APPROX}\s*$", before, re.I))
            or bool(found and found[-1][1])
        )
        if not (metric or number.unit or approx):
            continue
        found.append((number, approx))
    if not found:
        return None
    subject = _subject(c)
    tol_abs = re.search(r"\(\+-\s?(?P<n>[\d.]+k?)\)", c.text)
    se = re.search(rf"standard error of\s+(?P<n>{_NUM})", c.text, re.I)
    checks: list[Check] = []
    for i, (number, approx) in enumerate(found):
        name = subject if len(found) == 1 else f"{subject}_{i + 1}"
        tol = _tol(approx)
        for extra in (tol_abs, se):
            if extra is not None:
                mentions = find_numbers(extra.group("n"))
                if mentions:
                    tol = Tolerance(rel=tol.rel, abs=mentions[0].value * (2 if extra is se else 1))
        checks.append(
            Check(
                relation=Relation.equal,
                quantities=_quantities([name], c),
                subject=name,
                constant=Constant(value=number.value, text=number.text),
                tolerance=tol,
                direction=direction_of(c.text if metric else c.full),
            )
        )
    c.rules.append("D8")
    return checks[0] if len(checks) == 1 else Check(relation=Relation.all_of, parts=checks)


_AT_LEAST_AS = re.compile(
    r"\b(?:comparable (?:to )?or (?:is )?(?P<a>higher|better|lower|slightly higher)|equal or "
    r"(?P<b>higher|better|lower)|(?:about|roughly) equal or (?P<c>higher|better|lower)|"
    r"at least as (?:well|good|high) as|(?:outperforms?|better) or (?:matches|is comparable)|"
    r"either outperforms or matches|outperforms or is comparable|not significantly lower|"
    r"(?P<d>lower|higher) or roughly equivalent|around the same or (?P<e>worse|better)|"
    r"equivalent or (?P<f>higher|lower)|lower or (?:roughly )?equivalent)\b",
    re.IGNORECASE,
)
_SIMILAR = re.compile(
    r"\b(?:similar|comparable|(?:roughly |about |approximately )?equivalent|about the same|"
    r"around the same|the same as|on par|roughly equal|perform similarly|competitive with)\b",
    re.IGNORECASE,
)
_BETTER = re.compile(
    r"\b(?P<w>outperform\w*|surpass\w*|beats?|better|worse|poorer|higher|lower|greater|smaller|"
    r"larger|less|more|fewer|faster|slower|superior|inferior|best|highest|lowest|worst|smallest|"
    r"largest|reduc\w*|improv\w*|drop in|increase\w*)\b",
    re.IGNORECASE,
)


_LEADING = re.compile(
    r"^(?:for|in|on|at|when|compared to|throughout|across|after|with|under|"
    r"using|during)\b[^,]*,\s*",
    re.IGNORECASE,
)


def _peers(c: _Clause) -> list[str]:
    """Names listed as a plural subject: "NPSE-VE, NPSE-VP, and NPE achieve similar ..."."""
    body = _LEADING.sub("", c.body)
    m = _SUBJECT_VERB.search(body)
    if not m:
        return []
    phrase = body[: m.start()].strip()
    phrase = re.sub(
        r"^(?:all\s+(?:two|three|four|five)?\s*(?:of\s+)?(?:the\s+)?(?:methods\s+)?|"
        r"(?:the\s+)?methods\s+|both\s+(?:the\s+)?)",
        "",
        phrase,
        flags=re.I,
    )
    phrase = re.sub(r"\s+(?:both|all|significantly|slightly|each)$", "", phrase, flags=re.I)
    if re.search(
        r"\b(?:when|trained|using|e\.g|i\.e)\b|[(=]",
        phrase.replace("(BC)", "").replace("(EM)", "").replace("(EWC)", "").replace("(KS)", ""),
        re.I,
    ):
        return []
    pieces = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", phrase) if p.strip()]
    if len(pieces) < 2 or len(pieces) > 6 or any(len(p.split()) > 8 for p in pieces):
        return []
    names: list[str] = []
    for i, piece in enumerate(pieces):
        name = _slug(piece, f"q{i}")
        names.append(name if name not in names else f"{name}_{i}")
    return names


def _methods_list(c: _Clause) -> list[str]:
    """ "for the A, B and C methods", "All three of A, B and C": one subject each."""
    m = re.search(
        r"\b(?:for the|all (?:two|three|four) of)\s+"
        r"(?P<l>[\w-]+(?:\s[\w-]+){0,2}(?:,\s*[\w-]+"
        r"(?:\s[\w-]+){0,2})*,?\s+and\s+[\w-]+(?:\s[\w-]+)?)(?:\s+[\w-]+)?\s+methods\b",
        c.text,
        re.I,
    )
    if not m:
        return []
    pieces = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group("l")) if p.strip()]
    return [_slug(p, f"q{i}") for i, p in enumerate(pieces)] if 2 <= len(pieces) <= 6 else []


def _copies(check: Check, subjects: list[str]) -> Check:
    """One copy of ``check`` per subject, sharing its baselines (a plural subject)."""
    parts: list[Check] = []
    baselines = [q for q in check.quantities if q.name in check.baselines]
    for name in subjects:
        if name in check.baselines:
            name = f"{name}_subject"
        parts.append(
            check.model_copy(
                update={
                    "subject": name,
                    "quantities": [
                        Quantity(name=name, description=name.replace("_", " ")),
                        *baselines,
                    ],
                }
            )
        )
    return Check(relation=Relation.all_of, parts=parts)


def _ordering_ge(c: _Clause) -> Check | None:
    m = _AT_LEAST_AS.search(c.text)
    if not m:
        return None
    direction = direction_of(c.text if direction_of(c.text) is not Direction.none else c.full)
    word = next((g for g in m.groups() if g), "").lower()
    lower_words = {"lower", "worse"}
    if word:
        below = word in lower_words
        if word == "lower" and direction is Direction.lower:
            below = True
    else:
        below = direction is Direction.lower and "lower" in m.group(0).lower()
    subject = _subject(c)
    baselines = [b for b in _baselines(c) if b != subject] or ["baseline"]
    c.rules.append("D9")
    return Check(
        relation=Relation.ordering,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        comparator=Comparator.le if below else Comparator.ge,
        tolerance=Tolerance(rel=DEFAULT_REL_TOL),
        direction=direction,
    )


def _comparable(c: _Clause) -> Check | None:
    if not _SIMILAR.search(c.text):
        return None
    peers = _peers(c)
    baselines = _baselines(c)
    if peers and not baselines:
        subject, baselines = peers[0], peers[1:]
    else:
        subject = _subject(c)
        baselines = [b for b in baselines if b != subject] or ["baseline"]
    c.rules.append("D10")
    return Check(
        relation=Relation.comparable,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        tolerance=Tolerance(rel=DEFAULT_REL_TOL),
        direction=direction_of(c.text if direction_of(c.text) is not Direction.none else c.full),
    )


def _direct_baseline(c: _Clause) -> list[str]:
    """The baseline an ordering names as its object ("outperforms LoRA on GLUE": lora)."""
    direct = re.search(r"\b(?:outperform|surpass|beat)\w*\s+(?P<o>[^,;]+)", c.body, re.I)
    if not direct:
        return []
    rest = _STOP.sub("", direct.group("o")).strip(" ,")
    rest = re.split(r"\s+(?:such as|including|like|by|in|on)\s+", rest, maxsplit=1)[0]
    if not rest or re.match(r"^[\d.~<>(+-]", rest):
        return []
    return ["other_methods"] if _GROUP.match(rest) else [_slug(rest, "baseline")]


def _ordering(c: _Clause) -> Check | None:
    m = _BETTER.search(c.body)
    if not m:
        return None
    word = m.group("w").lower()
    direction = direction_of(c.text if direction_of(c.text) is not Direction.none else c.full)
    superlative = word in {"best", "highest", "lowest", "worst", "smallest", "largest"}
    baselines = _baselines(c) or _direct_baseline(c)
    if not baselines:
        if not superlative and not word.startswith(
            ("reduc", "improv", "outperform", "surpass", "drop", "increase")
        ):
            return None
        baselines = ["other_methods" if superlative else "baseline"]
    subject = _subject(c)
    baselines = [b if b != subject else f"{b}_baseline" for b in baselines]
    if word in {"higher", "greater", "larger", "more", "largest", "highest"} or word.startswith(
        "increase"
    ):
        op = Comparator.gt
    elif word in {"lower", "less", "fewer", "smaller", "lowest", "smallest"} or word.startswith(
        ("reduc", "drop")
    ):
        op = Comparator.lt
    elif word in {"worse", "poorer", "inferior", "worst"}:
        op = Comparator.lt if direction is not Direction.lower else Comparator.gt
    elif word == "slower":
        op = Comparator.lt
        direction = Direction.higher
    elif word == "faster":
        op = Comparator.gt
        direction = Direction.higher
    else:  # better, outperforms, surpasses, beats, superior, best, improves
        op = Comparator.lt if direction is Direction.lower else Comparator.gt
        if (
            direction is Direction.none
            and word.startswith("improv")
            and re.search(r"\bestimat\w*", c.text, re.I)
        ):
            op, direction = Comparator.lt, Direction.lower  # a better estimate: a lower error
        elif direction is Direction.none:
            direction = Direction.higher  # no metric named: "better" is the higher score
    c.rules.append("D11")
    return Check(
        relation=Relation.ordering,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        comparator=op,
        direction=direction,
    )


_RULES = [
    _growth,
    _trend,
    _change,
    _ratio,
    _difference,
    _within,
    _bound,
    _equal,
    _ordering_ge,
    _comparable,
    _ordering,
]


def _conjoin(checks: list[Check]) -> Check:
    flat: list[Check] = []
    for check in checks:
        flat += check.parts if check.relation is Relation.all_of else [check]
    checks = flat
    renamed: list[Check] = []
    for i, check in enumerate(checks):
        renamed.append(check.suffixed(str(i + 1)) if i else check)
    names = [q.name for ch in renamed for q in ch.all_quantities()]
    if len(set(names)) != len(names):
        renamed = [ch.suffixed(f"p{i + 1}") for i, ch in enumerate(checks)]
    return Check(relation=Relation.all_of, parts=renamed)


def _clause_check(c: _Clause) -> Check | None:
    for rule in _RULES:
        check = rule(c)
        if check is not None:
            break
    else:
        return None
    verb = _SUBJECT_VERB.search(c.body)
    if check.relation is Relation.equal and re.search(
        r"\b(?:highest|best|lowest|surpass\w*|outperform\w*)\b(?!-)",
        c.body[verb.start() :] if verb else c.body,
        re.I,
    ):
        ordering = _ordering(c)
        if ordering is not None:
            check = _conjoin([ordering, check])
    peers = _peers(c) or _methods_list(c)
    marked = bool(
        re.search(r"\b(?:both|methods|all)\b", _LEADING.sub("", c.body)[:80], re.I)
        or _methods_list(c)
    )
    plural = (
        peers
        and check.relation is not Relation.all_of
        and (
            (check.baselines and check.relation is not Relation.comparable)
            or (not check.baselines and marked and check.relation is not Relation.comparable)
            or (check.relation is Relation.comparable and _baselines(c))
        )
    )
    if plural:
        check = _copies(check, peers)
        c.rules.append("plural")
    metrics = _BOTH_METRICS.search(c.text)
    if metrics and (check.relation is not Relation.all_of or plural):
        first, second = (_slug(metrics.group(g), g) for g in ("a", "b"))
        check = _conjoin([check.suffixed(first), check.suffixed(second)])
        c.rules.append("both-metrics")
    universal = _universal(c, check)
    if universal is not None:
        what, open_ended = universal
        check = Check(relation=Relation.for_all, inner=check, sweep=what, unbounded=open_ended)
        c.rules.append("forall")
    elif re.search(r"\b(?:can|sometimes)\b", c.text, re.I):
        some = re.search(
            r"\b(?:for|at|on|with|in)\s+some\s+(?P<v>[\w-]+(?:\s[\w-]+)?)", c.text, re.I
        )
        check = Check(relation=Relation.exists, inner=check, sweep=some.group("v") if some else "")
        c.rules.append("exists")
    return check


_METRIC_WORD = (
    r"accuracy|ECE|F1|memory|training|inference|clean|robust|loss|gradient norm|"
    r"time|precision|recall|prey|predator"
)
_BOTH_METRICS = re.compile(
    rf"\b(?:both\s+)?(?:in\s+|during\s+|of\s+|on\s+)?(?:terms of\s+)?(?:both\s+)?(?:average\s+)?"
    rf"(?P<a>{_METRIC_WORD})(?:\s+scores?)?\s+and\s+(?:on\s+)?(?:average\s+)?(?P<b>{_METRIC_WORD})"
    r"(?:\s+scores?)?\b",
    re.IGNORECASE,
)
_NAMED_DOMAIN = re.compile(
    r"\b(?:for|on|at|across|in)\s+(?:the\s+)?(?:tasks?\s+)?(?P<l>(?:[\w.-]+(?:\s[\w.-]+)?,\s+)*"
    r"[\w.-]+(?:\s[\w.-]+)?,?\s+and\s+[\w.-]+)\s+(?:datasets|tasks|benchmarks|environments|settings|sub-tasks)\b|"
    r"\bacross\s+(?P<m>[\w.-]+\s+and\s+[\w.-]+)\b|"
    r"\bat batch sizes\s+(?P<n>\d+(?:,\s*\d+)*,?\s+and\s+\d+)|"
    r"\bfor (?:small|large) values of\s+(?P<v>\w+)|"
    r"^(?:all|every|each)\s+(?:\w+\s+){0,2}?(?P<s>models|methods|variants|agents|policies)\b"
    r"(?!\s+(?:[\w-]+,|\S+\s+and\b))",
    re.IGNORECASE,
)


def _universal(c: _Clause, check: Check) -> tuple[str, bool] | None:
    """The sweep a clause quantifies over ("across all datasets"), and whether it is open-ended."""
    text = c.text
    m = _UNIVERSAL.search(text)
    if m and not re.search(r"\baverage\w*\s+(?:[\w-]+\s+){0,4}$", text[: m.start()], re.I):
        what = (m.group("what") or m.group("both") or "").strip()
        return what, bool(_OPEN_ENDED.match(what)) if what else False
    named = _NAMED_DOMAIN.search(_LEADING.sub("", c.body)) or _NAMED_DOMAIN.search(text)
    if named and not re.search(r"\baverage\w*\s+(?:[\w-]+\s+){0,4}(?:across|over)\b", text, re.I):
        what = next(g for g in named.groups() if g)
        return what, False
    if check.relation in {Relation.bound, Relation.equal} and re.search(
        r"\b(?:over|throughout) the course of training|\bacross all timesteps\b", text, re.I
    ):
        return "training step", True
    return None


_SPLIT = re.compile(
    r"(?<=[.;])\s+(?=[A-Z])|;\s*|,?\s+but\s+|,\s+while\s+|,\s+then\s+|"
    r",\s+(?=(?:eventually\s+)?(?:achieving|reaching|exceeding)\b)|"
    r",\s+and\s+(?=(?:it|the|maintain)\b)|\.\s+(?=It\b)|"
    r"\s+while\s+(?=(?:maintaining|keeping|preserving|retaining)\b)"
)


def _annotate(check: Check, dataset: str) -> Check:
    """Units from the constants of equalities and bounds, and the quote's dataset."""
    unit = ""
    if check.relation in {Relation.equal, Relation.bound} and check.constant is not None:
        mentions = find_numbers(check.constant.text)
        unit = mentions[0].unit if mentions and mentions[0].unit not in {"x", "k"} else ""
    quantities = [
        q.model_copy(update={"unit": q.unit or unit, "dataset": q.dataset or dataset})
        for q in check.quantities
    ]
    return check.model_copy(
        update={
            "quantities": quantities,
            "inner": _annotate(check.inner, dataset) if check.inner else None,
            "parts": [_annotate(p, dataset) for p in check.parts],
        }
    )


_PERCEPTUAL = re.compile(
    r"\b(?:visually|visual(?=\s+(?:quality|fidelity|appearance|inspection|comparison|"
    r"results?|similarity|artifacts?|realism))|perceptual(?:ly)?|perceiv\w*|looks?(?:\s+(?:good|better|worse|"
    r"natural|similar|the same))|usable|unusable|faithful\w*|human (?:evaluat\w*|judg\w*|"
    r"raters?|study|studies|preference\w*(?!\s+(?:labels?|data|annotations?|feedback|pairs)))|"
    r"preferred by|readab\w*|realistic|image quality|"
    r"recogni[sz]able|legib\w*|fluen(?:t|cy)|coheren(?:t|ce))\b",
    re.IGNORECASE,
)
_COMPARES = re.compile(
    r"\b(?:than|over|prefer\w*|compared (?:to|with)|versus|vs\.?|relative to)\b", re.IGNORECASE
)


def _human(text: str) -> Check | None:
    """Rule H1 (module docstring): a human check for a perceptual phrasing, or None."""
    if not _PERCEPTUAL.search(text):
        return None
    preference = bool(_COMPARES.search(text))
    shares = [m for m in find_numbers(text) if m.unit == "%" and 0 < m.value < 100]
    constant = Constant(value=shares[0].value, text=shares[0].text) if len(shares) == 1 else None
    scale = HumanScale.preference if preference else HumanScale.usable
    question = (
        "Which of the two outputs is better?"
        if preference
        else "Is this output usable for what it is meant for?"
    )
    return Check(
        relation=Relation.human,
        constant=constant,
        human=HumanJudgement(question=question, scale=scale),
        note="judged by people: " + text[:200],
    )


# -- right or silent --------------------------------------------------------------------------
#
# A drafted check must say what the claim says. Before the rules, phrasings the rules cannot
# state make the drafter abstain with a precise reason; after them, every number the claim
# reports must be one the check uses (or follow from two of them: "from 82.4 to 84.2, a gain
# of 1.8"), else the check says less than the claim (a conjunction collapsed, the baseline's
# number taken for the subject's) and the drafter abstains.

_ANCHOR = re.compile(
    r"\s*\((?:see\s+)?(?:Tables?|Figures?|Figs?\.|Sections?|Sec\.|Appendix|Appendices|Equations?|"
    r"Eqs?\.|Algorithms?|Theorems?|Lemmas?|Propositions?|Corollar(?:y|ies)|Definitions?|"
    r"Results table|Methodology section|abstract|Benchmark Components|Framework Overview|"
    r"Critical Refusal|Vulnerability Classes|Dataset section|Applications section|Results)"
    r"\b[^()]*(?:\([^()]*\)[^()]*)*\)",
    re.IGNORECASE,
)
_ANCHOR_LEAD = re.compile(
    r"(?:^|(?<=,\s))(?:(?:Tables?|Figures?|Sections?)\s+[\w.]+(?:\s*(?:,|and)\s*[\w.]+)*"
    r"(?:\s+and\s+the\s+abstract)?\s+(?:reports?|shows?|presents?|gives?|confirms?)\s+"
    r"(?:that\s+)?)",
    re.IGNORECASE,
)
_RATE = re.compile(
    r"(?<![A-Za-z])(?:[O\u0398\u03a9\u00d5]|O\u0303)\s*\(|\bpolylog|\bsqrt\s*\(|\u221a|"
    r"\b(?:big-O|asymptotic\w*)\b",
    re.IGNORECASE,
)
_EXPONENT = re.compile(r"(?:(?<![A-Za-z\\])[A-Za-z]|\)|\d)\s?\^")
_POWER_OF_TEN = re.compile(r"10(?:\^\{?[-+\u2212]?\d+\}?|[\u00b9\u00b2\u00b3\u2070\u2074-\u207b]+)")
_THEOREM = re.compile(
    r"\b(?:(?:Theorem|Lemma|Proposition|Corollar(?:y|ies)|Definition|Assumption)s?\s+[\dA-Z]|"
    r"prove[sn]?\b|proof\b|derives?\b)",
)
_COUNTED = re.compile(
    r"(?<![@\w.])\d+\s+(?:of|out of)\s+(?:the\s+)?(?:\d+(?![.\d])|all)\b(?!\s*%)|\b\d+\s*/\s*\d+\s+"
    r"(?:wins|tasks|datasets|benchmarks|environments|instances|games|problems)\b",
    re.IGNORECASE,
)
_RANK = re.compile(r"\b(?:average\s+rank|ranks?\s+(?:first|\d)|ranked\s+(?:first|\d))\b", re.I)
_UP_TO = re.compile(r"\bup to\s+(?:an?\s+)?(?:[-+]\s?)?\d[\d.,]*\s?(?:%|x|\u00d7|points?)", re.I)
_NUMBER_WORDS = r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+"
_UNLISTED = re.compile(
    r"\b(?:across|on|over|in|for)\s+(?:all\s+)?(?:the\s+)?(?:(?:" + _NUMBER_WORDS + r"|"
    r"several|multiple|many|various|different|diverse|tested|experimental|evaluated)\s+)"
    r"(?:[\w-]+\s+){0,2}?(?:datasets|benchmarks|tasks|environments|settings|domains|languages|"
    r"models|regimes|budgets|scales|sizes|splits|problems)\b|"
    r"\b(?:across|over)\s+(?:the\s+)?(?:[\w-]+\s+)?(?:datasets|benchmarks|tasks|environments|"
    r"settings|domains|regimes|budgets|scales|dimensions)\b",
    re.IGNORECASE,
)
_NOT_DIFFERENT = re.compile(
    r"\bnot\s+(?:too|very|much|significantly|substantially|meaningfully)\s+different\s+"
    r"(?:from|than|to)\b",
    re.IGNORECASE,
)
_UNCERTAINTY = re.compile(r"(?:\u00b1|\+/-|\+-|plus/minus|plus or minus)\s*$", re.IGNORECASE)
_EXAMPLE = re.compile(r"\be\.\s?g\.,?|\bfor example\b|\bfor instance\b", re.IGNORECASE)


_RESULTS_LEAD = re.compile(
    r"^[^,]*\b(?:results?|experiments?|evaluations?|ablations?)\b[^,]*,\s+(?:showing|confirming|"
    r"indicating|demonstrating)\s+(?:that\s+)?|"
    r"^(?:[\w-]+\s+){0,2}(?:experiments?|evaluations?|ablations?)\s+(?:on|in|with)\s+[^,]*?\s+"
    r"(?:show|shows|confirm|confirms|indicate|indicates|demonstrate|demonstrates)\s+(?!that\b)",
    re.IGNORECASE,
)


_SUPERSCRIPT = str.maketrans(
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a",
    "0123456789-+",
)
_SUPERSCRIPT_RUN = re.compile(r"[\u2070\u00b9\u00b2\u00b3\u2074-\u207b]+")


def _superscripts(text: str) -> str:
    """Exponents written as superscripts made explicit ("10\u2076" -> "10^6", "k\u00b2" ->
    "k^2"), before normalising would run them into the base ("10\u2076" read as 106)."""
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT), text)


def _strip_anchors(text: str) -> str:
    """The claim without its pointers into the paper: "(Table 1)", "Figure 5 shows that"."""
    text = _ANCHOR.sub("", text)
    text = _ANCHOR_LEAD.sub("", text.strip()).strip()
    text = _RESULTS_LEAD.sub("", text)
    return text[:1].upper() + text[1:] if text else text


def _abstain(text: str) -> str:
    """Why no rule may draft a check for ``text`` (a phrasing the rules cannot state), or ""."""
    if _THEOREM.search(text):
        return "no check: a theorem's statement is proved, not measured"
    if _RATE.search(text):
        return "no check: a rate or an asymptotic bound (O, \u0398, \u03a9)"
    if _EXPONENT.search(_POWER_OF_TEN.sub("", text)):
        return "no check: a rate or a formula with an exponent"
    if re.search(r"\b(?:is|was|are|were)\s+(?:pre-?trained|trained)\s+on\b", text, re.I) and not (
        re.search(r"\b(?:than|versus|vs\.?|outperform\w*|better|worse)\b", text, re.I)
    ):
        return "no check: a description of the training data (its sizes are the scale)"
    if re.search(
        r"^Figures?\s+[\w.,-]+(?:\s+and\s+[\w.]+)?\s+(?:\w+\s+)?(?:compare|illustrate|"
        r"visuali[sz]e|depict|plot)s?\b",
        text,
        re.I,
    ):
        return "no check: a description of the paper's figures"
    counted = _COUNTED.search(text)
    if counted:
        return f"no check: a counted quantifier ({counted.group(0)!r})"
    rank = _RANK.search(text)
    if rank:
        return f"no check: a rank ({rank.group(0)!r})"
    up_to = _UP_TO.search(text)
    if up_to:
        return f"no check: {up_to.group(0)!r} is a maximum over settings not enumerated"
    return ""


def _unlisted(text: str, check: Check) -> str:
    """A quantifier over settings the claim does not enumerate ("across four datasets")."""
    if any(node.relation in {Relation.for_all, Relation.exists} for node in check.nodes()):
        return ""  # the quantifier is in the check (around it, or around one of its parts)
    for m in _UNLISTED.finditer(text):
        if re.search(
            r"\b(?:average\w*|mean|on average)\s+(?:[\w@-]+\s+){0,4}$", text[: m.start()], re.I
        ):
            continue
        if re.search(r"\baverage", m.group(0), re.I) or re.search(
            r"^[^.;]{0,60}\b(?:an?\s+)?average\b", text[m.end() :], re.I
        ):  # "across 11 datasets, X attains an average accuracy of ...": one value
            continue
        counted = find_numbers(m.group(0)) or find_count_words(m.group(0))
        if counted and check.relation is Relation.all_of and len(check.parts) >= counted[0].value:
            continue  # "on two tasks" with one part per task: the settings are the parts
        return f"no check: a quantifier over settings not enumerated ({m.group(0).strip()!r})"
    return ""


def _name_number(text: str, mention: NumberMention) -> bool:
    """A number that is part of a name or a version ("Claude Opus 4.5", "CyberPal 2.0")."""
    if mention.unit:
        return False
    before = text[: mention.start]
    return bool(re.search(r"(?:^|\s)[A-Z][\w-]*\s$", before)) and not re.search(
        r"\b(?:of|is|are|at|to|reaches|achieves|attains|versus|vs\.?)\s+[A-Z][\w-]*\s$", before
    )


def _reported(text: str) -> list[NumberMention]:
    """The numbers ``text`` reports as results: percentages, ratios, decimals and points that
    are not settings, names, uncertainties or examples."""
    example = _EXAMPLE.search(text)
    cut = example.start() if example else len(text)
    out: list[NumberMention] = []
    for mention in find_numbers(text):
        if mention.start >= cut:
            break
        measured = mention.unit in {"%", "x", "points", "point", "pp"} or "." in mention.text
        if not measured or _name_number(text, mention):
            continue
        if _UNCERTAINTY.search(text[: mention.start]):
            continue
        if is_setting(text, mention):
            continue
        out.append(mention)
    return out


def _used_numbers(check: Check) -> list[float]:
    values: list[float] = []
    for node in check.nodes():
        for constant in (node.constant, node.upper, node.count, node.at_least, *node.domain):
            if constant is None:
                continue
            mentions = find_numbers(constant.text)
            values.append(abs(mentions[0].value) if mentions else abs(constant.value))
        if node.tolerance.abs:
            values.append(abs(node.tolerance.abs))
        for label in node.labels:  # a setting named by its value: "a \u2208 {1.5, 2.0}"
            values += [abs(m.value) for m in find_numbers(label)]
    return values


def _accounted(value: float, used: list[float]) -> bool:
    def near(a: float, b: float, rel: float) -> bool:
        return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)

    if any(near(value, u, 1e-6) for u in used):
        return True
    for i, a in enumerate(used):
        for b in used[i + 1 :]:
            derived = [abs(a - b)]
            if a and b:
                derived += [a / b, b / a, abs(a - b) / abs(b) * 100, abs(a - b) / abs(a) * 100]
            if any(near(value, d, 0.1) for d in derived):
                return True
    return False


_DERIVED = re.compile(
    r"\b(?:gains?|improvements?|increases?|reductions?|drops?|differences?|speed-?ups?|faster|"
    r"better|worse|lower|higher|more|less|fewer|by|of)\b[^\d]{0,12}$",
    re.IGNORECASE,
)


_VAGUE_AFTER = re.compile(
    r"\s*(?:on|in|for|across|of)\s+(?:most|many|several|some|various)\b", re.IGNORECASE
)


def _unaccounted(text: str, check: Check) -> list[str]:
    """The numbers ``text`` reports that ``check`` neither uses nor derives from two it uses
    (a derived number must be written as one: "a gain of 1.8", "+0.12", "9x")."""
    if check.relation is Relation.human:
        return []
    used = _used_numbers(check)
    # find_numbers reads "a 5-point gain" and "97.88%/99.47%", not "1.5-percentage-point"
    missing: list[str] = [
        m.group(0)
        for m in re.finditer(r"\b(\d+(?:\.\d+)?)-percentage-points?\b", text)
        if not _accounted(float(m.group(1)), used)
    ]
    for m in _reported(text):
        value = abs(m.value)
        if any(abs(value - u) <= 1e-6 * max(value, u, 1e-12) for u in used):
            continue
        if _VAGUE_AFTER.match(text[m.end :]):
            continue  # "and to over 70% on most models": a vague quantifier checks nothing
        derived = (
            m.text.startswith(("+", "-", "\u2212"))
            or m.unit in {"x", "points", "point", "pp"}
            or bool(_DERIVED.search(text[max(0, m.start - 40) : m.start]))
        )
        if derived and _accounted(value, used):
            continue
        missing.append(m.text)
    return missing


_VERSUS = re.compile(
    r"\b(?:versus|vs\.?|compared (?:to|with)|than|against|while|whereas|and|below|above|"
    r"outperform\w*|surpass\w*)\b|,",
    re.IGNORECASE,
)


def _values_conjunction(text: str, subject: str) -> Check | None:
    """ "X a vs Y b (and Z c)": one equality per reported number, a conjunction."""
    numbers = _reported(text)
    if len(numbers) < 2 or not _VERSUS.search(text[numbers[0].end : numbers[-1].start]):
        return None
    if re.search(
        r"\bfrom\s+\S+\s+to\b|\b(?:gains?|improvements?|increases?|reductions?|drops?|"
        r"degradations?|speed-?ups?|better|worse|faster|slower|matches|matching|similar|"
        r"comparable|on par|respectively|each)\b|\bby\s+[-+]?\d|10\^|[x\u00d7]\s?10",
        text,
        re.I,
    ):
        return None  # a change, a difference or a likeness, not a list of values
    if any(
        n.unit not in {"", "%"} or n.text.startswith(("+", "-")) or _in_range(text, n)
        for n in numbers
    ):
        return None
    direction = direction_of(text)
    parts: list[Check] = []
    for i, number in enumerate(numbers):
        after = text[number.end : number.end + 60]
        named = re.match(
            r"\s*(?:[\w@-]+\s+){0,2}?for\s+(?:the\s+)?(?P<n>[\w+.-]+(?:\s[\w+.-]+)?)", after
        )
        before = text[max(0, number.start - 40) : number.start]
        owner = re.search(r"(?P<n>[\w+.-]+)(?:'s|\u2019s)\s+(?:[\w-]+\s+){0,2}$", before)
        paren = re.search(r"(?P<n>[A-Z][\w+.-]*)\s*\(\s*$", before)
        lead = re.search(
            r"(?:^|[:;,(]|\b(?:vs\.?|versus|and|while|whereas))\s*(?P<n>(?:[\w+.-]+\s){1,3})$",
            before,
        )
        label = (
            (named.group("n") if named else "")
            or (owner.group("n") if owner else "")
            or (paren.group("n") if paren else "")
            or (lead.group("n") if lead and not _SUBJECT_VERB.search(lead.group("n")) else "")
        )
        name = _slug(label, "") if label else ""
        if not name or name in [p.subject for p in parts]:
            name = subject if i == 0 else f"{subject}_{i + 1}"
        if name in [p.subject for p in parts]:
            name = f"{name}_{i + 1}"
        parts.append(
            Check(
                relation=Relation.equal,
                quantities=[Quantity(name=name, description=name.replace("_", " "))],
                subject=name,
                constant=Constant(value=number.value, text=number.text),
                tolerance=_tol(bool(re.search(rf"{_APPROX}\s*$", text[: number.start], re.I))),
                direction=direction,
            )
        )
    return Check(relation=Relation.all_of, parts=parts)


def audit_check(quote: str, check: Check) -> str:
    """Why ``check`` does not say what ``quote`` says, or "" (the right-or-silent guards every
    drafted check passes, whoever drafted it: the numbers the claim reports are the check's, a
    quantifier over settings is not dropped)."""
    text = _strip_anchors(normalize_with_map(_superscripts(quote))[0].strip())
    missing = _unaccounted(text, check)
    if missing:
        return (
            "no check: the claim reports "
            + ", ".join(missing[:3])
            + " that the drafted check would not use"
        )
    return _unlisted(text, check)


def _scale_of(text: str) -> Scale:
    """The settings a claim states ("within 100,000 steps", "over 10^6 random draws"): they are
    its scale, not quantities to measure."""
    scale = parse_scale(text)
    if not scale.data_size:
        for mention in find_numbers(text):
            count = _SAMPLE_COUNT.match(text[mention.end :])
            if count and not re.search(r"\bsteps?|iterations?\b", count.group(0)):
                scale.data_size = f"{mention.text}{count.group(0)}".strip()
                break
    return scale


_FRAGMENT_WORDS = frozenset(
    "a an and or to in of on at by for from with than versus vs the specifically".split()  # noqa: SIM905
)
_UNSTATED_COMPARISON = re.compile(
    r"\b(?:best|outperform\w*|surpass\w*|beats?|state[- ]of[- ]the[- ]art|sota|below|above)\b",
    re.I,
)
_NUM_RE = r"(?<![\w.])\d+(?:\.\d+)?"
# a number that is not a value of its own: a multiplier ("9.2x speedup", a ratio to a baseline),
# an amount of change ("reducing latency by about 20%"), or the ends of a change ("from 11.1%
# closed-book to 34.2%")
_RELATIVE_VALUE = re.compile(
    rf"{_NUM_RE}\s?(?:x|\u00d7)(?![a-z])|\bby\s+(?:about\s+|roughly\s+|~\s?)?{_NUM_RE}"
    rf"|\bfrom\s+{_NUM_RE}[^.;]*?\bto\s+{_NUM_RE}",
    re.I,
)
_FROM_TO = re.compile(rf"\bfrom\s+[-+\u2212]?{_NUM_RE}[^.;]*?\bto\s+[-+\u2212]?{_NUM_RE}", re.I)
_UNIT_AFTER = re.compile(rf"([-+\u2212]?{_NUM_RE})\s?(%|x\b|\u00d7|[A-Za-z][\w/.-]*)", re.I)
_NOT_UNITS = frozenset(
    {
        "to",
        "and",
        "or",
        "for",
        "on",
        "in",
        "with",
        "vs",
        "versus",
        "than",
        "from",
        "at",
        "of",
        "by",
        "while",
        "whereas",
        "compared",
        "across",
        "over",
        "under",
        "within",
        "when",
        "after",
        "before",
        "per",
        "as",
        "is",
        "are",
        "was",
        "were",
    }
)


def _unused_alike(text: str, check: Check) -> str:
    """A number of ``text`` with the same unit as a value the check uses ("from 16 to 7 bytes
    per parameter, or 5 bytes ...": 5 bytes) that the check does not use, or ""."""
    used = _used_numbers(check)

    def is_used(value: float) -> bool:
        return any(abs(value - u) <= 1e-6 * max(value, u, 1e-12) for u in used)

    found = []
    for m in _UNIT_AFTER.finditer(text):
        unit = m.group(2).lower()
        if unit in _NOT_UNITS:
            continue
        try:
            value = abs(float(m.group(1).replace("\u2212", "-").replace(",", "")))
        except ValueError:
            continue
        found.append((value, unit, m.group(0)))
    units = {unit for value, unit, _ in found if is_used(value)}
    return next((t for value, unit, t in found if unit in units and not is_used(value)), "")


_GENERIC_NAME = re.compile(r"(?:subject|baseline)(?:_\d+)?$")
_SETTING_WORDS = re.compile(r"\b(?:threshold|cut-?off|budget|learning rate|batch size)\b", re.I)


def _fragment_name(name: str) -> bool:
    """A quantity name that is a piece of the sentence, not a name: a function word in it, or
    more than three words ("trains_in_3_minutes_to_1", "specifically", "and")."""
    words = [w for w in name.split("_") if w and not w.isdigit()]
    return not words or len(words) > 3 or any(w in _FRAGMENT_WORDS for w in words)


def confidence_gate(quote: str, check: Check) -> str:
    """Why the rules do not publish ``check`` for ``quote`` (they are not sure of the claim's
    phrasing), or "" when its shape is one the rules are right on.

    The shapes kept are those whose drafted checks were right on real event claims (docs/checks.md,
    "Measured on real event claims"): a change "from a to b"; a single reported value; a
    conjunction of reported values whose quantities are named by names, not sentence fragments.
    A value shape is not kept when the claim also compares ("best", "outperforms") and the check
    does not, when a number is a setting ("a threshold of 0.95"), or when the subject is unnamed.
    Orderings, differences, ratios, bounds, quantifiers and trends were wrong too often on claims
    the rules had not seen: they abstain, and a person or a capable model writes the check."""
    text = _strip_anchors(normalize_with_map(_superscripts(quote))[0].strip())
    relation = check.relation
    unsure = "no check: the rules are not sure of this phrasing"
    dropped = _unused_alike(text, check)
    if dropped:
        return f"{unsure} (it also reports {dropped!r}, which the check would not use)"
    if relation is Relation.change:
        if len(_FROM_TO.findall(text)) > 1:
            return f"{unsure} (it states more than one change)"
        return ""
    if relation is Relation.equal:
        values = [check]
    elif relation is Relation.all_of and all(p.relation is Relation.equal for p in check.parts):
        values = list(check.parts)
        names = [q.name for q in check.all_quantities()]
        fragment = next((n for n in names if _fragment_name(n)), None)
        if fragment is not None:
            return f"{unsure} (a quantity named {fragment!r} is a piece of the sentence)"
    else:
        return f"{unsure} ({relation.value} checks are not drafted by the rules)"
    if any(_GENERIC_NAME.match(q.name) for v in values for q in v.all_quantities()):
        return f"{unsure} (the value's subject is not named)"
    comparison = _UNSTATED_COMPARISON.search(text)
    if comparison:
        return f"{unsure} (it also compares: {comparison.group(0)!r})"
    relative = _RELATIVE_VALUE.search(text)
    if relative:
        return f"{unsure} (a value is relative to another: {relative.group(0)!r})"
    setting = _SETTING_WORDS.search(text)
    if setting:
        return f"{unsure} (a number may be a setting: {setting.group(0)!r})"
    return ""


def draft_check(
    quote: str, *, claim_id: str = "", scale: Scale | None = None, gate: bool = False
) -> Draft:
    """A check for ``quote`` by the rules of the module docstring, or None with the reason.

    With ``gate`` a drafted check is returned only when its shape passes
    :func:`confidence_gate` (the shapes measured right on real event claims); without it, the
    rules' reading whatever its shape (what the pipeline stores today, the rules' own tests and
    the per-shape measure read)."""
    text, _ = normalize_with_map(_superscripts(quote))
    text = _strip_anchors(text.strip())
    if not text:
        return Draft(reason="empty quote")
    reason = _abstain(text)
    if reason:
        return Draft(reason=reason, settled=True)
    text = _NOT_DIFFERENT.sub("similar to", text)
    text = re.sub(r",?\s*\(?\be\.\s?g\.,?[^;()]*\)?", "", text)  # an example is not the claim
    # a claim that reports measured values is not a perceptual judgement ("81.4% accuracy on
    # visual counting", "faithfulness maintained at 0.483"): the values are its check
    strong = re.search(
        r"\bhuman (?:evaluat\w*|judg\w*|raters?|study|studies|preference\w*(?!\s+(?:labels?|"
        r"data|annotations?|feedback|pairs)))|\bpreferred by\b",
        text,
        re.I,
    )
    human = _human(text) if strong or not _reported(text) else None
    if human is not None and gate:
        # no human check drafted by the rules was measured right on real event claims (two of
        # two wrong on fresh3): behind the gate the rules leave it to a person
        return Draft(
            reason="no check: the rules are not sure of this phrasing (a human judgement)",
            rule="H1",
            withheld=_human_check(human, quote, claim_id, scale),
        )
    if human is not None:
        return Draft(check=_human_check(human, quote, claim_id, scale), rule="H1")
    vague = _VAGUE.search(text)
    if vague:
        return Draft(reason=f"vague or unsupported phrasing {vague.group(0)!r}: no rule applies")
    clauses = [
        _Clause(text=piece.strip(" ,."), full=text)
        for piece in _SPLIT.split(text)
        if piece and len(piece.strip()) > 3
    ]
    checks: list[Check] = []
    rules: list[str] = []
    for clause in clauses:
        check = _clause_check(clause)
        holds = re.search(r"\b(?:this|these|the same)\b[\w\s]*\bholds?\b", clause.text, re.I)
        if holds and checks and (check is None or check.relation is Relation.for_all):
            universal = _universal(clause, checks[-1])
            if universal is not None:
                checks[-1] = Check(
                    relation=Relation.for_all,
                    inner=checks[-1],
                    sweep=universal[0],
                    unbounded=universal[1],
                )
                rules.append("forall")
                continue
        if check is not None:
            checks.append(check)
            rules += clause.rules
    check = None
    if checks:
        check = checks[0] if len(checks) == 1 else _conjoin(checks)
    if check is None or _unaccounted(text, check):
        values = _values_conjunction(text, _subject(_Clause(text=text, full=text)))
        if values is not None and not _unaccounted(text, values):
            check, rules = values, ["V1"]
    if check is None:
        return Draft(reason="no rule matches the phrasing")
    missing = _unaccounted(text, check)
    if missing:
        return Draft(
            reason="no check: the claim reports "
            + ", ".join(missing[:3])
            + " that the drafted check would not use",
            rule="+".join(rules),
        )
    unlisted = _unlisted(text, check)
    if unlisted:
        return Draft(reason=unlisted, rule="+".join(rules))
    check = _annotate(check, dataset_of(text))
    check = check.model_copy(
        update={
            "origin": Origin.rules,
            "quote": quote,
            "rule": "+".join(rules),
            "scale": scale or _scale_of(text),
        }
    )
    try:
        check = Check.model_validate(check.model_dump())
    except ValueError as exc:
        return Draft(reason=f"drafted check is inconsistent: {exc}", rule="+".join(rules))
    problems = grounding_problems(check, quote)
    if problems:
        return Draft(reason="; ".join(problems), rule="+".join(rules))
    unsure = confidence_gate(quote, check) if gate else ""
    if claim_id:
        check = check.for_claim(claim_id)
    if unsure:
        return Draft(reason=unsure, rule="+".join(rules), withheld=check)
    return Draft(check=check, rule="+".join(rules))


def _human_check(human: Check, quote: str, claim_id: str, scale: Scale | None) -> Check:
    human = human.model_copy(
        update={"origin": Origin.rules, "quote": quote, "rule": "H1", "scale": scale or Scale()}
    )
    if grounding_problems(human, quote):
        human = human.model_copy(update={"constant": None})
    return human.for_claim(claim_id) if claim_id else human


def draft_for_claim(
    quotes: Sequence[str],
    claim_id: str,
    scale: Scale | None = None,
    *,
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
) -> dict[str, Any] | None:
    """The stored form (JSON) of the rules' check for a claim: the first of its quotes a rule
    drafts a grounded check for, keyed to ``claim_id``; None when no rule applies to any.
    ``drafting`` is the challenge's setting ``check_drafting``: ``gated`` keeps only the
    shapes :func:`confidence_gate` passes, ``rules`` every reading, ``off`` none."""
    if drafting == "off":
        return None
    for quote in quotes:
        draft = draft_check(quote, claim_id=claim_id, scale=scale, gate=drafting == "gated")
        if draft.check is not None:
            stored: dict[str, Any] = draft.check.for_claim(claim_id).model_dump(mode="json")
            return stored
    return None
