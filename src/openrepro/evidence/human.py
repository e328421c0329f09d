"""Deciding a ``human`` check from the answers of blinded reviewers.

Pure code, no store: :func:`evaluate_human` takes the claim's
:class:`~openrepro.claims.checks.records.Check` (relation ``human``, its
:class:`~openrepro.claims.checks.records.HumanJudgement`) and the answers of one review task
(:class:`HumanReviews`, read from the store by :mod:`openrepro.evidence.reviews`) and returns a
:class:`HumanEvaluation` with the verdict, the rule that decided it, the agreement figures and
the provenance level of the judgement.

**Who counts.** A reviewer's role in the task is ``self`` (the logbook's participant), ``team``
(a team-mate), ``organizer`` or ``invited``; the last two are *independent*. When at least
``min_reviewers`` independent reviewers pass the self-agreement bar, only independent reviewers
count and the judgement is ``reviewed``; otherwise every reviewer counts and the judgement is
``self-recorded`` (flag ``self_reviewed`` when a ``self`` or ``team`` answer is among them).

**Self-agreement** of a reviewer: the share of repeated items answered the same the second time
(the schedule repeats a share of the items, blinded sides drawn again). A reviewer below
``min_self_agreement``, or with no repeated item answered, is left out of the decision and named.

**Inter-rater agreement** on each counted reviewer's first answer per item: Cohen's kappa for
two reviewers, Krippendorff's alpha (nominal) for more (:mod:`openrepro.evidence.agreement`).

**Items.** An item is *positive* when most counted reviewers' first answers are the claimed one
(``usable``; for ``preference``, ``B``: the method's output preferred over the baseline's,
``same`` is not a preference); a tie between reviewers leaves the item out of ``n``. With ``k``
positive of ``n`` decided items, the exact (Clopper-Pearson) 95 % interval of the proportion
(``scipy.stats.binomtest(k, n).proportion_ci()``) is compared with the decision share ``s``
(:meth:`~openrepro.claims.checks.records.Check.human_share`):

| rule | condition | verdict | flag |
| --- | --- | --- | --- |
| H0 | no review task, or no answer | inconclusive | needs_human |
| H1 | fewer counted reviewers than ``min_reviewers`` | inconclusive | too_few_reviewers |
| H2 | fewer items judged (by counted reviewers) than ``min_items`` | inconclusive | too_few_items |
| H3 | several reviewers: kappa / alpha below ``min_agreement`` | inconclusive | low_agreement |
| H4 | the interval's lower end >= ``s`` | verified | |
| H5 | the interval's upper end < ``s`` | falsified | |
| H6 | the interval contains ``s`` (or every item is a tie) | inconclusive | too_noisy |

(H3 also when the agreement cannot be measured: no item judged by both of two reviewers.)

**Consistency flags** (raised, never used to drop an answer): ``inconsistent_repeats`` (a
counted reviewer answered a repeated item differently), ``too_fast`` (answers given less than
``min_seconds`` after the page showed the item: the server's time from sending the page to
receiving the answer, see :class:`~openrepro.store.tables_review.ReviewAnswerRow`),
``same_side`` (a reviewer who gave the same answer, as pressed, to every one of at least
:data:`SAME_SIDE_MIN` items: always ``left``, always ``right``, always ``usable``),
``low_self_agreement`` (a reviewer left out for it).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, Field

from openrepro.claims.checks.records import HUMAN_ANSWERS, Check, HumanScale, Relation
from openrepro.evidence.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from openrepro.evidence.records import Pointer
from openrepro.vocabulary import ProvenanceLevel

__all__ = [
    "CONFIDENCE",
    "INDEPENDENT_ROLES",
    "RULES",
    "SAME_SIDE_MIN",
    "HumanAnswer",
    "HumanEvaluation",
    "HumanReviews",
    "ReviewerFigures",
    "evaluate_human",
]

CONFIDENCE = 0.95
#: a reviewer is flagged ``same_side`` only after this many answers, all the same
SAME_SIDE_MIN = 8
ReviewerRole = Literal["self", "team", "organizer", "invited"]
INDEPENDENT_ROLES: frozenset[str] = frozenset({"organizer", "invited"})

RULES: dict[str, str] = {
    "H0": "no human review yet",
    "H1": "too few reviewers",
    "H2": "too few items",
    "H3": "reviewers disagree",
    "H4": "share judged as claimed is above the bar, with confidence",
    "H5": "share judged as claimed is below the bar, with confidence",
    "H6": "share undecided",
}


class HumanAnswer(BaseModel):
    """One answer of one reviewer to one slot of their schedule."""

    reviewer: str  # a stable name within the task (handle or pseudonym)
    role: ReviewerRole
    slot: int
    item: str
    answer: str  # unblinded: "A"/"B"/"same" or "usable"/"not usable"
    shown_answer: str = ""  # as pressed: "left"/"right"/...
    repeat: bool = False
    seconds: float | None = None  # page sent -> answer received (server clock)


class HumanReviews(BaseModel):
    """The answers of one review task for the claim in the logbook."""

    task: str
    items: int  # items in the task
    answers: list[HumanAnswer] = Field(default_factory=list)
    files: list[Pointer] = Field(default_factory=list)  # the reviewed files (recorded outputs)


class ReviewerFigures(BaseModel):
    reviewer: str
    role: ReviewerRole
    answers: int
    items: int  # distinct items answered (first answers)
    repeats: int  # repeated items answered twice
    self_agreement: float | None = None
    too_fast: int = 0  # answers under min_seconds
    median_seconds: float | None = None
    same_side: bool = False
    counted: bool = False
    why_not: str = ""  # why the reviewer is left out of the decision


class HumanEvaluation(BaseModel):
    """What :func:`evaluate_human` decided, and the figures behind it."""

    verdict: Literal["verified", "falsified", "inconclusive"]
    rule: str
    rule_name: str
    relation: Relation = Relation.human
    description: str = ""
    test: str = ""
    detail: str = ""
    task: str = ""
    level: ProvenanceLevel = "testimony"
    flags: list[str] = Field(default_factory=list)
    reviewers: list[ReviewerFigures] = Field(default_factory=list)
    #: share, k, n, low, high, p_value, kappa, alpha, percent, tied, min_* bars
    numbers: dict[str, float | int | str | None] = Field(default_factory=dict)
    check: Check | None = None


def _first(answers: list[HumanAnswer]) -> dict[str, str]:
    out: dict[str, str] = {}
    for a in sorted(answers, key=lambda a: a.slot):
        out.setdefault(a.item, a.answer)
    return out


def _figures(
    reviewer: str, own: list[HumanAnswer], min_seconds: float, pairs: bool
) -> ReviewerFigures:
    first = _first(own)
    later = [a for a in sorted(own, key=lambda a: a.slot) if a.repeat and a.item in first]
    same = [first[a.item] == a.answer for a in later]
    times = sorted(a.seconds for a in own if a.seconds is not None)
    pressed = {a.shown_answer or a.answer for a in own}
    return ReviewerFigures(
        reviewer=reviewer, role=own[0].role, answers=len(own), items=len(first),
        repeats=len(later), self_agreement=sum(same) / len(same) if same else None,
        too_fast=sum(t < min_seconds for t in times),
        median_seconds=times[len(times) // 2] if times else None,
        same_side=len(own) >= SAME_SIDE_MIN and len(pressed) == 1,
    )  # fmt: skip


def _agreement(firsts: dict[str, dict[str, str]]) -> dict[str, float | None]:
    names = sorted(firsts)
    out: dict[str, float | None] = {"kappa": None, "alpha": None, "percent": None}
    if len(names) < 2:
        return out
    if len(names) == 2:
        a, b = (firsts[n] for n in names)
        shared = [(a[i], b[i]) for i in sorted(set(a) & set(b))]
        out["kappa"], out["percent"] = cohen_kappa(shared), percent_agreement(shared)
    else:
        shared_pairs = [
            (firsts[x][i], firsts[y][i])
            for x, y in combinations(names, 2)
            for i in sorted(set(firsts[x]) & set(firsts[y]))
        ]
        out["percent"] = percent_agreement(shared_pairs)
    items = sorted({i for f in firsts.values() for i in f})
    labels: dict[str, list[str | None]] = {i: [firsts[n].get(i) for n in names] for i in items}
    out["alpha"] = krippendorff_alpha(labels)
    return out


def _undecided(base: HumanEvaluation, rule: str, flag: str, detail: str) -> HumanEvaluation:
    return base.model_copy(
        update={"verdict": "inconclusive", "rule": rule, "rule_name": RULES[rule],
                "flags": list(dict.fromkeys([*base.flags, flag])), "detail": detail}
    )  # fmt: skip


def evaluate_human(check: Check, reviews: HumanReviews | None) -> HumanEvaluation:
    """Decide the ``human`` check ``check`` from ``reviews`` (the module docstring's table)."""
    from scipy import stats

    judgement = check.judgement()
    share = check.human_share()
    claimed = HUMAN_ANSWERS[judgement.scale][0]
    base = HumanEvaluation(
        verdict="inconclusive", rule="H0", rule_name=RULES["H0"], description=check.describe(),
        check=check, task=reviews.task if reviews else "",
        numbers={"share": share, "min_items": judgement.min_items,
                 "min_reviewers": judgement.min_reviewers,
                 "min_self_agreement": judgement.min_self_agreement,
                 "min_agreement": judgement.min_agreement, "min_seconds": judgement.min_seconds},
    )  # fmt: skip
    if reviews is None or not reviews.answers:
        return _undecided(base, "H0", "needs_human", "no reviewer has answered a task yet")
    pairs = judgement.scale is HumanScale.preference
    by_reviewer: dict[str, list[HumanAnswer]] = {}
    for a in reviews.answers:
        by_reviewer.setdefault(a.reviewer, []).append(a)
    figures = {r: _figures(r, own, judgement.min_seconds, pairs) for r, own in by_reviewer.items()}
    for f in figures.values():
        if f.self_agreement is None:
            f.why_not = "no repeated item answered yet (self-agreement unmeasured)"
        elif f.self_agreement < judgement.min_self_agreement:
            f.why_not = (
                f"self-agreement {f.self_agreement:.2f} below {judgement.min_self_agreement:.2f}"
            )
    passing = [r for r, f in figures.items() if not f.why_not]
    independent = [r for r in passing if figures[r].role in INDEPENDENT_ROLES]
    counted = independent if len(independent) >= judgement.min_reviewers else passing
    level: ProvenanceLevel = (
        "reviewed"
        if counted and all(figures[r].role in INDEPENDENT_ROLES for r in counted)
        else "self-recorded"
    )
    flags: list[str] = []
    for r, f in figures.items():
        f.counted = r in counted
        if f.counted and f.self_agreement is not None and f.self_agreement < 1:
            flags.append("inconsistent_repeats")
        if f.too_fast:
            flags.append("too_fast")
        if f.same_side:
            flags.append("same_side")
        if f.why_not and f.self_agreement is not None:
            flags.append("low_self_agreement")
        if not f.why_not and r not in counted:
            f.why_not = "independent reviewers decide"
    if any(figures[r].role not in INDEPENDENT_ROLES for r in counted):
        flags.append("self_reviewed")
    base = base.model_copy(
        update={"flags": list(dict.fromkeys(flags)), "level": level,
                "reviewers": [figures[r] for r in sorted(figures)]}
    )  # fmt: skip
    base.numbers["reviewers"] = len(counted)
    if len(counted) < judgement.min_reviewers:
        return _undecided(
            base, "H1", "too_few_reviewers",
            f"{len(counted)} reviewer(s) pass the self-agreement bar; "
            f"{judgement.min_reviewers} needed",
        )  # fmt: skip
    firsts = {r: _first(by_reviewer[r]) for r in counted}
    agreement = _agreement(firsts)
    base.numbers.update(agreement)
    judged = {i for f in firsts.values() for i in f}
    base.numbers["items"] = len(judged)
    if len(judged) < judgement.min_items:
        return _undecided(
            base, "H2", "too_few_items",
            f"{len(judged)} item(s) judged by the counted reviewers; {judgement.min_items} needed",
        )  # fmt: skip
    if len(counted) >= 2:
        name = "Cohen's kappa" if len(counted) == 2 else "Krippendorff's alpha"
        value = agreement["kappa"] if len(counted) == 2 else agreement["alpha"]
        if value is None or value < judgement.min_agreement:
            shown = "unmeasurable" if value is None else f"{value:.2f}"
            return _undecided(
                base, "H3", "low_agreement",
                f"{name} {shown} below {judgement.min_agreement:.2f}",
            )  # fmt: skip
    k = n = tied = 0
    for item in sorted(judged):
        votes = Counter(f[item] == claimed for f in firsts.values() if item in f)
        if votes[True] == votes[False]:
            tied += 1
            continue
        n += 1
        k += votes[True] > votes[False]
    base.numbers.update({"k": k, "n": n, "tied": tied})
    if n == 0:
        return _undecided(base, "H6", "too_noisy", "every item is a tie between the reviewers")
    result = stats.binomtest(k, n, share)
    interval = result.proportion_ci(confidence_level=CONFIDENCE, method="exact")
    low, high = float(interval.low), float(interval.high)
    base.numbers.update({"estimate": k / n, "low": low, "high": high,
                         "p_value": float(result.pvalue)})  # fmt: skip
    what = "B preferred" if pairs else claimed
    test = (
        f"{k}/{n} items judged {what} ({k / n:.0%}); exact binomial {CONFIDENCE:.0%} interval "
        f"[{low:.2f}, {high:.2f}] against {share:.0%}"
    )
    if low >= share:
        rule = "H4"
    elif high < share:
        rule = "H5"
    else:
        return _undecided(base, "H6", "too_noisy", test).model_copy(update={"test": test})
    verdict: Literal["verified", "falsified"] = "verified" if rule == "H4" else "falsified"
    return base.model_copy(
        update={"verdict": verdict, "rule": rule, "rule_name": RULES[rule], "test": test}
    )
