"""Measuring the judge against gold labels: how often its stored verdicts agree with a human.

A labels file is JSON Lines, one :class:`Label` a line::

    {"logbook": 12, "claim": "p1/C1", "gold": "verified"}
    {"logbook": "alice@p1", "claim": "p1/C2", "gold": "toy", "kind": "result"}

``logbook`` is a logbook id or ``"<participant handle>@<paper id>"`` (that participant's newest
revision for the paper). :func:`evaluate` compares the stored verdicts of one judge config (the
most recent one by default) with the gold labels:

- a 4x4 confusion matrix over :data:`~openrepro.evidence.records.VERDICTS` (rows gold, columns
  predicted); a label without a stored verdict is counted apart, as ``missing``, and as a miss
  for its gold class's recall;
- per-class precision, recall and F1, and their macro average over the classes present in the
  gold labels or the predictions (a class never seen on either side is left out);
- the same macro-F1 per claim kind (``result``, ``theory``, ...);
- the predicted verdicts per provenance level (``testimony``, ``self-recorded``, ``replayed``,
  ``attested``) and how often each level's verdicts agree with gold;
- the share of verdicts decided without an LLM (``judge_model`` starting with ``rules:``) and the
  tokens and seconds spent per verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import find_claim
from openrepro.errors import LabelError, NotFoundError
from openrepro.evidence.levels import PROVENANCE_LEVELS
from openrepro.evidence.records import VERDICTS, Verdict
from openrepro.jsonl import read_records
from openrepro.store import Logbook, Paper, Participant
from openrepro.store import Verdict as StoredVerdict

__all__ = [
    "CaseResult",
    "ClassScore",
    "EvalReport",
    "Label",
    "evaluate",
    "read_labels",
    "render_table",
    "score_confusion",
]

Confusion = dict[str, dict[str, int]]


class Label(BaseModel):
    """One gold label: what a careful human says the verdict on ``claim`` in ``logbook`` is."""

    model_config = ConfigDict(extra="forbid")

    logbook: int | str  # a logbook id, or "<participant>@<paper>"
    claim: str  # "<paper>/<key>", e.g. "p1/C1"
    gold: Verdict
    kind: str | None = None  # the claim's kind; None = the stored claim's
    case: str = ""  # a short name for the case, shown in disagreements
    note: str = ""


class ClassScore(BaseModel):
    verdict: str
    precision: float
    recall: float
    f1: float
    support: int  # gold labels of this class (missing verdicts included)
    predicted: int  # verdicts of this class


class CaseResult(BaseModel):
    case: str
    logbook_id: int
    claim: str
    kind: str
    gold: str
    predicted: str | None  # None: no verdict stored under the config
    deterministic: bool = False
    rationale: str = ""
    provenance: str | None = None  # the verdict's provenance level


class EvalReport(BaseModel):
    judge_config: str
    labels: int
    confusion: Confusion  # gold -> predicted -> count
    missing: int = 0
    per_class: list[ClassScore] = Field(default_factory=list)
    macro_f1: float = 0.0
    macro_f1_by_kind: dict[str, float] = Field(default_factory=dict)
    deterministic_share: float = 0.0  # of stored verdicts
    tokens_in_per_verdict: float = 0.0
    tokens_out_per_verdict: float = 0.0
    seconds_per_verdict: float = 0.0
    cases: list[CaseResult] = Field(default_factory=list)
    #: provenance level -> predicted verdict -> count, and accuracy against gold per level
    by_provenance: dict[str, dict[str, int]] = Field(default_factory=dict)
    accuracy_by_provenance: dict[str, float] = Field(default_factory=dict)

    @property
    def disagreements(self) -> list[CaseResult]:
        return [c for c in self.cases if c.predicted != c.gold]


def read_labels(path: Path | str) -> list[Label]:
    """The labels of a JSON Lines file; blank lines and lines starting with ``#`` are skipped."""
    return read_records(path, Label, LabelError)


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def score_confusion(
    confusion: Mapping[str, Mapping[str, int]], missing: Mapping[str, int] | None = None
) -> tuple[list[ClassScore], float]:
    """Per-class scores and their macro-F1 from a confusion matrix (gold -> predicted -> count);
    ``missing`` counts, per gold class, labels without a verdict (they lower recall only)."""
    missing = missing or {}
    scores: list[ClassScore] = []
    for verdict in VERDICTS:
        hit = confusion.get(verdict, {}).get(verdict, 0)
        support = sum(confusion.get(verdict, {}).values()) + missing.get(verdict, 0)
        predicted = sum(row.get(verdict, 0) for row in confusion.values())
        precision, recall = _ratio(hit, predicted), _ratio(hit, support)
        f1 = _ratio(2 * precision * recall, precision + recall)
        scores.append(ClassScore(verdict=verdict, precision=precision, recall=recall, f1=f1,
                                 support=support, predicted=predicted))  # fmt: skip
    present = [s for s in scores if s.support or s.predicted]
    macro = _ratio(sum(s.f1 for s in present), len(present))
    return scores, macro


def _empty() -> Confusion:
    return {gold: dict.fromkeys(VERDICTS, 0) for gold in VERDICTS}


def _confusion(cases: Iterable[CaseResult]) -> tuple[Confusion, dict[str, int]]:
    matrix = _empty()
    missing: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    for case in cases:
        if case.predicted is None:
            missing[case.gold] += 1
        else:
            matrix[case.gold][case.predicted] += 1
    return matrix, missing


def _resolve_logbook(ctx: ChallengeContext, ref: int | str, paper: str) -> int:
    with ctx.store.session() as session:
        query = (
            select(Logbook.id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == ctx.challenge_id)
        )
        if isinstance(ref, int):
            found = session.scalar(query.where(Logbook.id == ref))
        else:
            handle, _, venue = ref.rpartition("@")
            if not handle:
                handle, venue = ref, paper
            found = session.scalar(
                query.join(Participant, Participant.id == Logbook.participant_id)
                .where(Participant.handle == handle, Paper.venue_id == venue)
                .order_by(Logbook.id.desc())
                .limit(1)
            )
    if found is None:
        raise NotFoundError(f"no logbook {ref}")
    return found


def _resolve_claim(ctx: ChallengeContext, claim: str) -> tuple[int, str]:
    with ctx.store.session() as session:
        found = find_claim(session, ctx.challenge_id, claim)
        if found is None:
            raise NotFoundError(f"no claim {claim}")
        return found[0].id, found[0].kind


def _latest_config(ctx: ChallengeContext) -> str:
    with ctx.store.session() as session:
        config = session.scalar(
            select(StoredVerdict.judge_config)
            .join(Logbook, Logbook.id == StoredVerdict.logbook_id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == ctx.challenge_id)
            .order_by(StoredVerdict.id.desc())
            .limit(1)
        )
    if config is None:
        raise NotFoundError("no verdicts stored yet: run `openrepro judge` first")
    return config


def evaluate(
    ctx: ChallengeContext, labels: Sequence[Label], *, judge_config: str | None = None
) -> EvalReport:
    """Compare the stored verdicts of ``judge_config`` (default: the latest) with ``labels``."""
    config = judge_config or _latest_config(ctx)
    cases: list[CaseResult] = []
    stored: list[StoredVerdict] = []
    for label in labels:
        claim_id, claim_kind = _resolve_claim(ctx, label.claim)
        logbook_id = _resolve_logbook(ctx, label.logbook, label.claim.rpartition("/")[0])
        with ctx.store.session() as session:
            verdict = session.scalar(
                select(StoredVerdict).where(
                    StoredVerdict.logbook_id == logbook_id,
                    StoredVerdict.claim_id == claim_id,
                    StoredVerdict.judge_config == config,
                )
            )
            if verdict is not None:
                session.expunge(verdict)
                stored.append(verdict)
        cases.append(
            CaseResult(
                case=label.case or str(label.logbook), logbook_id=logbook_id, claim=label.claim,
                kind=label.kind or claim_kind, gold=label.gold,
                predicted=verdict.verdict if verdict is not None else None,
                deterministic=verdict is not None and verdict.judge_model.startswith("rules:"),
                rationale=verdict.rationale if verdict is not None else "",
                provenance=verdict.provenance if verdict is not None else None,
            )
        )  # fmt: skip
    matrix, missing = _confusion(cases)
    per_class, macro = score_confusion(matrix, missing)
    by_kind: dict[str, float] = {}
    for kind in sorted({c.kind for c in cases}):
        kind_matrix, kind_missing = _confusion(c for c in cases if c.kind == kind)
        by_kind[kind] = score_confusion(kind_matrix, kind_missing)[1]
    count = len(stored)
    by_level: dict[str, dict[str, int]] = {
        level: dict.fromkeys(VERDICTS, 0) for level in PROVENANCE_LEVELS
    }
    hits: dict[str, int] = dict.fromkeys(PROVENANCE_LEVELS, 0)
    for case in cases:
        if case.predicted is not None and case.provenance in by_level:
            by_level[case.provenance][case.predicted] += 1
            hits[case.provenance] += case.predicted == case.gold
    accuracy = {lv: _ratio(hits[lv], sum(by_level[lv].values())) for lv in PROVENANCE_LEVELS}
    return EvalReport(
        by_provenance=by_level, accuracy_by_provenance=accuracy,
        judge_config=config, labels=len(labels), confusion=matrix, missing=sum(missing.values()),
        per_class=per_class, macro_f1=macro, macro_f1_by_kind=by_kind,
        deterministic_share=_ratio(sum(c.deterministic for c in cases), count),
        tokens_in_per_verdict=_ratio(sum(v.tokens_in for v in stored), count),
        tokens_out_per_verdict=_ratio(sum(v.tokens_out for v in stored), count),
        seconds_per_verdict=_ratio(sum(v.seconds for v in stored), count),
        cases=cases,
    )  # fmt: skip


def render_table(report: EvalReport) -> str:
    """The report as Markdown: summary, confusion matrix, per-class and per-kind scores."""
    lines = [
        f"**{report.labels} labels**, judge config `{report.judge_config}`: "
        f"macro-F1 **{report.macro_f1:.3f}**; {report.deterministic_share:.0%} decided without "
        f"an LLM; per verdict {report.tokens_in_per_verdict:.1f} prompt + "
        f"{report.tokens_out_per_verdict:.1f} completion tokens, "
        f"{report.seconds_per_verdict:.4f} s; {report.missing} without a verdict.",
        "",
        "| gold \\ predicted | " + " | ".join(VERDICTS) + " | missing |",
        "| --- |" + " ---: |" * (len(VERDICTS) + 1),
    ]
    _, missing = _confusion(report.cases)
    for gold in VERDICTS:
        counts = [str(report.confusion.get(gold, {}).get(p, 0)) for p in VERDICTS]
        lines.append(f"| {gold} | " + " | ".join(counts) + f" | {missing.get(gold, 0)} |")
    lines += ["", "| verdict | precision | recall | F1 | support |", "| --- |" + " ---: |" * 4]
    for score in report.per_class:
        lines.append(f"| {score.verdict} | {score.precision:.3f} | {score.recall:.3f} | "
                     f"{score.f1:.3f} | {score.support} |")  # fmt: skip
    lines += ["", "| provenance | " + " | ".join(VERDICTS) + " | agrees with gold |",
              "| --- |" + " ---: |" * (len(VERDICTS) + 1)]  # fmt: skip
    for level in PROVENANCE_LEVELS:
        per_level = report.by_provenance.get(level, {})
        lines.append(f"| {level} | " + " | ".join(str(per_level.get(v, 0)) for v in VERDICTS)
                     + f" | {report.accuracy_by_provenance.get(level, 0.0):.3f} |")  # fmt: skip
    lines += ["", "| claim kind | macro-F1 |", "| --- | ---: |"]
    lines += [f"| {kind} | {f1:.3f} |" for kind, f1 in report.macro_f1_by_kind.items()]
    if report.disagreements:
        lines += ["", "| disagreement | logbook | gold | predicted | why |", "|" + " --- |" * 5]
        for case in report.disagreements:
            why = case.rationale.replace("|", "\\|")
            lines.append(f"| {case.case} | {case.logbook_id} | {case.gold} | "
                         f"{case.predicted or '(none)'} | {why} |")  # fmt: skip
    return "\n".join(lines) + "\n"
