"""The clause a rule reads, its subject and baselines, and the words every relation family shares.

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel

from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    APPROX_REL_TOL,
    DEFAULT_REL_TOL,
    Check,
    Comparator,
    Direction,
    Quantity,
    Tolerance,
)
from openrepro.claims.values import (
    NumberMention,
    find_numbers,
)

__all__ = ["Draft", "direction_of"]


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


def _number_at(c: _Clause, start: int) -> NumberMention | None:
    for mention in find_numbers(c.text):
        if mention.start <= start < mention.end or mention.start == start:
            return mention
    return None


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
