"""The relational judge measured against gold labels on real Trackio logbooks: one paper whose
claims' checks cover every relation (see ``cases_relations.py``), judged on the deterministic
path and scored by ``judge eval``'s own code (SQLite only, built once per module). The macro-F1
and the confusion table are printed (``pytest -s``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cases_relations import CASES, CLAIMS, DRAFTED, PAPER, build_relations_set
from test_evaluate import Judged, run  # the judged set's record; the CLI as a subprocess

from openrepro.challenge import init_challenge
from openrepro.claims.checks import Relation, draft_check
from openrepro.judge.evaluate import EvalReport, evaluate, render_table
from openrepro.judge.service import judge_logbooks

TARGET_MACRO_F1 = 0.95


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judged]:
    tmp = tmp_path_factory.mktemp("relations")
    ctx = init_challenge(tmp / "ch", "test", venue="Test/2026",
                         database_url=f"sqlite:///{tmp / 'store.db'}")  # fmt: skip
    try:
        labels = build_relations_set(ctx, tmp / "cases")
        yield Judged(ctx, tmp / "ch", labels, judge_logbooks(ctx, None))
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def report(judged: Judged) -> EvalReport:
    return evaluate(judged.ctx, judged.labels)


def test_the_checks_cover_every_relation() -> None:
    relations = {node.relation for _, _, _, check in CLAIMS for node in check.nodes()}
    assert relations == set(Relation) - {Relation.human}
    gold: dict[Relation, set[str]] = {}
    checks = {key: check for key, _, _, check in CLAIMS}
    for participant in CASES:
        for logged in participant.logged:
            gold.setdefault(checks[logged.claim].relation, set()).add(logged.gold)
    for relation, verdicts in gold.items():
        # both directions: a check that holds, and one that fails ("exists" cannot be refuted
        # by a finite search: its other direction is inconclusive)
        assert verdicts & {"verified", "toy"}, relation
        assert verdicts & {"falsified", "inconclusive"}, relation
        assert len(verdicts) >= 2, relation
    # the bounds: >=, <=, <, >; growth: logarithmic, linear, power with a stated exponent
    ops = {c.comparator for _, _, _, c in CLAIMS if c.relation is Relation.bound}
    assert {o.value for o in ops if o} == {"ge", "le", "lt", "gt"}
    laws = {c.law for _, _, _, c in CLAIMS if c.relation is Relation.growth}
    assert {law.value for law in laws if law} == {"logarithmic", "linear", "power"}


def test_the_rules_drafter_reads_the_same_relation() -> None:
    """Where the rules' drafter reads a check in the quote, it is of the relation set here."""
    for key, _, quote, check in CLAIMS:
        drafted = draft_check(quote, claim_id=f"{PAPER}/{key}").check
        if key in DRAFTED:
            assert drafted is not None and drafted.relation is check.relation, (key, drafted)


def test_relations_against_gold(judged: Judged, report: EvalReport) -> None:
    labels, judge_report = judged.labels, judged.report
    assert len(labels) >= 100 and report.labels == len(labels) and report.missing == 0
    rows = {(row.participant, row.claim_id): row for row in judge_report.verdicts}
    wrong_rule = []
    for participant in CASES:
        for logged in participant.logged:
            row = rows[(participant.name, f"{PAPER}/{logged.claim}")]
            assert row.path == "deterministic", (participant.name, logged.claim)
            assert set(logged.flags) <= set(row.flags), (participant.name, logged.claim, row)
            if row.rule != logged.rule:
                wrong_rule.append((participant.name, logged.claim, logged.rule, row.rule))
    assert judge_report.usage.calls == 0 and report.deterministic_share == 1.0
    table = render_table(report)
    print(f"\nrelations labelled set: {len(labels)} labels, macro-F1 {report.macro_f1:.3f}")
    print(table)
    for case in report.disagreements:
        print(f"  disagreement {case.case}: gold {case.gold}, judge {case.predicted}: "
              f"{case.rationale}")  # fmt: skip
    assert report.macro_f1 >= TARGET_MACRO_F1, table
    # and for the reason a careful human gives: the rule that decides each case
    assert wrong_rule == []


def test_judge_eval_cli_on_the_relations_set(
    judged: Judged, report: EvalReport, tmp_path: Path
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(x.model_dump_json() + "\n" for x in judged.labels), encoding="utf-8")
    result = run("judge", "eval", str(path), "-f", "json", cwd=judged.folder)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["macro_f1"] == pytest.approx(report.macro_f1)
    assert data["macro_f1"] >= TARGET_MACRO_F1
    assert data["confusion"] == report.confusion
