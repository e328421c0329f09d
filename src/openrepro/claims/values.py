"""Reported values and scale, parsed from a claim's quotes by code (the LLM only adds to this).

Deliberately conservative: a value is recorded only with the number exactly as the paper wrote
it, the unit next to it, and the nearest metric word; anything unclear stays unparsed rather
than guessed. The judge later compares a logbook's measured values and scale with these.

:func:`find_numbers` is the one number reader of the claims and their checks (``1e-15``,
``10^6``, ``10⁶``, ``2 x 10^5``, ``4.5k``, ...); :func:`find_powers` reads rates and powers of
variables (``O(1/T)``, ``Θ(1/k²)``, ``O(log T / T)``, ``k^2``, ``d³``, ``T^{-1/2}``), whose
numbers are not stated numbers; :func:`find_count_words` reads counts written as words
("four datasets").
"""

from __future__ import annotations

import itertools
import math
import re
from typing import ClassVar

from pydantic import BaseModel, Field

__all__ = [
    "MAGNITUDE_FACTOR",
    "NUMBER_WORDS",
    "NumberMention",
    "PowerMention",
    "ReportedValue",
    "Scale",
    "find_compound_numbers",
    "find_count_words",
    "find_magnitudes",
    "find_number_words",
    "find_numbers",
    "find_powers",
    "find_record_counts",
    "find_suffixed_numbers",
    "in_formula",
    "magnitude_range",
    "parse_number",
    "parse_power",
    "parse_scale",
    "parse_values",
    "slashed_labels",
    "split_range",
    "variable_symbol",
]


class ReportedValue(BaseModel):
    """One number a claim reports."""

    metric: str = ""
    value: float
    text: str  # the number as written, e.g. "88.1%" or "1.9x"
    unit: str = ""
    baseline: float | None = None  # "from 24.3 to 22.8": baseline 24.3, value 22.8
    dataset: str = ""
    setting: str = ""
    source: str = "code"  # "code" (parsed from the quote) or "llm" (checked against the quote)
    rel_tol: float | None = None  # the claim's own relative tolerance (organizers may set it)

    def describe(self) -> str:
        """One line for people: ``accuracy 22.8 (from 24.3) on WikiText-103``."""
        parts = [self.metric or "value", self.text]
        if self.baseline is not None:
            parts.append(f"(from {self.baseline:g})")
        if self.dataset:
            parts.append(f"on {self.dataset}")
        return " ".join(parts)


class Scale(BaseModel):
    """The scale the paper used, where it says so: what `toy` is judged against."""

    model_size: str = ""
    data_size: str = ""
    steps: str = ""
    hardware: str = ""

    def is_empty(self) -> bool:
        return not (self.model_size or self.data_size or self.steps or self.hardware)

    def describe(self) -> str:
        """``model_size 350M, steps 2,000 steps`` (only what the paper stated)."""
        return ", ".join(f"{k} {v}" for k, v in self.model_dump(exclude_defaults=True).items())


_NUM = "[-+\u2212]?" r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT = (
    "%|\u00d7|"
    r"x\b|-?fold\b|percentage[\s-]points?\b|pp\b|points?\b|ms\b|s\b|seconds?\b|minutes?\b|hours?\b|days?\b|"
    r"GB\b|MB\b|TB\b|[KMBT]\b|tokens?\b|steps?\b|epochs?\b|parameters?\b|params?\b"
)
# Not inside identifiers ("WikiText-103", "ViT-L/16", "top-1") nor compound adjectives
# ("2,000-step", "350M-parameter": those are scale, see parse_scale).
_VALUE = re.compile(
    rf"(?<![\w.\-/])(?P<num>{_NUM})\s?(?P<unit>{_UNIT})?(?!,\d)(?![\w-]*-[A-Za-z])(?!\w)",
    re.IGNORECASE,
)
_FROM_TO = re.compile(rf"from\s+(?P<a>{_NUM})\s?%?\s+to\s+(?P<b>{_NUM})", re.IGNORECASE)
_METRICS = (
    "top-1 accuracy", "top-5 accuracy", "accuracy", "top-1", "f1", "bleu", "rouge-l", "rouge",
    "perplexity", "auc", "auroc", "error rate", "error", "loss", "fid", "win rate", "reward",
    "return", "returns", "success rate", "recall", "precision", "map", "iou", "exact match",
    "speed-up", "speedup", "speeds up", "faster", "slower", "throughput", "latency", "memory",
    "parameters",
    "ece", "mse", "mae", "rmse", "wer", "cer", "pass@1", "score",
)  # fmt: skip
_DATASET = re.compile(
    r"\b(?:[A-Z][A-Za-z]*(?:-[A-Za-z0-9]+)*-?\d+[A-Za-z0-9-]*|[A-Z]{2,}[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\b"
)
_NOT_DATASETS = {"GPU", "GPUS", "TPU", "CPU", "SOTA", "LLM", "LLMS", "ROUGE-L", "BLEU", "AUC",
                 "FID", "MSE", "MAE", "WER", "ECE", "KL", "RL", "ML", "AI", "NLP"}  # fmt: skip
_YEAR = re.compile(r"^(19|20)\d\d$")


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


class NumberMention(BaseModel):
    """One number as a sentence writes it: ``~66.59%``, ``1.01e4``, ``10^5``, ``4.5k``, ``8x``."""

    text: str  # the number with its unit, exactly as written
    value: float  # the number itself (``4.5k`` -> 4500, ``88.1%`` -> 88.1, ``10^5`` -> 100000)
    unit: str = ""  # "%", "x", "k", or a word unit ("points", "GB", ...); "" when bare
    start: int = 0
    end: int = 0


# A number with an optional exponent (1.01e4, 5e7, 10^5, 10^{-3}, 10⁶, 2 x 10^5) and unit.
_SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a"
_SUPER = str.maketrans(_SUPERSCRIPTS, "0123456789-+")
_SUP_EXP = "[\u207b\u207a]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+"
_POW10 = rf"10(?:\^\{{?[-+\u2212]?\d+\}}?|{_SUP_EXP})"
_EXP = rf"(?:[eE][-+]?\d+|\s?[x\u00d7*]\s?{_POW10})"
# Besides a number standing alone: the second end of a range ("3-5", "12.8x-13.6x", "5%-10%")
# and the next of values listed with slashes ("97.88%/99.47%"); "a 5-point gain" is 5 points.
_MENTION = re.compile(
    rf"(?:(?<![\w.\-/^])|(?<=\d-)|(?<=\d\u2013)|(?<=\d[%x\u00d7][-\u2013/]))"
    rf"(?P<num>{_POW10}|(?:{_NUM}|[-+\u2212]?\.\d+){_EXP}?)(?!\.\d)"
    rf"(?:\s?(?P<unit>{_UNIT}|k\b)|-(?P<hyphenated>points?)\b)?(?!,\d)(?![\w-]*-[A-Za-z])(?!\w)",
    re.IGNORECASE,
)


def parse_number(text: str) -> float:
    """The value of one number as written (``1,024``, ``\u22120.5``, ``1.01e4``, ``10^5``,
    ``2 x 10^5``); raises ValueError when ``text`` is not one number."""
    cleaned = text.strip().replace(",", "").replace("\u2212", "-").replace("{", "").replace("}", "")
    cleaned = re.sub(f"10({_SUP_EXP})$", lambda m: "10^" + m.group(1).translate(_SUPER), cleaned)
    power = re.fullmatch(r"(?:(?P<m>[-+]?\d*\.?\d+)\s?[x\u00d7*]\s?)?10\^(?P<e>[-+]?\d+)", cleaned)
    if power:
        mantissa = float(power.group("m")) if power.group("m") else 1.0
        return mantissa * 10.0 ** int(power.group("e"))
    return float(cleaned)


def find_numbers(sentence: str) -> list[NumberMention]:
    """Every number ``sentence`` states, in order, with its unit; numbers inside identifiers
    (``WikiText-103``, ``ViT-B/16``, ``top-1``, ``10-shot``) are not numbers the sentence states.

    This is the one number reader of the claims and their checks: a check's constants are
    grounded when they are among these (:mod:`openrepro.claims.checks.grounding`).
    """
    found: list[NumberMention] = []
    # a number inside a rate or a power of a variable ("1" in "O(1/T)", "-1" in "T^{-1/2}") is
    # part of that expression, not a number the sentence states (find_powers reads those)
    inside = _expression_spans(sentence)
    for match in _MENTION.finditer(sentence):
        if any(a <= match.start("num") < b for a, b in inside):
            continue
        raw, unit = match.group("num"), (match.group("unit") or match.group("hyphenated") or "")
        start = match.start()
        if raw[:1] in "-\u2212" and re.search(r"\d[%x\u00d7]$", sentence[:start], re.I):
            raw, start = raw[1:], start + 1  # "5%-10%": the dash of a range, not a sign
        try:
            value = parse_number(raw)
        except ValueError:
            continue
        unit = unit.replace("\u00d7", "x")
        if unit in {"k", "K"}:
            value *= 1000.0
        found.append(
            NumberMention(
                text=sentence[start : match.end()].strip(),
                value=value,
                unit=unit.lower() if unit not in {"K", "M", "B", "T"} else unit,
                start=start,
                end=match.end(),
            )
        )
    for i, (first, second) in enumerate(itertools.pairwise(found)):
        if (
            not first.unit
            and second.unit == "%"
            and re.fullmatch(r"\s?[-\u2013]\s?", sentence[first.end : second.start])
        ):  # "10-15%": a range's unit is both ends'
            found[i] = first.model_copy(update={"unit": "%"})
    return found


# -- powers and rates ------------------------------------------------------------------------


class PowerMention(BaseModel):
    """A rate or a power of a variable as a sentence writes it: ``O(1/T)``, ``Θ(1/k²)``,
    ``O(\\sqrt{T})``, ``O(log T / T)``, ``T^{-1/2}``, ``d³``, ``1/k^2``.

    ``powers`` maps each variable to its exponent (``1/k^2`` -> ``{"k": -2}``), ``logs`` each
    variable to the power of its logarithm (``log T / T`` -> ``{"T": 1}``); constant factors are
    left out (``O(2/T)`` is ``O(1/T)``). ``order`` is the asymptotic bound around it: ``O`` (at
    most of that order; ``Õ`` and ``\\mathcal{O}`` too), ``Theta``, ``Omega``, or ``""`` for a
    bare power.
    """

    text: str
    order: str = ""
    powers: dict[str, float] = Field(default_factory=dict)
    logs: dict[str, float] = Field(default_factory=dict)
    start: int = 0
    end: int = 0

    def _of(self, table: dict[str, float], symbol: str) -> float | None:
        if symbol:
            if math.isnan(self.powers.get(symbol, 0.0) + self.logs.get(symbol, 0.0)):
                return None  # inside a sum or a polylog: the expression gives no power of it
            if symbol in self.powers or symbol in self.logs or not (self.powers or self.logs):
                return _known(table.get(symbol, 0.0))
            return None  # the expression is about other variables
        variables = set(self.powers) | set(self.logs)
        if len(variables) > 1:
            return None  # which variable's exponent? the check names its symbol
        return _known(table.get(next(iter(variables)), 0.0)) if variables else 0.0

    def exponent(self, symbol: str = "") -> float | None:
        """The exponent of ``symbol`` (of the only variable when ``""``; 0 for ``O(1)`` or
        ``O(log T)``), or None when the expression does not say."""
        return self._of(self.powers, symbol)

    def log_power(self, symbol: str = "") -> float | None:
        """The power of ``log symbol`` (0 when there is no logarithm), like :meth:`exponent`."""
        return self._of(self.logs, symbol)


def _known(value: float) -> float | None:
    """An exponent, or None where the expression gives none (a variable inside a sum)."""
    return None if math.isnan(value) else value


_GREEK = {
    "alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4",
    "epsilon": "\u03b5", "varepsilon": "\u03b5", "eta": "\u03b7", "kappa": "\u03ba",
    "lambda": "\u03bb", "mu": "\u03bc", "rho": "\u03c1", "sigma": "\u03c3", "tau": "\u03c4",
    "theta": "\u03b8", "phi": "\u03c6",
}  # fmt: skip
#: words that are functions, not products of one-letter variables ("nT" is n times T)
_FUNCTIONS = frozenset({"exp", "max", "min", "sin", "cos", "tan", "det", "tr", "dim", "lim",
                        "sup", "inf", "arg", "mod", "gcd", "var", "cov", "poly"})  # fmt: skip
_FRACTION = re.compile(r"[-+]?\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?")
_TOKEN = re.compile(
    r"\s+|\\[,;!]|\\[A-Za-z]+|[A-Za-z]{2,}|\d+(?:\.\d+)?"
    r"|[A-Za-z\u03b1-\u03c9](?:_\{\w+\}|_\w+)?"
    rf"|{_SUP_EXP}|[\^*/()\[\]{{}}\u221a\u00b7\u00d7\u2212+\-]"
)
_Mono = tuple[dict[str, float], dict[str, float]]


class _Unreadable(Exception):
    pass


class _Sum(_Unreadable):
    """A sum where a product was expected: unreadable, except as a parenthesised factor."""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise _Unreadable(text[position:])
        token = match.group(0)
        position = match.end()
        if token.isspace() or token in {"\\left", "\\right", "\\,", "\\;", "\\!", "\\big"}:
            continue
        out.append(token)
    return out


def _times(a: _Mono, b: _Mono) -> _Mono:
    powers, logs = dict(a[0]), dict(a[1])
    for k, v in b[0].items():
        powers[k] = powers.get(k, 0.0) + v
    for k, v in b[1].items():
        logs[k] = logs.get(k, 0.0) + v
    return {k: v for k, v in powers.items() if v}, {k: v for k, v in logs.items() if v}


def _raised(a: _Mono, e: float) -> _Mono:
    return {k: v * e for k, v in a[0].items()}, {k: v * e for k, v in a[1].items()}


class _Reader:
    """A recursive-descent reader of a product of powers, roots, fractions and logarithms."""

    _CLOSE: ClassVar[dict[str, str]] = {"(": ")", "{": "}", "[": "]"}
    _TIMES: ClassVar[set[str]] = {"*", "\u00b7", "\u00d7", "\\cdot", "\\times"}

    def __init__(self, text: str) -> None:
        self.t = _tokens(text)
        self.i = 0

    def peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if not token or (expected is not None and token != expected):
            raise _Unreadable(token)
        self.i += 1
        return token

    def expr(self) -> _Mono:
        mono = self.term()
        while self.peek() and self.peek() not in {")", "}", "]"}:
            token = self.peek()
            if token in self._TIMES:
                self.take()
                mono = _times(mono, self.term())
            elif token == "/":
                self.take()
                below = self.term()
                while self.peek() and self.peek() not in {")", "}", "]", "/", "+", "-",
                                                          "\u2212", *self._TIMES}:  # fmt: skip
                    below = _times(below, self.term())  # "1/eta T" is 1/(eta T)
                mono = _times(mono, _raised(below, -1.0))
            elif token in {"+", "-", "\u2212"}:
                raise _Sum("a sum has no single order")
            else:
                mono = _times(mono, self.term())  # juxtaposition: "T log T"
        return mono

    def term(self) -> _Mono:
        base = self.factor()
        token = self.peek()
        if token == "^":
            self.take()
            return _raised(base, self.exponent())
        if token and token[0] in _SUPERSCRIPTS:
            self.take()
            return _raised(base, float(token.translate(_SUPER)))
        return base

    def exponent(self) -> float:
        token = self.take()
        if token in self._CLOSE:
            inner: list[str] = []
            while self.peek() != self._CLOSE[token]:
                inner.append(self.take())
            self.take()
            text = "".join(inner).replace("\u2212", "-")
        else:
            text = token
            if token in {"-", "+", "\u2212"}:
                text = token.replace("\u2212", "-") + self.take()
            nxt = self.t[self.i + 1] if self.i + 1 < len(self.t) else ""
            if self.peek() == "/" and re.fullmatch(r"\d+", nxt) and "/" not in text:
                # "K^-1/3", "T^2/3": a rate's exponent written as a bare fraction is that
                # fraction (dividing by a constant changes no order); "n^2/d" stays n^2 / d
                self.take()
                text = f"{text}/{self.take()}"
        if not _FRACTION.fullmatch(text):
            raise _Unreadable(text)
        numerator, _, denominator = text.partition("/")
        return float(numerator) / (float(denominator) if denominator else 1.0)

    def group(self) -> _Mono:
        opening = self.take()
        if opening not in self._CLOSE:
            raise _Unreadable(opening)
        start = self.i
        try:
            mono = self.expr()
        except _Sum:
            mono = self._sum(start, self._CLOSE[opening])
        self.take(self._CLOSE[opening])
        return mono

    def _sum(self, start: int, closing: str) -> _Mono:
        """A parenthesised sum (``(r - rho)``, ``(d + 2)``): a factor of no single power; each
        of its variables gets an unknown (NaN) exponent, so the expression's exponent is read
        only for a variable outside it (the swept one)."""
        self.i, depth, names = start, 0, set()
        while self.peek() and not (depth == 0 and self.peek() == closing):
            token = self.take()
            depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(token, 0)
            if token.startswith("\\") and token[1:] in _GREEK:
                names.add(_GREEK[token[1:]])
            elif token in _GREEK:
                names.add(_GREEK[token])
            elif re.fullmatch(r"[A-Za-z\u03b1-\u03c9](?:_\{\w+\}|_\w+)?", token):
                names.add(token.replace("{", "").replace("}", ""))
        return {name: math.nan for name in names}, {}

    def factor(self) -> _Mono:
        token = self.peek()
        if token in self._CLOSE:
            return self.group()
        self.take()
        if re.fullmatch(r"\d+(?:\.\d+)?", token):
            return {}, {}  # a constant factor
        if token in {"\\sqrt", "\u221a"}:
            if token == "\\sqrt" and self.peek() == "[":
                raise _Unreadable("an n-th root")
            return _raised(self.group() if token == "\\sqrt" else self.factor(), 0.5)
        if token == "\\frac":
            return _times(self.group(), _raised(self.group(), -1.0))
        if token in {"log", "ln", "\\log", "\\ln"}:
            power = 1.0
            if self.peek() == "^":
                self.take()
                power = self.exponent()
            argument = self.term()
            variables = set(argument[0]) | set(argument[1])
            if argument[1] or len(variables) > 1:
                raise _Unreadable("the logarithm of a product")
            return {}, {v: power for v in variables}
        if token.startswith("\\") and token[1:] in _GREEK:
            return {_GREEK[token[1:]]: 1.0}, {}
        if token in _GREEK:  # "eta", "rho" written as words (lower case, as in "eta T")
            return {_GREEK[token]: 1.0}, {}
        if token == "sqrt":  # "sqrt(h)", "sqrt T"
            return _raised(self.group() if self.peek() in self._CLOSE else self.factor(), 0.5)
        if token == "polylog":  # a log factor of no stated power (Õ hides it: find_powers)
            argument = self.term()
            return {}, {v: math.nan for v in set(argument[0]) | set(argument[1])}
        if re.fullmatch(r"[A-Za-z\u03b1-\u03c9](?:_\{\w+\}|_\w+)?", token):
            return {token.replace("{", "").replace("}", ""): 1.0}, {}
        if re.fullmatch(r"[A-Za-z]{2,3}", token) and token.lower() not in _FUNCTIONS:
            return {v: float(token.count(v)) for v in token}, {}  # "nT": n times T
        raise _Unreadable(token)


_SUFFIXED = re.compile(rf"(?<![\w.\-/^])(?P<num>{_NUM})(?P<unit>[A-Za-z]{{1,3}})(?![\w-])")


def find_suffixed_numbers(sentence: str) -> list[NumberMention]:
    """Numbers written with a letter suffix glued on (``28U``, ``12h``) that
    :func:`find_numbers` leaves out (it cannot tell them from ``3D`` or ``4o``): read only to
    ground a constant whose own text is written so."""
    return [
        NumberMention(
            text=m.group(0),
            value=_number(m.group("num")),
            unit=m.group("unit"),
            start=m.start(),
            end=m.end(),
        )
        for m in _SUFFIXED.finditer(sentence)
    ]


_COMPOUND = re.compile(
    rf"(?<![\w.\-/^])(?P<num>{_NUM})\s?(?P<unit>%|x|k|K|M|B|[A-Za-z]{{0,3}})(?=-[A-Za-z])"
)


def find_compound_numbers(sentence: str) -> list[NumberMention]:
    """Numbers that begin a compound adjective (``90k-token``, ``5-point``, ``350M-parameter``),
    which :func:`find_numbers` leaves out (most are settings, the scale): read only to ground
    a constant a drafter copied from such a compound."""
    out: list[NumberMention] = []
    for m in _COMPOUND.finditer(sentence):
        unit = m.group("unit") or ""
        value = _number(m.group("num")) * (1000.0 if unit in {"k", "K"} else 1.0)
        out.append(NumberMention(text=m.group(0), value=value, unit=unit, start=m.start(),
                                 end=m.end()))  # fmt: skip
    return out


_RECORD = re.compile(r"(?<![\w./-])(\d+)/(\d+)(?![\w./%])")


def find_record_counts(sentence: str) -> list[NumberMention]:
    """Both counts of a record written with a slash (``50/0`` wins/losses, ``19/30``), which
    :func:`find_numbers` reads as its first number only: read only to ground a count a drafter
    copied from such a record (each side its own part)."""
    out: list[NumberMention] = []
    for m in _RECORD.finditer(sentence):
        for group in (1, 2):
            out.append(NumberMention(text=m.group(group), value=float(m.group(group)),
                                     start=m.start(group), end=m.end(group)))  # fmt: skip
    return out


_SLASHED = re.compile(r"(?<![\w-])(?P<stem>[A-Za-z][\w]*(?:-[A-Za-z]\w*)*-?)(?P<first>\d+)"
                      r"(?P<rest>(?:/\d+)+)(?![\w/])")  # fmt: skip


def slashed_labels(sentence: str) -> list[str]:
    """The settings a label like ``CIFAR-10/100`` names (``CIFAR-10``, ``CIFAR-100``)."""
    out: list[str] = []
    for match in _SLASHED.finditer(sentence):
        stem = match.group("stem")
        for number in [match.group("first"), *match.group("rest").strip("/").split("/")]:
            out.append(stem + number)
    return out


def variable_symbol(name: str) -> str:
    """A variable as :func:`find_powers` keys it: ``"eta"``, ``"\\eta"`` and ``"η"`` are
    ``"η"``; ``"T_{max}"`` is ``"T_max"``; other names as they are."""
    name = name.strip().replace("{", "").replace("}", "")
    word = name.removeprefix("\\")
    return _GREEK.get(word, _GREEK.get(word.lower(), name) if word.lower() in _GREEK else name)


_RANGE = re.compile(
    rf"^\s*(?P<a>{_NUM})\s?(?P<ua>%|[A-Za-z]{{1,6}})?\s*(?:-|\u2013|\u2014|to)\s*"
    rf"(?P<b>{_NUM})\s?(?P<ub>%|[A-Za-z]{{1,6}})?\s*$"
)


def split_range(text: str) -> tuple[str, str] | None:
    """The two ends of a range as written (``"4-6"`` -> ``("4", "6")``, ``"2\u20136%"`` (an
    en dash) -> ``("2", "6%")``, ``"10 to 20 ms"``), or None when ``text`` is not a range."""
    match = _RANGE.match(text)
    if match is None or match.group("b").startswith(("-", "\u2212", "+")):
        return None
    if len(find_numbers(text)) == 1:
        return None  # one number ("1e-3")
    first = text[match.start("a") : match.end("ua") if match.group("ua") else match.end("a")]
    second = text[match.start("b") : match.end("ub") if match.group("ub") else match.end("b")]
    return first, second


def parse_power(text: str) -> tuple[dict[str, float], dict[str, float]] | None:
    """The powers and log powers of ``text`` read as one product (``log T / T`` ->
    ``({"T": -1}, {"T": 1})``), or None when it is not one (a sum, a word, an unknown command)."""
    try:
        reader = _Reader(text)
        if not reader.t:
            return None
        mono = reader.expr()
        if reader.i != len(reader.t):
            return None
        return mono
    except (_Unreadable, ValueError, ZeroDivisionError):
        return None


_ORDER = re.compile(
    r"(?:(?<![A-Z0-9_\\])(?P<o>\\mathcal\{O\}|\\mathcal O|\\tilde\{O\}|\\widetilde\{O\}|O"
    r"|\u00d5|\U0001d4aa)"
    r"|(?P<g>\\Theta|\\Omega|\u0398|\u03a9|(?<![A-Za-z])(?:Theta|Omega)))"
    r"\s*(?:\\left|\\big|\\Big)?\s*\("
)
_VAR = r"(?:[A-Za-z\u03b1-\u03c9](?:_\{\w+\}|_\w+)?)"
_EXPONENT = (
    r"(?:\^\{\s*[-+\u2212]?\d+(?:\.\d+)?(?:/\d+)?\s*\}|\^\([-+\u2212]?\d+(?:\.\d+)?(?:/\d+)?\)"
    rf"|\^[-+\u2212]?\d+(?:/\d+(?![\d.]))?(?:\.\d+)?|{_SUP_EXP})"
)
_POWER = rf"(?:{_VAR}{_EXPONENT}|\\sqrt\{{\s*{_VAR}\s*\}}|\u221a\s?{_VAR})"
_BARE_POWER = re.compile(
    rf"(?<![\w\\^/])(?:\d+(?:\.\d+)?\s?/\s?(?:{_POWER}|{_VAR}(?![\w^{{(]))|{_POWER})(?![\w^])"
)


def _order_spans(sentence: str) -> list[tuple[str, int, int, str]]:
    """(order, start, end, inner text) of each ``O(...)``, ``Θ(...)``, ``Ω(...)``."""
    spans: list[tuple[str, int, int, str]] = []
    for match in _ORDER.finditer(sentence):
        greek = match.group("g")
        order = (
            "O" if not greek else ("Theta" if greek in {"\\Theta", "\u0398", "Theta"} else "Omega")
        )
        depth, end = 1, match.end()
        while end < len(sentence) and depth:
            depth += {"(": 1, ")": -1}.get(sentence[end], 0)
            end += 1
        if depth:
            continue
        spans.append((order, match.start(), end, sentence[match.end() : end - 1]))
    return spans


def _all_unknown(mono: tuple[dict[str, float], dict[str, float]]) -> bool:
    """Whether every power and log power is unknown: a sum alone ("O(n + m)") states no rate."""
    values = [*mono[0].values(), *mono[1].values()]
    return bool(values) and all(math.isnan(v) for v in values)


def _tilde(text: str) -> bool:
    """Whether a rate is written with a tilde (``Õ``, ``\tilde{O}``): up to polylog factors."""
    return text.startswith(("\u00d5", "\\tilde", "\\widetilde"))


def find_powers(sentence: str) -> list[PowerMention]:
    """Every rate (``O(1/T)``, ``Θ(1/k²)``, ``Ω(n^2)``, ``O(\\sqrt{T})``, ``O(log T / T)``) and
    bare power of a variable (``k^2``, ``1/k^2``, ``d³``, ``T^{-1/2}``, ``\\sqrt{T}``, ``1/T``)
    that ``sentence`` states, in order (see :class:`PowerMention`). Powers of ten (``10^6``,
    ``10⁶``) are numbers: :func:`find_numbers` reads them."""
    found: list[PowerMention] = []
    taken: list[tuple[int, int]] = []
    for order, start, end, inner in _order_spans(sentence):
        taken.append((start, end))
        mono = parse_power(inner.replace("\\right", ""))
        if mono is not None and _tilde(sentence[start:end]):  # Õ hides polylog factors
            mono = mono[0], {k: v for k, v in mono[1].items() if not math.isnan(v)}
        if mono is not None and not _all_unknown(mono):
            text = sentence[start:end]
            found.append(PowerMention(text=text, order=order, powers=mono[0], logs=mono[1],
                                      start=start, end=end))  # fmt: skip
    for match in _BARE_POWER.finditer(sentence):
        if any(a <= match.start() < b for a, b in taken):
            continue
        mono = parse_power(match.group(0))
        if mono is not None and not _all_unknown(mono):
            found.append(PowerMention(text=match.group(0), powers=mono[0], logs=mono[1],
                                      start=match.start(), end=match.end()))  # fmt: skip
    return sorted(found, key=lambda m: m.start)


def _expression_spans(sentence: str) -> list[tuple[int, int]]:
    """Where rates and powers of variables are written (read or not): their numbers are theirs."""
    spans = [(start, end) for _, start, end, _ in _order_spans(sentence)]
    spans += [(m.start, m.end) for m in find_powers(sentence)]
    return spans


#: number words a claim counts settings with ("across four datasets", "both tasks")
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "both": 2,
}  # fmt: skip
_COUNT_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def find_count_words(sentence: str) -> list[NumberMention]:
    """The counts ``sentence`` writes as words ("four datasets", "both settings"): what a
    quantifier's ``count`` may be grounded in besides :func:`find_numbers`' numbers."""
    return [
        NumberMention(
            text=m.group(0),
            value=float(NUMBER_WORDS[m.group(0).lower()]),
            start=m.start(),
            end=m.end(),
        )
        for m in _COUNT_WORD.finditer(sentence)
    ]


#: an order of magnitude holds within this factor either way ("roughly 1e-5": from 1e-5/√10 to
#: 1e-5·√10, the values that round to 1e-5 on a log scale)
MAGNITUDE_FACTOR = math.sqrt(10)
_POWER_OF_TEN = re.compile(
    r"^(?:1(?:\.0+)?\s?(?:[eE][-+\u2212]?\d+|[x\u00d7*]\s?10(?:\^\{?[-+\u2212]?\d+\}?|"
    + _SUP_EXP
    + r"))|10(?:\^\{?[-+\u2212]?\d+\}?|\^\([-+\u2212]?\d+\)|"
    + _SUP_EXP
    + r"))$"
)
_APPROX_BEFORE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.|some|order\s+of)|~|\u223c|\u2248)"
    r"\s*$",
    re.IGNORECASE,
)


#: a factor written as a count of orders of magnitude ("two orders of magnitude faster",
#: "3 orders of magnitude fewer"): the count, and the words that make it a power of ten
_ORDERS_OF_MAGNITUDE = re.compile(
    r"(?<![\w.])(?P<n>\d+|" + "|".join(w for w in NUMBER_WORDS if w != "both") + r")"
    r"(?=\s+orders?\s+of\s+magnitude\b)",
    re.IGNORECASE,
)


def find_magnitudes(sentence: str) -> list[NumberMention]:
    """The orders of magnitude ``sentence`` states: a power of ten written as one ("1e-5",
    "10^2", "10²", "1 x 10^-4"; a mantissa other than 1 is a value, "3e-5") right after an
    approximation ("roughly", "about", "~", "≈", "on the order of"); and a factor written as a
    count of orders of magnitude ("two orders of magnitude faster": the mention is the count as
    written, "two", its value 10^2). Each holds from value / :data:`MAGNITUDE_FACTOR` to
    value * :data:`MAGNITUDE_FACTOR`."""
    powers = [
        m
        for m in find_numbers(sentence)
        if _POWER_OF_TEN.match(m.text.strip().lstrip("+"))
        and _APPROX_BEFORE.search(sentence[max(0, m.start - 24) : m.start])
    ]
    counted = []
    for m in _ORDERS_OF_MAGNITUDE.finditer(sentence):
        n = m.group("n")
        count = NUMBER_WORDS[n.lower()] if n.lower() in NUMBER_WORDS else int(n)
        counted.append(NumberMention(text=n, value=10.0**count, start=m.start(), end=m.end()))
    return sorted([*powers, *counted], key=lambda m: m.start)


def magnitude_range(value: float) -> tuple[float, float]:
    """The values an order of magnitude ``value`` holds (see :func:`find_magnitudes`)."""
    return value / MAGNITUDE_FACTOR, value * MAGNITUDE_FACTOR


_SYMBOL = r"(?:(?<![A-Za-z0-9.])[A-Za-z](?:_\{?\w+\}?)?|[\u0391-\u03a9\u03b1-\u03c9])"
_OPERATOR = r"[-+\u2212*/\u00b7\u00d7]"
_FORMULA_BEFORE = re.compile(rf"(?:{_SYMBOL}|[)|\]])\s*{_OPERATOR}\s*\(?\s*$")
_FORMULA_AFTER = re.compile(
    rf"^\s*\)?\s*{_OPERATOR}\s*(?:\(|\||\\[A-Za-z]+|(?![aAI]\s){_SYMBOL}(?![A-Za-z]))"
)


def in_formula(sentence: str, start: int, end: int) -> bool:
    """Whether the number at ``sentence[start:end]`` is a term of a formula of symbols: an
    arithmetic operator joins it to a variable ("1 - M/|V|", "h(V)/(M+1)", "N-1", "lam/(1-lam)").
    Such a number states no value of its own. A sign, a range ("1.5-2.0"), a label
    ("ResNet-50"), a unit ("305 tokens/s") or a compound word ("a 5-point gain") is not a
    formula."""
    glued = end > start and not sentence[end - 1].isdigit()  # "305 tokens/s": a unit's slash
    return bool(
        _FORMULA_BEFORE.search(sentence[max(0, start - 16) : start])
        or (not glued and _FORMULA_AFTER.match(sentence[end : end + 16]))
    )


#: ordinals ("reaches third place") and fractions written as words ("a third of the cost")
ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
    "fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10,
}  # fmt: skip
_FRACTION_WORD = re.compile(
    r"\b(?P<n>a|an|one|two|three|four|nine)[\s-]+(?P<d>" + "|".join(_DENOMINATORS) + r")\b",
    re.IGNORECASE,
)
_ORDINAL_WORD = re.compile(r"\b(" + "|".join(ORDINAL_WORDS) + r")\b", re.IGNORECASE)
_NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "nine": 9}


def find_number_words(sentence: str) -> list[NumberMention]:
    """Every number ``sentence`` writes as a word: counts (:func:`find_count_words`, "zero"
    too), ordinals ("third": 3) and fractions ("a third": 1/3, "two thirds": 2/3; the ordinal
    inside a fraction is the fraction's), in order. Only a number a drafter copied as a word is
    read so: a claim's words are not its reported values otherwise."""
    found = [
        NumberMention(
            text=m.group(0),
            value=_NUMERATORS[m.group("n").lower()] / _DENOMINATORS[m.group("d").lower()],
            start=m.start(),
            end=m.end(),
        )
        for m in _FRACTION_WORD.finditer(sentence)
    ]
    taken = [(m.start, m.end) for m in found]
    words = [
        *find_count_words(sentence),
        *(NumberMention(text=m.group(0), value=0.0, start=m.start(), end=m.end())
          for m in re.finditer(r"\bzero\b", sentence, re.IGNORECASE)),
        *(NumberMention(text=m.group(0), value=float(ORDINAL_WORDS[m.group(0).lower()]),
                        start=m.start(), end=m.end())
          for m in _ORDINAL_WORD.finditer(sentence)),
    ]  # fmt: skip
    found += [m for m in words if not any(a <= m.start < b for a, b in taken)]
    return sorted(found, key=lambda m: m.start)


def _metric_near(sentence: str, start: int, end: int, reach: int = 60) -> str:
    lowered = sentence.lower()
    best, best_distance = "", 10**9
    for metric in _METRICS:
        for match in re.finditer(rf"(?<![\w-]){re.escape(metric)}(?![\w-])", lowered):
            distance = min(abs(match.start() - end), abs(start - match.end()))
            if distance < best_distance:
                best, best_distance = metric, distance
    return best if best_distance <= reach else ""


def _dataset(sentence: str) -> str:
    for match in _DATASET.finditer(sentence):
        word = match.group(0)
        if (
            word.upper() not in _NOT_DATASETS
            and not _YEAR.match(word)
            and not _HARDWARE.fullmatch(word)
        ):
            return word
    return ""


def dataset_of(sentence: str) -> str:
    """The first dataset-like name of ``sentence`` ("GSM8K", "CIFAR-10"), or ""."""
    return _dataset(sentence)


def parse_values(sentence: str) -> list[ReportedValue]:
    """The numbers ``sentence`` reports, with unit, nearest metric and dataset when clear."""
    dataset = _dataset(sentence)
    values: list[ReportedValue] = []
    baselines: dict[int, float] = {}
    for match in _FROM_TO.finditer(sentence):
        baselines[match.start("b")] = _number(match.group("a"))
        baselines[match.start("a")] = float("nan")  # the "from" number is a baseline, not a value
    inside = _expression_spans(sentence)  # "Θ(1/k^2)" reports no value 1 nor 2
    for match in _VALUE.finditer(sentence):
        if any(a <= match.start("num") < b for a, b in inside):
            continue
        raw, unit = match.group("num"), (match.group("unit") or "")
        baseline = baselines.get(match.start("num"))
        if baseline is not None and baseline != baseline:  # NaN marker: skip "from X"
            continue
        if not unit and _YEAR.match(raw):
            continue  # a year, not a result
        if unit.upper() in {"K", "M", "B", "T"}:
            continue  # sizes ("a 125M student") are scale, not results
        # a number without a unit must sit right next to its metric ("88.1 average accuracy")
        reach = 60 if unit or baseline is not None else 20
        metric = _metric_near(sentence, match.start(), match.end(), reach)
        if not metric and not unit:
            continue  # a bare count ("50 trajectories") is not a reported result
        values.append(
            ReportedValue(
                metric=metric,
                value=_number(raw),
                text=match.group(0).strip(),
                unit=unit.lower().replace("\u00d7", "x"),
                baseline=baseline,
                dataset=dataset,
            )
        )
    return values


_MODEL_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)\s?([MBK])(?:-|\s)?(?:parameters?|params?)?\b")
_STEPS = re.compile(
    r"\b((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[KkM]?)[- ](steps?|epochs?|iterations?)\b"
)
_DATA = re.compile(
    rf"(?<![\w.])({_POW10}|(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?(?:[eE]\d+)?\s?[KMBT]?)"
    r"\s(?:random\s|independent\s|Monte[ -]Carlo\s)?(tokens|images|examples|samples|"
    r"sentences|documents|episodes|trajectories|voters|nodes|graphs|draws|trials|simulations|"
    r"rollouts)\b",
    re.IGNORECASE,
)
_HARDWARE = re.compile(
    r"\b(?:\d+\s?(?:x|\u00d7)\s?)?(?:NVIDIA\s)?(?:A100|H100|H200|V100|A10G?|L4|T4|RTX\s?\d{4}|"
    r"TPU\s?v\d\w*|MI\d{3}X?)\b(?:\s?GPUs?)?",
)
_MODEL_NAME = re.compile(r"\b[A-Za-z]+-?[A-Z]?/?\d+(?:\.\d+)?[MB]\b")


def parse_scale(*texts: str) -> Scale:
    """The first model size, data size, steps and hardware mentioned in ``texts``, in order."""
    scale = Scale()
    for text in texts:
        if not scale.model_size:
            match = _MODEL_SIZE.search(text)
            if match and match.group(2) in "MB":
                scale.model_size = f"{match.group(1)}{match.group(2)}"
        if not scale.steps and (match := _STEPS.search(text)):
            scale.steps = f"{match.group(1)} {match.group(2)}"
        if not scale.data_size and (match := _DATA.search(text)):
            scale.data_size = f"{match.group(1)} {match.group(2)}"
        if not scale.hardware and (match := _HARDWARE.search(text)):
            scale.hardware = match.group(0).strip()
    return scale
