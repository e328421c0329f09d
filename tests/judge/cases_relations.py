"""A labelled set of REAL Trackio logbooks for the relational judge: one paper (``p2``) whose
claims carry checks covering every relation, and participants whose logbooks hold, per claim,
evidence that verifies it, falsifies it, is too noisy either way, sits at the edge of a bound,
goes the wrong way, is in the wrong unit, comes from a reduced-scale run, or has a single seed.

Each participant runs the trackio CLI once: one recorded run cell whose script logs every Trackio
run of the case (a seed, or a point of a sweep: ``claims/p2/<claim>/<sweep metric>`` is the x of
that run). The runs of all participants go in parallel (the helpers of ``cases.py``); the pulls
and submissions one after the other. A label is one (participant, claim) pair.

Gold labels follow the rules documented in :mod:`openrepro.evidence.relations` as a careful human
reads them; each logged claim says why (``why``) and which rule a human expects to decide it.
The checks are set as an organizer would (``set_check``); :data:`DRAFTED` lists the claims whose
quote the rules' drafter turns into a check of the same relation (the test verifies it).

Statistics a reader may redo: a 95 % Student t interval over 3 seeds is mean +- 4.30 sem (2 df);
Welch's interval over 3 + 3 seeds has about 4 df (t = 2.78).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from cases import _call  # the trackio CLI in a case's workspace, as cases.py runs it

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import (
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    Order,
    Quantity,
    Rate,
    Relation,
    Tolerance,
    Trend,
)
from openrepro.claims.service import set_check
from openrepro.evidence.records import Flag, Verdict
from openrepro.judge.evaluate import Label
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

__all__ = [
    "ABSTRACT",
    "CASES",
    "CLAIMS",
    "DRAFTED",
    "PAPER",
    "Logged",
    "Participant",
    "build_relations_set",
    "labels_of",
]

PAPER = "p2"
EXACT = Tolerance(rel=0.0)  # an explicit bound: no tolerance (as the drafter writes it)


def _q(name: str, unit: str = "", sweep: str = "") -> Quantity:
    return Quantity(name=name, unit=unit, sweep=sweep)


def _bound(q: Quantity, op: Comparator, value: float, text: str, sweep: str = "") -> Check:
    constant = Constant(value=value, text=text)
    return Check(relation=Relation.bound, quantities=[q], subject=q.name, comparator=op,
                 constant=constant, tolerance=EXACT, sweep=sweep)  # fmt: skip


# (key, claim text, quote (verbatim in the abstract), check)
CLAIMS: tuple[tuple[str, str, str, Check], ...] = (
    ("C1", "Reaches 88.1% GLUE accuracy.",
     "With a 350M-parameter backbone, the method reaches 88.1% accuracy on GLUE",
     Check(relation=Relation.equal, quantities=[_q("accuracy", "%")], subject="accuracy",
           constant=Constant(value=88.1, text="88.1%"), direction=Direction.higher)),
    ("C2", "At least 90% accuracy on CIFAR-10.", "its accuracy on CIFAR-10 is at least 90%",
     _bound(_q("accuracy", "%"), Comparator.ge, 90, "90%")),
    ("C3", "Validation loss at most 0.75.", "the validation loss is at most 0.75",
     _bound(_q("loss"), Comparator.le, 0.75, "0.75")),
    ("C4", "Error rate below 5%.", "the error rate stays below 5%",
     _bound(_q("error", "%"), Comparator.lt, 5, "5%")),
    ("C5", "Throughput above 1000 tokens/s.", "throughput exceeds 1000 tokens per second",
     _bound(_q("throughput", "tokens/s"), Comparator.gt, 1000, "1000")),
    ("C6", "+2.3 BLEU over LoRA.", "BLEU improves by 2.3 points over LoRA",
     Check(relation=Relation.difference, quantities=[_q("bleu"), _q("lora_bleu")],
           subject="bleu", baselines=["lora_bleu"], comparator=Comparator.eq,
           constant=Constant(value=2.3, text="2.3"), direction=Direction.higher)),
    ("C7", "1.9x faster than the dense baseline.",
     "training is 1.9x faster than the dense baseline",
     Check(relation=Relation.ratio, quantities=[_q("speed", "steps/s"), _q("dense_speed")],
           subject="speed", baselines=["dense_speed"], comparator=Comparator.eq,
           constant=Constant(value=1.9, text="1.9x"), direction=Direction.higher)),
    ("C8", "Outperforms LoRA and pruning on SQuAD.", "APT outperforms LoRA and pruning on SQuAD",
     Check(relation=Relation.ordering, quantities=[_q("f1"), _q("lora_f1"), _q("prune_f1")],
           subject="f1", baselines=["lora_f1", "prune_f1"], direction=Direction.higher)),
    ("C9", "Memory comparable to full fine-tuning.",
     "APT uses memory comparable to full fine-tuning",
     Check(relation=Relation.comparable, quantities=[_q("memory", "GB"), _q("full_memory")],
           subject="memory", baselines=["full_memory"], direction=Direction.lower)),
    ("C10", "Perplexity drops from 24.3 to 22.8.",
     "perplexity drops from 24.3 to 22.8 after distillation",
     Check(relation=Relation.change, quantities=[_q("distilled_ppl"), _q("teacher_ppl")],
           subject="distilled_ppl", baselines=["teacher_ppl"],
           constant=Constant(value=24.3, text="24.3"), upper=Constant(value=22.8, text="22.8"),
           direction=Direction.lower)),
    ("C11", "Accuracy increases with model size.", "accuracy increases with model size",
     Check(relation=Relation.trend, quantities=[_q("accuracy", "%", "model size")],
           subject="accuracy", trend=Trend.increasing, sweep="model size")),
    ("C12", "Recall grows logarithmically with the documents.",
     "recall grows logarithmically with the number of documents",
     Check(relation=Relation.growth, quantities=[_q("recall", "", "documents")],
           subject="recall", law=GrowthLaw.logarithmic, sweep="documents")),
    ("C13", "Latency grows linearly with sequence length.",
     "latency grows linearly with sequence length",
     Check(relation=Relation.growth, quantities=[_q("latency", "ms", "sequence length")],
           subject="latency", law=GrowthLaw.linear, sweep="sequence length")),
    ("C14", "Solved tasks grow as compute^0.5.",
     "the number of solved tasks grows as a power law of compute with exponent 0.5",
     Check(relation=Relation.growth, quantities=[_q("solved", "", "compute")], subject="solved",
           law=GrowthLaw.power, constant=Constant(value=0.5, text="0.5"),
           tolerance=Tolerance(rel=0.1), sweep="compute")),
    ("C15", "At least 80% accuracy for batch sizes 8, 16, 32.",
     "for batch sizes 8, 16 and 32, accuracy is at least 80%",
     Check(relation=Relation.for_all, sweep="batch size",
           inner=_bound(_q("accuracy", "%", "batch size"), Comparator.ge, 80, "80%",
                        "batch size"))),
    ("C16", "Recall@k above 0.6 for every k.", "for every k, recall@k is above 0.6",
     Check(relation=Relation.for_all, sweep="k", unbounded=True,
           inner=_bound(_q("recall", "", "k"), Comparator.gt, 0.6, "0.6", "k"))),
    ("C17", "Some learning rate makes the loss exceed 10.",
     "some learning rate makes the loss exceed 10",
     Check(relation=Relation.exists, sweep="learning rate",
           inner=_bound(_q("loss", "", "learning rate"), Comparator.gt, 10, "10",
                        "learning rate"))),
    ("C18", "91% on MNLI and at least 2x faster than BERT.",
     "APT reaches 91% accuracy on MNLI while being at least 2x faster than BERT",
     Check(relation=Relation.all_of, parts=[
         Check(relation=Relation.equal, quantities=[_q("accuracy", "%")], subject="accuracy",
               constant=Constant(value=91, text="91%")),
         Check(relation=Relation.ratio, quantities=[_q("speed"), _q("bert_speed")],
               subject="speed", baselines=["bert_speed"], comparator=Comparator.ge,
               constant=Constant(value=2, text="2x"), tolerance=EXACT),
     ])),
    ("C19", "The optimality gap decays as O(1/T).",
     "the optimality gap decays as O(1/T) in the number of iterations T",
     Check(relation=Relation.rate, quantities=[_q("gap", "", "T")], subject="gap", sweep="T",
           rate=Rate(order=Order.O, symbol="T",
                     exponent=Constant(value=-1, text="O(1/T)")))),
    ("C20", "The two formulations define the same distribution.",
     "the two formulations define the same distribution",
     Check(relation=Relation.identity, quantities=[_q("max_error")], subject="max_error")),
    ("C21", "Reachable states grow exponentially in the horizon.",
     "the number of reachable states grows exponentially in the horizon",
     Check(relation=Relation.growth, quantities=[_q("states", "", "horizon")], subject="states",
           law=GrowthLaw.exponential, sweep="horizon")),
    ("C22", "At least 80% success in 4 of 5 tasks.", "success is at least 80% in 4 of 5 tasks",
     Check(relation=Relation.for_all, sweep="task", count=Constant(value=5, text="5"),
           at_least=Constant(value=4, text="4"),
           inner=_bound(_q("success", "%", "task"), Comparator.ge, 80, "80%", "task"))),
)  # fmt: skip

ABSTRACT = "; ".join(quote for _, _, quote, _ in CLAIMS) + "."

#: claims whose quote the rules' drafter turns into a check of the relation set here; for the
#: others it drafts none (C3 "at most", C4 "stays", C5 "per second" read as vague) or another
#: relation (C6 ordering, C11 ordering, C14 trend, C15 and C17 a bound, C18 only its ratio)
DRAFTED: tuple[str, ...] = ("C1", "C2", "C7", "C8", "C9", "C10", "C12", "C13", "C16")

Runs = tuple[dict[str, float], ...]  # one dict per Trackio run: quantity (or sweep metric) -> y


def seeds(**columns: Sequence[float]) -> Runs:
    """One Trackio run per seed, each logging the i-th value of every column that has one."""
    rows = zip_longest(*columns.values())
    return tuple({k: v for k, v in zip(columns, row, strict=True) if v is not None} for row in rows)


def sweep(x: str, q: str, table: dict[float, Sequence[float]]) -> Runs:
    """One Trackio run per (x, seed): ``x`` is the sweep metric, ``q`` the quantity."""
    return tuple({x: xv, q: y} for xv, ys in table.items() for y in ys)


@dataclass(frozen=True)
class Logged:
    """What a participant logs for one claim, the gold verdict and why."""

    claim: str  # "C1"
    gold: Verdict
    runs: Runs
    rule: str  # the rule a careful human expects to decide it ("K:S1", "R4", ...)
    why: str
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class Participant:
    """One logbook: one recorded run logging several claims; ``parameters`` is the model size
    the runs log (``claims/p2/<claim>/scale/parameters``), against the paper's 350M."""

    name: str
    logged: tuple[Logged, ...]
    parameters: float | None = None


_LOG10 = {1.0: 0.0, 2.0: 0.693, 4.0: 1.386, 8.0: 2.079, 16.0: 2.773, 32.0: 3.466, 64.0: 4.159}
_JITTER = (0.004, -0.003, 0.002, -0.004, 0.003, -0.002, 0.001)


def _law(f: dict[float, float]) -> dict[float, Sequence[float]]:
    """One seed per x with a small deterministic jitter (exact fits are degenerate)."""
    return {x: (y + _JITTER[i % len(_JITTER)],) for i, (x, y) in enumerate(f.items())}


LOG_RECALL = _law({x: 0.2 + 0.1 * lx for x, lx in _LOG10.items()})  # y = 0.2 + 0.1 ln x
LINEAR_RECALL = _law({x: 0.2 + 0.01 * x for x in _LOG10})  # y = 0.2 + 0.01 x
LENGTHS = (128.0, 256.0, 384.0, 512.0, 640.0, 768.0, 896.0, 1024.0)
LINEAR_LATENCY = _law({x: 5 + 0.02 * x for x in LENGTHS})
FALLING_LATENCY = _law({x: 30 - 0.02 * x for x in LENGTHS})
COMPUTE = (1.0, 4.0, 16.0, 64.0, 256.0)
ROOT_SOLVED = {x: (3 * x**0.5 * 1.01, 3 * x**0.5 * 0.99) for x in COMPUTE}  # exponent 0.5
LINEAR_SOLVED = {x: (3 * x * 1.01, 3 * x * 0.99) for x in COMPUTE}  # exponent 1
SIZES = (10.0, 20.0, 40.0, 80.0, 160.0)
RISING = {x: (70 + 3 * i, 70.4 + 3 * i) for i, x in enumerate(SIZES)}
ITERATIONS = (10.0, 20.0, 40.0, 80.0, 160.0, 320.0)
GAP_1_T = {x: (3 / x * 1.01, 3 / x * 0.99) for x in ITERATIONS}  # exponent -1
GAP_1_T2 = {x: (5 / x**2 * 1.01, 5 / x**2 * 0.99) for x in ITERATIONS}  # exponent -2: faster
GAP_1_SQRT = {x: (2 / x**0.5 * 1.01, 2 / x**0.5 * 0.99) for x in ITERATIONS}  # -0.5: slower
HORIZONS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
EXP_STATES = _law({h: 3 * 2.0**h for h in HORIZONS})  # 6 points, strictly increasing
SQUARE_STATES = _law({h: 3 * h**2 for h in HORIZONS})  # a power law, not exponential


def _tasks(scores: Sequence[float]) -> dict[float, Sequence[float]]:
    return {float(i + 1): (v, v + 0.2) for i, v in enumerate(scores)}


FALLING = {x: (85 - 3 * i, 85.4 - 3 * i) for i, x in enumerate(SIZES)}


# -- the participants ------------------------------------------------------------------------

PASS = Participant("pass", (
    Logged("C1", "verified", seeds(accuracy=(88.0, 88.3, 87.9)), "K:S1",
           "mean 88.07, interval [87.55, 88.58] inside 88.1 +- 4.4 (5%)"),
    Logged("C2", "verified", seeds(accuracy=(95.1, 95.3, 94.9)), "K:S1",
           "interval [94.6, 95.6] entirely >= 90 (a bound: 95 satisfies 'at least 90')"),
    Logged("C3", "verified", seeds(loss=(0.61, 0.63, 0.62)), "K:S1", "[0.595, 0.645] <= 0.75"),
    Logged("C4", "verified", seeds(error=(3.1, 3.3, 3.0)), "K:S1", "[2.75, 3.52] < 5"),
    Logged("C5", "verified", seeds(throughput=(1250, 1262, 1241)), "K:S1", "[1225, 1277] > 1000"),
    Logged("C6", "verified", seeds(bleu=(30.30, 30.31, 30.29), lora_bleu=(28.00, 28.01, 27.99)),
           "K:S1", "difference 2.30 +- 0.02 inside 2.3 +- 0.115"),
    Logged("C7", "verified", seeds(speed=(190.2, 190.5, 189.9), dense_speed=(100.1, 100.0, 99.9)),
           "K:S1", "ratio 1.90 (Welch on logs) inside 1.9 +- 0.095"),
    Logged("C8", "verified", seeds(f1=(91.2, 91.4, 91.3), lora_f1=(88.0, 88.2, 87.9),
                                   prune_f1=(85.1, 85.3, 85.0)),
           "K:A2", "f1 above LoRA by ~3.3 and pruning by ~6.2, both intervals > 0"),
    Logged("C9", "verified", seeds(memory=(20.1, 20.2, 20.0), full_memory=(20.3, 20.2, 20.4)),
           "K:S1", "difference -0.2 +- 0.2 within +- 1.0 (5% of 20.3)"),
    Logged("C10", "verified", seeds(distilled_ppl=(22.7, 22.9, 22.8),
                                    teacher_ppl=(24.3, 24.2, 24.4)),
           "K:A2", "after 22.8 = 22.8 within 5%, and after < before"),
    Logged("C11", "verified", sweep("model_size", "accuracy", RISING), "K:S1",
           "slope 0.073 per M over 5 sizes, 2 seeds each, interval [0.050, 0.096] > 0"),
    Logged("C12", "verified", sweep("documents", "recall", LOG_RECALL), "K:G1",
           "recall = 0.2 + 0.1 ln x: the logarithmic law beats linear/quadratic by >= 2 AICc"),
    Logged("C13", "verified", sweep("sequence_length", "latency", LINEAR_LATENCY), "K:G1",
           "latency = 5 + 0.02 x: the linear law fits best by >= 2 AICc"),
    Logged("C14", "verified", sweep("compute", "solved", ROOT_SOLVED), "K:S1",
           "log-log slope 0.50, interval inside 0.5 +- 0.05"),
    Logged("C15", "verified", sweep("batch_size", "accuracy",
                                    {8: (85.1, 85.3, 84.9), 16: (84.2, 84.5, 84.0),
                                     32: (83.1, 83.4, 83.0)}),
           "K:U3", "every batch size of the finite list: interval >= 80"),
    Logged("C16", "toy", sweep("k", "recall", {1: (0.70, 0.71), 5: (0.80, 0.81),
                                               10: (0.85, 0.86), 20: (0.90, 0.91)}),
           "K:U2", "holds at k = 1, 5, 10, 20, but 'every k' is open-ended: a finite sweep "
           "shows a toy version only", ("finite_horizon",)),
    Logged("C17", "verified", sweep("learning_rate", "loss",
                                    {1e-4: (2.1, 2.2), 1e-3: (1.9, 2.0), 1e-2: (3.5, 3.6),
                                     1e-1: (25.1, 24.8)}),
           "K:X1", "at lr 0.1 the loss is ~25 > 10: one instance verifies 'some learning rate'"),
    Logged("C18", "verified", seeds(accuracy=(90.8, 91.2, 91.0), speed=(250, 252, 248),
                                    bert_speed=(100, 101, 99)),
           "K:A2", "91.0 = 91 within 5%, and speed ratio 2.5 >= 2"),
    Logged("C19", "verified", sweep("t", "gap", GAP_1_T), "K:O1",
           "gap = 3/T: log-log exponent -1.00, at most -1 + 0.05"),
    Logged("C20", "verified", seeds(max_error=(1e-15, 3e-16, 2e-15)), "K:I1",
           "max error 2e-15 <= 1e-9: the same distribution up to rounding"),
    Logged("C21", "verified", sweep("horizon", "states", EXP_STATES), "K:G1",
           "states = 3 * 2^h over 6 horizons: log-linear beats the power law by >= 2 AICc"),
    Logged("C22", "verified", sweep("task", "success", _tasks((90, 85, 95, 50, 88))), "K:U6",
           "4 of the 5 tasks at or above 80% (task 4 at 50)"),
))  # fmt: skip

FAIL = Participant("fail", (
    Logged("C1", "falsified", seeds(accuracy=(71.2, 70.8, 71.5)), "K:S2", "71 is far below 83.7"),
    Logged("C2", "falsified", seeds(accuracy=(85.2, 85.0, 84.9)), "K:S2", "[84.7, 85.4] < 90"),
    Logged("C3", "falsified", seeds(loss=(0.91, 0.93, 0.92)), "K:S2", "[0.895, 0.945] > 0.75"),
    Logged("C4", "falsified", seeds(error=(7.1, 7.3, 7.0)), "K:S2", "[6.75, 7.52] >= 5"),
    Logged("C5", "falsified", seeds(throughput=(820, 810, 815)), "K:S2", "[803, 827] <= 1000"),
    Logged("C6", "falsified", seeds(bleu=(28.50, 28.51, 28.49), lora_bleu=(28.00, 28.01, 27.99)),
           "K:S2", "only +0.5 BLEU, far from 2.3 +- 0.115"),
    Logged("C7", "falsified", seeds(speed=(120.1, 120.3, 119.9), dense_speed=(100.1, 100.0, 99.9)),
           "K:S2", "ratio 1.2, far below 1.9 - 0.095"),
    Logged("C8", "falsified", seeds(f1=(84.0, 84.2, 83.9), lora_f1=(88.0, 88.2, 87.9),
                                    prune_f1=(85.1, 85.3, 85.0)),
           "K:A1", "wrong direction: f1 is below LoRA's (and pruning's)"),
    Logged("C9", "falsified", seeds(memory=(30.1, 30.2, 30.0), full_memory=(20.3, 20.2, 20.4)),
           "K:S2", "10 GB more: far outside +- 1.0"),
    Logged("C10", "falsified", seeds(distilled_ppl=(26.0, 26.2, 25.9),
                                     teacher_ppl=(24.3, 24.2, 24.4)),
           "K:A1", "wrong direction: perplexity rises after distillation"),
    Logged("C11", "falsified", sweep("model_size", "accuracy", FALLING), "K:S2",
           "wrong direction: accuracy falls with model size"),
    Logged("C12", "falsified", sweep("documents", "recall", LINEAR_RECALL), "K:G2",
           "recall = 0.2 + 0.01 x is linear: the linear law beats the logarithmic by >= 2 AICc"),
    Logged("C13", "falsified", sweep("sequence_length", "latency", FALLING_LATENCY), "K:G2",
           "wrong direction: latency falls linearly; 'grows' is not a negative slope"),
    Logged("C14", "falsified", sweep("compute", "solved", LINEAR_SOLVED), "K:S2",
           "log-log slope 1.0: the exponent is 1, not 0.5 +- 0.05"),
    Logged("C15", "falsified", sweep("batch_size", "accuracy",
                                     {8: (85.1, 85.3, 84.9), 16: (84.2, 84.5, 84.0),
                                      32: (70.1, 70.4, 70.0)}),
           "K:U1", "a counterexample: at batch size 32 accuracy is 70 < 80"),
    Logged("C16", "falsified", sweep("k", "recall", {1: (0.40, 0.41), 5: (0.80, 0.81),
                                                     10: (0.85, 0.86), 20: (0.90, 0.91)}),
           "K:U1", "a counterexample at k = 1 (0.40 <= 0.6) refutes 'for every k'"),
    Logged("C19", "falsified", sweep("t", "gap", GAP_1_SQRT), "K:O2",
           "gap = 2/sqrt(T): exponent -0.5, confidently slower than 1/T"),
    Logged("C20", "falsified", seeds(max_error=(1.1e-3, 1.2e-3, 0.9e-3)), "K:I2",
           "max error ~1e-3, every seed far above 1e-9"),
    Logged("C21", "falsified", sweep("horizon", "states", SQUARE_STATES), "K:G2",
           "states = 3 h^2: the power law beats the exponential by >= 2 AICc"),
    Logged("C22", "falsified", sweep("task", "success", _tasks((90, 60, 95, 50, 88))), "K:U7",
           "2 of 5 tasks below 80%: the claim allows 1"),
    Logged("C17", "inconclusive", sweep("learning_rate", "loss",
                                        {1e-4: (2.1, 2.2), 1e-3: (1.9, 2.0), 1e-2: (3.5, 3.6),
                                         1e-1: (4.1, 4.0)}),
           "K:X2", "no learning rate tried exceeds 10; a finite search cannot refute 'some'"),
    Logged("C18", "falsified", seeds(accuracy=(90.8, 91.2, 91.0), speed=(130, 132, 128),
                                     bert_speed=(100, 101, 99)),
           "K:A1", "accuracy holds but the speed ratio 1.3 < 2: one part is falsified"),
))  # fmt: skip

NOISY_HIGH = Participant("noisy-high", (
    Logged("C1", "inconclusive", seeds(accuracy=(80.0, 96.0, 88.0)), "K:S3",
           "mean 88.0 but the interval [68, 108] is wider than 88.1 +- 4.4"),
    Logged("C2", "inconclusive", seeds(accuracy=(80.0, 99.0, 94.0)), "K:S3",
           "mean 91 >= 90, but the interval [66, 116] straddles 90"),
    Logged("C3", "inconclusive", seeds(loss=(0.5, 0.95, 0.6)), "K:S3",
           "mean 0.68 <= 0.75, interval straddles 0.75"),
    Logged("C4", "inconclusive", seeds(error=(1.0, 8.0, 3.5)), "K:S3",
           "mean 4.2 < 5, interval straddles 5"),
    Logged("C5", "inconclusive", seeds(throughput=(800, 1400, 1100)), "K:S3",
           "mean 1100 > 1000, interval straddles 1000"),
    Logged("C6", "inconclusive", seeds(bleu=(29.0, 31.6, 30.3), lora_bleu=(28.0, 28.01, 27.99)),
           "K:S3", "difference 2.3 on average, but +- 3.2"),
    Logged("C7", "inconclusive", seeds(speed=(150, 230, 190), dense_speed=(100.1, 100.0, 99.9)),
           "K:S3", "ratio 1.87 on average, interval [1.1, 3.1]"),
    Logged("C8", "inconclusive", seeds(f1=(80.0, 99.0, 91.0), lora_f1=(88.0, 88.2, 87.9),
                                       prune_f1=(85.1, 85.3, 85.0)),
           "K:A4", "f1 90 on average above both, but neither difference is decided"),
    Logged("C9", "inconclusive", seeds(memory=(15.0, 25.0, 20.0), full_memory=(20.3, 20.2, 20.4)),
           "K:S3", "difference -0.3 +- 12: wider than +- 1.0"),
    Logged("C10", "inconclusive", seeds(distilled_ppl=(18.0, 27.0, 22.8),
                                        teacher_ppl=(24.3, 24.2, 24.4)),
           "K:A4", "after 22.6 on average, but neither the end value nor the drop is decided"),
    Logged("C11", "inconclusive", sweep("model_size", "accuracy",
                                        {10: (70.0, 80.0), 20: (78.0, 71.0), 40: (72.0, 79.0),
                                         80: (80.0, 72.0), 160: (74.0, 79.0)}),
           "K:S3", "seeds spread by ~8 points: the slope's interval straddles 0"),
    Logged("C14", "inconclusive", sweep("compute", "solved",
                                        {1: (2.0, 5.0), 4: (4.0, 9.0), 16: (8.0, 16.0),
                                         64: (15.0, 33.0), 256: (30.0, 70.0)}),
           "K:S3", "exponent ~0.5 but its interval is wider than 0.5 +- 0.05"),
    Logged("C15", "inconclusive", sweep("batch_size", "accuracy",
                                        {8: (85.1, 85.3, 84.9), 16: (84.2, 84.5, 84.0),
                                         32: (75.0, 90.0, 82.0)}),
           "K:U4", "holds at 8 and 16; at 32 the seeds (75, 90, 82) straddle 80"),
    Logged("C17", "inconclusive", sweep("learning_rate", "loss",
                                        {1e-4: (2.1, 2.2), 1e-3: (1.9, 2.0),
                                         1e-1: (4.0, 19.0)}),
           "K:X2", "at lr 0.1 the loss is 11.5 on average but straddles 10: no instance shown"),
    Logged("C18", "inconclusive", seeds(accuracy=(90.8, 91.2, 91.0), speed=(150, 350, 250),
                                        bert_speed=(100, 101, 99)),
           "K:A4", "accuracy holds, the speed ratio 2.4 on average straddles 2"),
))  # fmt: skip

NOISY_LOW = Participant("noisy-low", (
    Logged("C1", "inconclusive", seeds(accuracy=(75.0, 89.0, 82.0)), "K:S3",
           "mean 82 is outside 88.1 +- 4.4, but the interval [64.6, 99.4] reaches it"),
    Logged("C2", "inconclusive", seeds(accuracy=(82.0, 96.0, 89.0)), "K:S3",
           "mean 89 < 90, but the interval straddles 90"),
    Logged("C3", "inconclusive", seeds(loss=(0.6, 1.0, 0.8)), "K:S3",
           "mean 0.8 > 0.75, interval straddles 0.75"),
    Logged("C4", "inconclusive", seeds(error=(2.0, 9.0, 5.5)), "K:S3",
           "mean 5.5 >= 5, interval straddles 5"),
    Logged("C5", "inconclusive", seeds(throughput=(700, 1250, 950)), "K:S3",
           "mean 967 <= 1000, interval straddles 1000"),
    Logged("C6", "inconclusive", seeds(bleu=(28.0, 31.0, 29.5), lora_bleu=(28.0, 28.01, 27.99)),
           "K:S3", "difference 1.5 on average, interval [-2.2, 5.2]"),
    Logged("C7", "inconclusive", seeds(speed=(110, 190, 150), dense_speed=(100.1, 100.0, 99.9)),
           "K:S3", "ratio 1.47 on average, interval reaches 1.9"),
    Logged("C9", "inconclusive", seeds(memory=(16.0, 30.0, 23.0), full_memory=(20.3, 20.2, 20.4)),
           "K:S3", "difference +2.7 (outside +- 1.0) but +- 17"),
))  # fmt: skip

SINGLE = Participant("single", (
    Logged("C1", "verified", seeds(accuracy=(88.4,)), "K:P1", "one seed, 88.4 within 4.4"),
    Logged("C2", "verified", seeds(accuracy=(90.0,)), "K:P1",
           "edge of the bound: exactly 90 satisfies 'at least 90'", ),
    Logged("C4", "falsified", seeds(error=(5.0,)), "K:P2",
           "edge of a strict bound: exactly 5 is not 'below 5'"),
    Logged("C5", "falsified", seeds(throughput=(1000,)), "K:P2",
           "edge of a strict bound: exactly 1000 does not 'exceed 1000'"),
    Logged("C6", "verified", seeds(bleu=(30.35,), lora_bleu=(28.0,)), "K:P1",
           "one seed each: +2.35 within 2.3 +- 0.115"),
    Logged("C7", "falsified", seeds(speed=(150.0,), dense_speed=(100.0,)), "K:P2",
           "one seed each: ratio 1.5, outside 1.9 +- 0.095"),
    Logged("C8", "verified", seeds(f1=(91.0,), lora_f1=(88.0,), prune_f1=(85.0,)), "K:A2",
           "one seed each, higher than both"),
    Logged("C9", "falsified", seeds(memory=(25.0,), full_memory=(20.0,)), "K:P2",
           "one seed each: +5 GB, outside +- 1.0"),
    Logged("C10", "verified", seeds(distilled_ppl=(22.9,), teacher_ppl=(24.3,)), "K:A2",
           "one seed each: 22.9 within 5% of 22.8, and lower than before"),
    Logged("C11", "verified", sweep("model_size", "accuracy",
                                    {x: (70.0 + 3 * i,) for i, x in enumerate(SIZES)}),
           "K:S1", "one seed per size: still a regression over 5 points, slope > 0"),
    Logged("C15", "verified", sweep("batch_size", "accuracy", {8: (85.0,), 16: (84.0,),
                                                               32: (81.0,)}),
           "K:U3", "one seed at each batch size, each >= 80"),
    Logged("C18", "falsified", seeds(accuracy=(80.0,), speed=(250.0,), bert_speed=(100.0,)),
           "K:A1", "one seed: 80 is outside 91 +- 4.55"),
))  # fmt: skip

EDGE = Participant("edge", (
    Logged("C1", "verified", seeds(accuracy=(92.0, 92.1, 91.9)), "K:S1",
           "92.0 +- 0.25: inside the tolerance 88.1 +- 4.405 (up to 92.5)"),
    Logged("C2", "falsified", seeds(accuracy=(89.95, 89.96, 89.94)), "K:S2",
           "just below the explicit bound: [89.925, 89.975] < 90 (no tolerance)"),
    Logged("C3", "verified", seeds(loss=(0.745, 0.746, 0.744)), "K:S1",
           "just inside: [0.7425, 0.7475] <= 0.75"),
    Logged("C4", "falsified", seeds(error=(5.05, 5.06, 5.04)), "K:S2",
           "just above a strict bound: [5.025, 5.075] >= 5"),
    Logged("C5", "verified", seeds(throughput=(1003, 1004, 1002)), "K:S1",
           "just above: [1000.5, 1005.5] > 1000"),
    Logged("C9", "inconclusive", seeds(memory=(21.2, 21.3, 21.1), full_memory=(20.3, 20.2, 20.4)),
           "K:S3", "+0.9 +- 0.2 straddles the +1.0 edge of 'comparable'"),
    Logged("C19", "verified", sweep("t", "gap", GAP_1_T2), "K:O1",
           "gap = 5/T^2 decays faster than 1/T: 'O(1/T)' is an upper bound, so it holds"),
    Logged("C20", "inconclusive", seeds(max_error=(1e-15, 0.3, 2e-16)), "K:I3",
           "one seed far above 1e-9, two far below: not confidently either"),
    Logged("C22", "inconclusive", sweep("task", "success", _tasks((90, 85, 95))), "K:U5",
           "3 of the claim's 5 tasks measured, all hold: 4 of 5 needs one more"),
))  # fmt: skip

UNITS = Participant("units", (
    Logged("C1", "inconclusive", seeds(accuracy=(0.880, 0.883, 0.879)), "R4",
           "fractions against 88.1%: not compared", ("unit_mismatch",)),
    Logged("C2", "inconclusive", seeds(accuracy=(0.951, 0.953, 0.949)), "R4",
           "0.95 is 95% (would verify) but is in the wrong unit", ("unit_mismatch",)),
    Logged("C4", "inconclusive", seeds(error=(0.071, 0.073, 0.070)), "R4",
           "0.07 looks below 5 but is 7%: the wrong unit must not verify", ("unit_mismatch",)),
    Logged("C15", "inconclusive", sweep("batch_size", "accuracy",
                                        {8: (0.85, 0.86), 16: (0.84, 0.85), 32: (0.70, 0.71)}),
           "R4", "fractions against 80% at every batch size", ("unit_mismatch",)),
    Logged("C18", "inconclusive", seeds(accuracy=(0.908, 0.912, 0.910), speed=(250, 252, 248),
                                        bert_speed=(100, 101, 99)),
           "K:A4", "the accuracy part is a fraction against 91% (E3); the speed part holds",
           ("unit_mismatch",)),
))  # fmt: skip

TOY = Participant("toy", (
    Logged("C1", "toy", seeds(accuracy=(88.0, 88.3, 87.9)), "K:C1",
           "verified at 25M parameters, 1/14 of the paper's 350M", ("reduced_scale",)),
    Logged("C2", "toy", seeds(accuracy=(85.2, 85.0, 84.9)), "K:C1",
           "below 90 at reduced scale: not a falsification of the paper's claim",
           ("reduced_scale",)),
    Logged("C5", "inconclusive", seeds(throughput=(800, 1400, 1100)), "K:S3",
           "too noisy: reduced scale changes nothing"),
    Logged("C7", "toy", seeds(speed=(190.2, 190.5, 189.9), dense_speed=(100.1, 100.0, 99.9)),
           "K:C1", "the ratio holds at reduced scale", ("reduced_scale",)),
    Logged("C11", "toy", sweep("model_size", "accuracy", RISING), "K:C1",
           "the trend holds at reduced scale", ("reduced_scale",)),
    Logged("C15", "toy", sweep("batch_size", "accuracy",
                               {8: (85.1, 85.3, 84.9), 16: (84.2, 84.5, 84.0),
                                32: (70.1, 70.4, 70.0)}),
           "K:C1", "a counterexample at reduced scale only shows a toy version fails",
           ("reduced_scale",)),
    Logged("C17", "inconclusive", sweep("learning_rate", "loss",
                                        {1e-4: (2.1, 2.2), 1e-3: (1.9, 2.0), 1e-1: (4.1, 4.0)}),
           "K:X2", "no instance: inconclusive at any scale"),
), parameters=25e6)  # fmt: skip

REVERSED = Participant("reversed", (
    Logged("C6", "falsified", seeds(bleu=(28.00, 28.01, 27.99), lora_bleu=(30.30, 30.31, 30.29)),
           "K:S2", "wrong direction: LoRA is 2.3 BLEU better, the difference is -2.3"),
    Logged("C7", "falsified", seeds(speed=(100.1, 100.0, 99.9), dense_speed=(190.2, 190.5, 189.9)),
           "K:S2", "wrong direction: the baseline is 1.9x faster (ratio 0.53)"),
    Logged("C12", "inconclusive", sweep("documents", "recall", {1: (0.2,), 64: (0.62,)}), "K:E5",
           "two document counts cannot tell a logarithm from a line"),
    Logged("C13", "falsified", sweep("sequence_length", "latency",
                                     _law({x: 5 + 0.00002 * x**2 for x in LENGTHS})), "K:G2",
           "latency = 5 + 2e-5 x^2: the quadratic law fits better than the linear by >= 2 AICc"),
    Logged("C14", "inconclusive", sweep("compute", "solved", {1: (3.0,), 4: (6.0,)}), "K:E5",
           "two compute budgets: no exponent can be estimated"),
))  # fmt: skip

_NOISE = (0.03, -0.02, 0.025, -0.03, 0.02, -0.025)

NOISY_LAWS = Participant("noisy-laws", (
    Logged("C12", "inconclusive", sweep("documents", "recall",
                                        {x: (0.2 + 0.1 * math.log(x) + _NOISE[x - 1],)
                                         for x in range(1, 7)}),
           "K:G3", "1 to 6 documents with +-0.03 noise: the logarithmic law is only 1 AICc "
           "better than the linear one"),
    Logged("C13", "inconclusive", sweep("sequence_length", "latency",
                                        {128.0 * i: (5 + 2 * i + 40 * _NOISE[i - 1],)
                                         for i in range(1, 7)}),
           "K:G3", "lengths 128 to 768 with +-1.2 ms noise: linear beats quadratic by < 2 AICc"),
    Logged("C16", "inconclusive", sweep("k", "recall", {1: (0.45, 0.75), 5: (0.80, 0.81),
                                                        10: (0.85, 0.86)}),
           "K:U4", "at k = 1 the seeds (0.45, 0.75) straddle 0.6: neither holds nor fails"),
    Logged("C11", "inconclusive", sweep("model_size", "accuracy",
                                        {10: (76.0, 70.0), 20: (71.0, 77.0), 40: (75.0, 69.0),
                                         80: (70.0, 76.0), 160: (72.0, 69.0)}),
           "K:S3", "accuracy drifts down a little with seeds 6 points apart: slope undecided"),
    Logged("C10", "inconclusive", seeds(distilled_ppl=(21.0, 27.0, 24.0),
                                        teacher_ppl=(24.3, 24.2, 24.4)),
           "K:A4", "after 24.0 on average (above 22.8 + 1.14, no drop), but +- 7.5"),
    Logged("C3", "falsified", seeds(loss=(0.8,)), "K:P2", "one seed: 0.8 > 0.75"),
))  # fmt: skip

CASES: tuple[Participant, ...] = (PASS, FAIL, NOISY_HIGH, NOISY_LOW, NOISY_LAWS, SINGLE, EDGE,
                                  UNITS, TOY, REVERSED)  # fmt: skip

LOG_RUNS = """
import json, sys, trackio
for run in json.load(open(sys.argv[1])):
    trackio.init(project="repro-p2", name=run["name"])
    trackio.log(run["metrics"])
    trackio.finish()
print("logged", sys.argv[1])
"""


def _runs(participant: Participant) -> list[dict[str, object]]:
    """The Trackio runs of a participant: run i logs the i-th run of every claim it logs."""
    merged: list[dict[str, float]] = []
    for logged in participant.logged:
        prefix = f"claims/{PAPER}/{logged.claim}/"
        for i, run in enumerate(logged.runs):
            if i == len(merged):
                merged.append({})
            merged[i].update({prefix + k: float(v) for k, v in run.items()})
        if participant.parameters is not None:
            merged[0][prefix + "scale/parameters"] = participant.parameters
    return [{"name": f"r{i}", "metrics": m} for i, m in enumerate(merged)]


def ensure_relations_paper(ctx: ChallengeContext) -> None:
    """Import paper ``p2`` with its claims, each with the check an organizer sets."""
    record = PaperRecord(venue_id=PAPER, title="Relations", abstract=ABSTRACT)
    import_papers(ctx.store, ctx.challenge_id, [record], source="t")
    with ctx.store.session() as s:
        for key, text, quote, check in CLAIMS:
            view = add_claim(s, ctx.challenge_id, PAPER, text=text, kind="result",
                             quotes=[quote], editor="org", drafting="rules")  # fmt: skip
            assert view.id == f"{PAPER}/{key}", view.id
            set_check(s, ctx.challenge_id, view.id, check, editor="org",
                      reason="the check an organizer reads in the quote")  # fmt: skip


def _play(participant: Participant, ws: Path, page: str) -> None:
    trackio = str(Path(sys.executable).parent / "trackio")
    (ws / "log_runs.py").write_text(LOG_RUNS, encoding="utf-8")
    (ws / "runs.json").write_text(json.dumps(_runs(participant)), encoding="utf-8")
    _call(ws, trackio, "logbook", "run", "--page", page, "--", sys.executable, "log_runs.py",
          "runs.json")  # fmt: skip


def labels_of(cases: Sequence[Participant] = CASES) -> list[Label]:
    return [
        Label(logbook=f"{p.name}@{PAPER}", claim=f"{PAPER}/{x.claim}", gold=x.gold,
              kind="result", case=f"{p.name}/{x.claim}", note=x.why)
        for p in cases
        for x in p.logged
    ]  # fmt: skip


def build_relations_set(
    ctx: ChallengeContext, tmp_path: Path, cases: Sequence[Participant] = CASES
) -> list[Label]:
    """Make and submit every participant's logbook (see the module docstring); the labels."""
    ensure_relations_paper(ctx)
    pages = {p.name: pull_paper(ctx, PAPER, tmp_path / p.name).pages[f"{PAPER}/C1"] for p in cases}
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        for future in [pool.submit(_play, p, tmp_path / p.name, pages[p.name]) for p in cases]:
            future.result()
    for p in cases:
        submit_logbook(ctx, tmp_path / p.name, handle=p.name)
    return labels_of(cases)
