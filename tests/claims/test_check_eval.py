"""The drafter measured on the labelled claims (tests/data/check_labels.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openrepro.claims.checks import (
    Draft,
    Relation,
    draft_check,
)
from openrepro.claims.checks.eval import evaluate_drafter, read_check_labels, render_report
from openrepro.errors import CheckError

LABELS = Path(__file__).parent.parent / "data" / "check_labels.jsonl"


def test_the_labelled_set_is_large_and_mostly_from_paperbench() -> None:
    labels = read_check_labels(LABELS)
    assert len(labels) >= 150
    assert len({label.id for label in labels}) == len(labels)
    paperbench = [label for label in labels if label.source.startswith("paperbench/")]
    assert len(paperbench) > len(labels) / 2
    assert {label.relation for label in labels} == set(Relation)  # every relation is labelled


def test_rules_meet_the_coverage_and_relation_accuracy_targets() -> None:
    labels = read_check_labels(LABELS)
    # the rules' reading, before the confidence gate (tested below)
    report = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=False))
    drafted = [c for c in report.cases if c.drafted != "none"]
    # the figures are computed from the cases, not taken on trust
    assert report.drafted == len(drafted)
    assert report.coverage == round(len(drafted) / len(labels), 4)
    assert report.relation_accuracy == round(sum(c.relation_ok for c in drafted) / len(drafted), 4)
    assert report.coverage >= 0.60, render_report(report)
    assert report.relation_accuracy >= 0.85, render_report(report)
    assert sum(sum(row.values()) for row in report.confusion.values()) == len(labels)
    human = next(s for s in report.per_relation if s.relation == "human")
    assert human.drafted <= human.labels // 5  # vague claims mostly get no check


def test_the_confidence_gate_trades_coverage_for_precision_on_the_own_labels() -> None:
    labels = read_check_labels(LABELS)
    reading = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=False))
    gated = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=True), name="gated")
    # measured: 95.7 % precision on 23 published checks (coverage 7.7 %) against 72.3 % on 224
    # (74.9 %) without the gate; the gate publishes only the shapes right on real event claims
    # (docs/checks.md), so the coverage floor is low by design, the precision one is not
    assert gated.precision > reading.precision
    assert gated.precision >= 0.9, render_report(gated)
    assert 0.05 <= gated.coverage < reading.coverage
    published = {c.id for c in gated.cases if c.drafted != "none"}
    assert published <= {c.id for c in reading.cases if c.drafted != "none"}


def test_a_drafter_that_always_guesses_equality_scores_badly() -> None:
    labels = read_check_labels(LABELS)

    def guess(quote: str) -> Draft:
        draft = draft_check("The model reaches 1.0 accuracy.", gate=False)
        return draft

    report = evaluate_drafter(labels, guess, name="guess")
    assert report.coverage == 1.0
    assert report.relation_accuracy < 0.2  # the score can fail


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "line 2: not JSON"),
        (
            json.dumps({"id": "x", "quote": "q", "relation": "nonsense", "quantities": 1}),
            "line 2: relation",
        ),
        (json.dumps({"id": "x", "quote": "q", "relation": "equal"}), "line 2: quantities"),
    ],
)
def test_bad_label_files_name_the_line(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("# a comment\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CheckError, match=problem):
        read_check_labels(path)
    with pytest.raises(CheckError, match="cannot read"):
        read_check_labels(tmp_path / "missing.jsonl")


def test_precision_counts_a_check_drafted_for_a_claim_no_check_should_have(
    tmp_path: Path,
) -> None:
    rows = [
        {"id": "a", "quote": "Our method reaches at least 90% accuracy on CIFAR-10.",
         "relation": "bound", "quantities": 1, "constants": [90], "direction": "higher"},
        {"id": "b", "quote": "The encoder reaches at least 12 layers of depth in Section 3.",
         "relation": None, "quantities": 0},
        {"id": "c", "quote": "The two towers share their weights.", "relation": None,
         "quantities": 0},
    ]  # fmt: skip
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    labels = read_check_labels(path)
    report = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=False))
    by_id = {c.id: c for c in report.cases}
    assert by_id["c"].drafted == "none" and by_id["c"].gold == "none"
    drafted = [c for c in report.cases if c.drafted != "none"]
    right = [c for c in drafted if c.gold != "none" and c.relation_ok and c.constants_ok]
    assert report.precision == round(len(right) / len(drafted), 4)
    assert report.abstain_drafted == sum(c.gold == "none" for c in drafted)
    assert report.checkable == 1
    assert report.checkable_coverage == (1.0 if by_id["a"].drafted != "none" else 0.0)
    assert "precision" in render_report(report)
