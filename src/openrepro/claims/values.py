"""Reported values and scale, parsed from a claim's quotes by code (the LLM only adds to this).

Deliberately conservative: a value is recorded only with the number exactly as the paper wrote
it, the unit next to it, and the nearest metric word; anything unclear stays unparsed rather
than guessed. The judge later compares a logbook's measured values and scale with these.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

__all__ = [
    "NumberMention",
    "ReportedValue",
    "Scale",
    "find_numbers",
    "parse_number",
    "parse_scale",
    "parse_values",
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
    r"x\b|-?fold\b|pp\b|points?\b|ms\b|s\b|seconds?\b|minutes?\b|hours?\b|days?\b|"
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


# A number with an optional exponent (1.01e4, 5e7, 10^5, 10^{-3}, 2 x 10^5) and unit.
_EXP = r"(?:[eE][-+]?\d+|\s?[x\u00d7*]\s?10\^\{?[-+\u2212]?\d+\}?)"
_POW10 = r"10\^\{?[-+\u2212]?\d+\}?"
_MENTION = re.compile(
    rf"(?:(?<![\w.\-/^])|(?<=\d-)|(?<=\d\u2013))(?P<num>{_POW10}|(?:{_NUM}|[-+\u2212]?\.\d+){_EXP}?)"
    rf"(?:\s?(?P<unit>{_UNIT}|k\b))?(?!,\d)(?![\w-]*-[A-Za-z])(?!\w)",
    re.IGNORECASE,
)


def parse_number(text: str) -> float:
    """The value of one number as written (``1,024``, ``\u22120.5``, ``1.01e4``, ``10^5``,
    ``2 x 10^5``); raises ValueError when ``text`` is not one number."""
    cleaned = text.strip().replace(",", "").replace("\u2212", "-").replace("{", "").replace("}", "")
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
    for match in _MENTION.finditer(sentence):
        raw, unit = match.group("num"), (match.group("unit") or "")
        try:
            value = parse_number(raw)
        except ValueError:
            continue
        unit = unit.replace("\u00d7", "x")
        if unit in {"k", "K"}:
            value *= 1000.0
        found.append(
            NumberMention(
                text=match.group(0).strip(),
                value=value,
                unit=unit.lower() if unit not in {"K", "M", "B", "T"} else unit,
                start=match.start(),
                end=match.end(),
            )
        )
    return found


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
    for match in _VALUE.finditer(sentence):
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
    r"\b((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?[KMBT]?)\s(tokens|images|examples|samples|"
    r"sentences|documents|episodes|trajectories|voters|nodes|graphs)\b",
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
