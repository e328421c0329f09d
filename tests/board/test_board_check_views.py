"""What the board draws of a check's evaluation, from real evaluations of sweeps (trend,
for_all) by :func:`openrepro.evidence.relations.evaluate`, and pointer kinds it only describes."""

from __future__ import annotations

import re

from openrepro.board.checks import check_shown
from openrepro.claims.checks import Check
from openrepro.evidence.records import Pointer, describe_pointer
from openrepro.evidence.relations import Bound, evaluate

XS = [1.0, 2.0, 4.0, 8.0]
YS = [50.0, 55.0, 61.0, 70.0]


def _sweep() -> tuple[Bound, list[Pointer]]:
    metric = [Pointer(kind="metric", run=f"k{x:g}", key="claims/p1/C3/acc", step=9) for x in XS]
    at = [Pointer(kind="metric", run=f"k{x:g}", key="claims/p1/C3/k", step=0) for x in XS]
    texts = [
        f"{describe_pointer(m)} at {describe_pointer(a)}" for m, a in zip(metric, at, strict=True)
    ]
    return Bound(quantity="acc", points=list(zip(XS, YS, strict=True)), pointers=texts), metric + at


def _evidence(pointers: list[Pointer]) -> list[dict[str, object]]:
    return [p.model_dump(mode="json") for p in pointers]


def test_a_trend_shows_its_points_and_the_least_squares_line() -> None:
    check = Check(relation="trend", quantities=[{"name": "acc", "sweep": "k"}], subject="acc",
                  trend="increasing", sweep="k")  # fmt: skip
    bound, pointers = _sweep()
    result = evaluate(check, [bound])
    assert result.verdict == "verified" and result.rule == "S1"
    shown = check_shown(result.model_dump(mode="json"), _evidence(pointers), "p1/C3")
    assert shown is not None and shown.words == "acc increasing in k (steps against it within 5%)"
    points = re.findall(r'<circle class="point"[^>]*data-x="([^"]+)" data-value="([^"]+)"',
                        shown.chart)  # fmt: skip
    assert [(float(x), float(y)) for x, y in points] == list(zip(XS, YS, strict=True))
    fit = re.search(r'class="fit"[^>]*data-intercept="([^"]+)" data-slope="([^"]+)"', shown.chart)
    assert fit is not None
    assert abs(float(fit.group(2)) - float(result.numbers["estimate"])) < 1e-4  # type: ignore[arg-type]
    # each point links both its value and its x to their metric rows
    assert [len(v.links) for v in shown.values] == [2, 2, 2, 2]
    assert shown.values[0].x == "1.0" and shown.values[0].links[0].anchor.startswith("metric-")


def test_for_all_shows_the_points_against_the_bound_and_each_point_decided() -> None:
    check = Check(
        relation="for_all", sweep="k",
        inner={"relation": "bound", "subject": "acc", "comparator": "ge",
               "quantities": [{"name": "acc", "sweep": "k"}],
               "constant": {"value": 45, "text": "45"}},
    )  # fmt: skip
    bound, pointers = _sweep()
    result = evaluate(check, [bound])
    shown = check_shown(result.model_dump(mode="json"), _evidence(pointers), "p1/C3")
    assert shown is not None and shown.words.startswith("for every k")
    assert shown.chart.count('<circle class="point"') == len(XS)
    assert re.search(r'<line class="reference"[^>]*data-value="45"', shown.chart)
    assert [p.at for p in shown.parts] == ["1", "2", "4", "8"]
    assert all(p.chart == "" and p.values == [] for p in shown.parts)  # the parent's points


def test_a_pointer_kind_without_an_anchor_is_shown_by_its_words() -> None:
    check = Check(relation="bound", quantities=[{"name": "acc"}], subject="acc",
                  comparator="ge", constant={"value": 90, "text": "90"})  # fmt: skip
    row = Pointer(kind="table_cell", table="ab" * 32, row=3, column="acc", path="results.csv")
    bound = Bound(quantity="acc", seeds=[93.0], pointers=[describe_pointer(row)])
    shown = check_shown(evaluate(check, [bound]).model_dump(mode="json"), _evidence([row]))
    assert shown is not None and shown.rule == "P1"
    [value] = shown.values
    assert [(link.kind, link.anchor) for link in value.links] == [("table_cell", "")]
    assert value.links[0].text == describe_pointer(row)


def test_a_verdict_no_check_decided_has_no_check_view() -> None:
    assert check_shown({}, []) is None
    assert check_shown({"rule": "S1", "verdict": "nonsense"}, []) is None  # not an evaluation
