"""The judge measured against gold labels on a set of real Trackio logbooks (SQLite only, built
once per module), plus the evaluation's arithmetic on hand-made confusions and the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from cases import CASES, build_labelled_set
from test_cli import run  # the CLI as a process, as in tests/cli/

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.errors import LabelError, NotFoundError
from openrepro.evidence.records import VERDICTS
from openrepro.judge.evaluate import (
    EvalReport,
    Label,
    evaluate,
    read_labels,
    render_table,
    score_confusion,
)
from openrepro.judge.service import JudgeReport, judge_logbooks


class Judged(NamedTuple):
    ctx: ChallengeContext
    folder: Path
    labels: list[Label]
    report: JudgeReport


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judged]:
    """The labelled set, built and judged on the deterministic path once for the module."""
    tmp = tmp_path_factory.mktemp("labelled")
    ctx = init_challenge(tmp / "ch", "test", venue="Test/2026",
                         database_url=f"sqlite:///{tmp / 'store.db'}")  # fmt: skip
    try:
        labels = build_labelled_set(ctx, tmp / "cases")
        yield Judged(ctx, tmp / "ch", labels, judge_logbooks(ctx, None))
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def report(judged: Judged) -> EvalReport:
    return evaluate(judged.ctx, judged.labels)


def test_score_confusion_by_hand() -> None:
    confusion = {"verified": {"verified": 3, "falsified": 1},
                 "falsified": {"falsified": 2, "verified": 2}}  # fmt: skip
    scores, macro = score_confusion(confusion, {"verified": 1})
    by = {s.verdict: s for s in scores}
    # verified: precision 3/5, recall 3/5 (one missing verdict counts as a miss) -> F1 0.6
    assert (by["verified"].precision, by["verified"].recall) == (0.6, 0.6)
    assert by["verified"].support == 5 and by["verified"].predicted == 5
    # falsified: precision 2/3, recall 2/4 -> F1 2 * (2/3 * 1/2) / (2/3 + 1/2) = 4/7
    assert by["falsified"].f1 == pytest.approx(4 / 7)
    # toy and inconclusive appear on neither side: left out of the macro average
    assert macro == pytest.approx((0.6 + 4 / 7) / 2)
    assert score_confusion({}, None)[1] == 0.0
    # a class predicted but never gold counts, with F1 0
    assert score_confusion({"toy": {"inconclusive": 1}})[1] == 0.0


def test_read_labels_names_the_bad_line(tmp_path: Path) -> None:
    good = tmp_path / "labels.jsonl"
    good.write_text('{"logbook": 3, "claim": "p1/C1", "gold": "toy"}\n\n# a comment\n'
                    '{"logbook": "ann@p1", "claim": "p1/C1", "gold": "verified", '
                    '"kind": "result"}\n', encoding="utf-8")  # fmt: skip
    assert [(x.logbook, x.gold, x.kind) for x in read_labels(good)] == [
        (3, "toy", None), ("ann@p1", "verified", "result")
    ]  # fmt: skip
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"logbook": 3, "claim": "p1/C1", "gold": "toy"}\n{"logbook": 3,\n')
    with pytest.raises(LabelError, match=r"bad.jsonl: line 2: not JSON"):
        read_labels(bad)
    bad.write_text('{"logbook": 3, "claim": "p1/C1", "gold": "great"}\n')
    with pytest.raises(LabelError, match=r"line 1: gold: "):
        read_labels(bad)
    with pytest.raises(LabelError, match="cannot read"):
        read_labels(tmp_path / "nope.jsonl")


def test_labelled_set_against_the_rules(judged: Judged, report: EvalReport) -> None:
    ctx, _, labels, judge_report = judged
    assert len(labels) == len(CASES) >= 40
    assert sum(sum(row.values()) for row in report.confusion.values()) == len(labels)
    assert report.missing == 0 and report.labels == len(labels)
    assert set(report.confusion) == set(VERDICTS)
    # the deterministic path decides every case whose metric was logged as instructed
    rows = {row.participant: row for row in judge_report.verdicts}
    for case in CASES:
        # (metrics logged outside any run are found too, and rejected by rule R2)
        expected = "deterministic" if case.instructed or case.outside else "none"
        assert rows[case.name].path == expected, case.name
        assert set(case.flags) <= set(rows[case.name].flags), case.name
    assert report.deterministic_share == 1.0 and judge_report.usage.calls == 0
    assert report.tokens_in_per_verdict == 0.0 and report.tokens_out_per_verdict == 0.0
    # macro-F1 is the mean of the per-class F1s
    assert report.macro_f1 == pytest.approx(sum(s.f1 for s in report.per_class) / 4)
    # Every case is decided as a careful human reading INSTRUCTIONS.md would (units-* are
    # inconclusive with unit_mismatch; tight-seeds is verified by the mean-within-tolerance rule).
    assert report.disagreements == []
    assert report.macro_f1 == pytest.approx(1.0)
    assert report.macro_f1_by_kind == {"result": pytest.approx(report.macro_f1)}
    table = render_table(report)
    assert "| gold \\ predicted |" in table
    # a label naming the logbook by id resolves to the same verdict; unknown ones are errors
    first = report.cases[0]
    by_id = Label(logbook=first.logbook_id, claim="p1/C1", gold=first.gold)
    assert evaluate(ctx, [by_id]).cases[0].predicted == first.predicted
    with pytest.raises(NotFoundError, match="no logbook nobody@p1"):
        evaluate(ctx, [Label(logbook="nobody@p1", claim="p1/C1", gold="toy")])
    with pytest.raises(NotFoundError, match="no claim p1/C9"):
        evaluate(ctx, [Label(logbook=first.logbook_id, claim="p1/C9", gold="toy")])
    missing = evaluate(ctx, [by_id], judge_config="other")
    assert missing.missing == 1 and missing.macro_f1 == 0.0


def test_judge_eval_cli(judged: Judged, report: EvalReport, tmp_path: Path) -> None:
    labels = judged.labels
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(label.model_dump_json() + "\n" for label in labels), encoding="utf-8")
    result = run("judge", "eval", str(path), "-f", "json", cwd=judged.folder)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["macro_f1"] == pytest.approx(report.macro_f1)
    assert data["confusion"] == report.confusion and data["disagreements"] == []
    markdown = run("judge", "eval", str(path), cwd=judged.folder)
    assert markdown.returncode == 0 and "macro-F1" in markdown.stdout
    again = run("judge", "--no-llm", "--all", "-f", "json", cwd=judged.folder)  # default `run`
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["verdicts"][0]["skipped"] is True
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n", encoding="utf-8")
    failed = run("judge", "eval", str(bad), cwd=judged.folder)
    assert failed.returncode == 1 and "bad.jsonl: line 1: not JSON" in failed.stderr
