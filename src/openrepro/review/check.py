"""`review check` and `review export`: consistency of the answers, and the answers attached to a
logbook as human-judged evidence.

Self-agreement: for each reviewer, the share of repeated items answered the same (unblinded) as
the first time. Inter-rater agreement, on each reviewer's first answer per item: Cohen's κ and
the percent agreement for every pair of reviewers, Krippendorff's alpha (nominal) over all of them.

Export writes ``human_review/<task>/answers.csv`` and ``summary.json`` (``"judged_by": "human"``)
into a logbook folder; a bundle's ``manifest.json`` also lists both as artifacts. A Trackio
logbook carries them as plain files of its folder (the judge never reads them as run evidence:
they are marked human-judged, for organizers and readers).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from itertools import combinations
from pathlib import Path

from pydantic import BaseModel, Field

from openrepro.errors import NotFoundError
from openrepro.evidence.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from openrepro.review.task import Answer, load_task, read_answers, schedule, task_summary_json

__all__ = ["PairAgreement", "ReviewCheck", "ReviewerSummary", "check_task", "export_task"]


class ReviewerSummary(BaseModel):
    reviewer: str
    answers: int
    items: int  # distinct items answered
    slots: int  # slots of the reviewer's schedule
    repeats: int = 0  # repeated items answered twice
    self_agreement: float | None = None  # share of repeats answered the same


class PairAgreement(BaseModel):
    reviewers: tuple[str, str]
    items: int
    percent: float | None = None
    kappa: float | None = None


class ReviewCheck(BaseModel):
    task: str
    question: str
    items: int
    answers: int
    reviewers: list[ReviewerSummary] = Field(default_factory=list)
    pairs: list[PairAgreement] = Field(default_factory=list)
    alpha: float | None = None  # Krippendorff's alpha (nominal), all reviewers
    distribution: dict[str, int] = Field(default_factory=dict)  # first answers per label
    problems: list[str] = Field(default_factory=list)
    judged_by: str = "human"


def _first_answers(answers: list[Answer]) -> dict[str, dict[str, str]]:
    first: dict[str, dict[str, str]] = {}
    for a in sorted(answers, key=lambda a: a.slot):
        first.setdefault(a.reviewer, {}).setdefault(a.item, a.answer)
    return first


def check_task(folder: Path) -> ReviewCheck:
    task = load_task(folder)
    answers = read_answers(task.answers_path)
    items = {item.id for item in task.items}
    problems: list[str] = []
    seen: Counter[tuple[str, int]] = Counter((a.reviewer, a.slot) for a in answers)
    problems += [f"{r}: slot {s} answered {n} times" for (r, s), n in seen.items() if n > 1]
    problems += sorted({f"unknown item {a.item}" for a in answers if a.item not in items})
    first = _first_answers(answers)
    reviewers: list[ReviewerSummary] = []
    for reviewer in sorted(first):
        own = [a for a in answers if a.reviewer == reviewer]
        firsts = first[reviewer]
        repeats = [a for a in own if a.repeat]
        same = sum(a.answer == firsts.get(a.item) for a in repeats)
        reviewers.append(
            ReviewerSummary(
                reviewer=reviewer, answers=len(own), items=len(firsts),
                slots=len(schedule(task, reviewer)), repeats=len(repeats),
                self_agreement=same / len(repeats) if repeats else None,
            )
        )  # fmt: skip
    pairs: list[PairAgreement] = []
    for one, two in combinations(sorted(first), 2):
        both = sorted(set(first[one]) & set(first[two]))
        labels = [(first[one][i], first[two][i]) for i in both]
        pairs.append(PairAgreement(reviewers=(one, two), items=len(both),
                                   percent=percent_agreement(labels),
                                   kappa=cohen_kappa(labels)))  # fmt: skip
    units = {item: [first[r].get(item) for r in sorted(first)] for item in sorted(items)}
    alpha = krippendorff_alpha(units) if len(first) >= 2 else None
    distribution = Counter(label for per in first.values() for label in per.values())
    return ReviewCheck(
        task=task.name, question=task.question, items=len(items), answers=len(answers),
        reviewers=reviewers, pairs=pairs, alpha=alpha, distribution=dict(sorted(
            distribution.items())), problems=problems,
    )  # fmt: skip


def export_task(folder: Path, logbook: Path) -> list[Path]:
    """Write the answers and their summary into ``logbook/human_review/<task>/`` (see the
    module docstring); returns the files written."""
    if not logbook.is_dir():
        raise NotFoundError(f"{logbook} is not a logbook folder")
    task = load_task(folder)
    report = check_task(folder)
    target = logbook / "human_review" / task.name
    target.mkdir(parents=True, exist_ok=True)
    answers = target / "answers.csv"
    shutil.copyfile(task.answers_path, answers)
    summary = target / "summary.json"
    payload = {"evidence": "human-judged", **report.model_dump(mode="json")}
    summary.write_text(task_summary_json(payload), encoding="utf-8")
    manifest = logbook / "manifest.json"
    if manifest.is_file():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        listed = {a.get("path") for a in data.get("artifacts", [])}
        for path in (answers, summary):
            rel = path.relative_to(logbook).as_posix()
            if rel not in listed:
                data.setdefault("artifacts", []).append({"path": rel, "kind": "table"})
        manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return [answers, summary]
