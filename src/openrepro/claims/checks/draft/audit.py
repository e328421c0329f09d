"""Right or silent: what the rules refuse before drafting (:func:`_abstain`) and the audit of any
drafter's check (:func:`audit_check`: every number the claim reports is used).

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.settings import is_setting
from openrepro.claims.checks.records import (
    Check,
    Relation,
)
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import (
    NumberMention,
    find_count_words,
    find_numbers,
)

__all__ = ["audit_check", "is_aggregate_name"]


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


_AGGREGATE = re.compile(r"(?:^|_)(?:average|avg|mean|overall|aggregate|pooled)(?:_|$)")


def is_aggregate_name(name: str) -> bool:
    """Whether a quantity's name says it is an aggregate over settings ("average_gain",
    "avg_top1", "overall_score"): the one reading the audit and the model's reader share."""
    return _AGGREGATE.search(name) is not None


def _aggregate(check: Check) -> bool:
    """Whether the check reads a value over settings as their aggregate: a measured quantity
    the drafter named an average, a mean or an overall value ("average_gain")."""
    return any(is_aggregate_name(node.subject or "") for node in check.nodes())


def _unlisted(text: str, check: Check) -> str:
    """A quantifier over settings the claim does not enumerate ("across four datasets")."""
    if any(node.relation in {Relation.for_all, Relation.exists} for node in check.nodes()):
        return ""  # the quantifier is in the check (around it, or around one of its parts)
    if _aggregate(check) and not re.search(r"\b(?:each|every)\b", text, re.I):
        return ""  # "a 10% average gain across seven benchmarks": one value, the aggregate
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
#: a vague quantifier earlier in the number's clause: "with most evaluated LLMs failing to
#: exceed 20%" says nothing of any one setting
_VAGUE_BEFORE = re.compile(r"\b(?:most|many|several|various)\b[^,;.()]{0,60}$", re.IGNORECASE)


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
        if _VAGUE_AFTER.match(text[m.end :]) or _VAGUE_BEFORE.search(text[: m.start]):
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
