"""`openrepro demo`, end to end: the real embedded model extracts claims (``--quick``),
scripted participants run real experiments through the trackio CLI (two as local jobs on the
credit ledger), the judge decides each claim by its check, the re-check queue, outcomes, freeze
and the static board. Every figure asserted is derived from the scenario's known truth
(openrepro.demo.scenario); what is asserted is what code decided, never what the model said.

The whole scenario (every case, every relation) runs once more without the model's extraction
(the organizer review adds the claims): its verdicts, rules and the equality comparison are
code's alone."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from openrepro.challenge import open_challenge
from openrepro.claims.checks import Relation
from openrepro.cli import _common
from openrepro.cli.demo import _final_screen
from openrepro.demo import (
    ATTEMPTS,
    CLAIMS,
    DEMO_MARKER,
    QUICK_PAPERS,
    Attempt,
    DemoReport,
    run_demo,
)
from openrepro.freeze import CHECKSUMS
from openrepro.jobs import list_jobs
from openrepro.llm import LLMClient
from openrepro.llm.embedded import EmbeddedBackend

FALSE_FALSIFICATION = ("dee", "demo-hashing")  # the judge is fooled; the re-check is not


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory, embedded_backend: EmbeddedBackend
) -> Iterator[tuple[Path, DemoReport]]:
    base = tmp_path_factory.mktemp("demo")
    client = LLMClient(embedded_backend)
    cwd = os.getcwd()
    os.chdir(base)  # a relative folder, as `openrepro demo` gets by default
    try:
        report = run_demo(Path("openrepro-demo"), quick=True, client=client)
    finally:
        os.chdir(cwd)
    yield base / "openrepro-demo", report


@pytest.fixture(scope="module")
def scenario(
    tmp_path_factory: pytest.TempPathFactory, embedded_backend: EmbeddedBackend
) -> DemoReport:
    """Every case of the scenario, the extraction skipped (the organizer adds the claims)."""
    folder = tmp_path_factory.mktemp("scenario") / "demo"
    return run_demo(folder, client=LLMClient(embedded_backend), extract=False)


def _consensus(verdicts: set[str]) -> str:
    if {"verified", "falsified"} <= verdicts:
        return "contested"
    for value, name in (("verified", "verified"), ("falsified", "falsified"), ("toy", "toy-only")):
        if value in verdicts:
            return name
    return "inconclusive"


def _assert_verdicts(report: DemoReport, attempts: Sequence[Attempt]) -> None:
    """Verdicts, rules and paths against the known truth: the judge is right everywhere but
    the planted false falsification, which the re-check catches; the deterministic path
    decides all but the injected logbook (no measurement: the LLM path, which must not verify
    it)."""
    assert report.logbooks == len(attempts) == len(report.verdicts)
    for v, attempt in zip(report.verdicts, attempts, strict=True):
        assert (v.handle, v.claim.split("/")[0]) == (attempt.handle, attempt.paper)
        assert v.final == attempt.expected, v
        if (attempt.handle, attempt.paper) == FALSE_FALSIFICATION:
            assert v.judge == "falsified"
        else:
            assert v.judge == attempt.expected, v
        assert not attempt.rule or v.rule == attempt.rule, v
        assert not attempt.equality or v.equality == attempt.equality, v
        # the hostile logbook's run never evaluated: its check binds nothing, no model is asked
        assert v.path == ("none" if attempt.hostile else "deterministic"), v
        # a verdict from a check records it, its rule and the values bound; no other does
        assert bool(v.check) == v.rule.startswith("K:"), v
        assert bool(v.values) == (v.rule.startswith("K:") and v.rule != "K:E1"), v
    assert report.judge_right == len(attempts) - 1 and report.final_right == len(attempts)
    hostile = [v for v in report.verdicts if v.hostile]
    assert hostile and all("verified" not in (v.judge, v.final) for v in hostile)
    assert all("injection_suspected" in v.flags for v in hostile)


def _assert_checks(report: DemoReport, papers: Sequence[str]) -> None:
    """Each claim carries the check the scenario needs: drafted by the rules from its quote,
    or set by the organizer (with the reason) where the rules cannot draft it."""
    wanted = {c.paper: c for c in CLAIMS if c.paper in papers}
    assert sorted(n.claim.split("/")[0] for n in report.checks) == sorted(wanted)
    for note in report.checks:
        expected = wanted[note.claim.split("/")[0]]
        assert note.relation == expected.relation.value and note.as_wanted, note
        if expected.check is not None:
            assert note.origin == "organizer" and note.reason == expected.check_reason
            assert any(n.claim == note.claim and n.action == "check set" for n in report.review)
        else:
            assert note.origin == "rules" and note.rule.startswith("D"), note
            # stored only once the organizer reviewed the rules' reading (check_drafting off)
            assert any(n.claim == note.claim and n.action == "check kept" for n in report.review)
    relational = [n for n in report.checks if n.relation != Relation.equal.value]
    assert 2 * len(relational) >= len(report.checks)


def test_every_stage_ran_on_the_known_scenario(demo: tuple[Path, DemoReport]) -> None:
    folder, report = demo
    attempts = [a for a in ATTEMPTS if a.paper in QUICK_PAPERS]
    assert report.papers == len(QUICK_PAPERS) and report.quick
    # the organizer review leaves exactly the wanted claim per paper, quoted as wanted
    assert sorted(c.paper_id for c in report.claims) == sorted(QUICK_PAPERS)
    wanted = {c.paper: c for c in CLAIMS}
    for claim in report.claims:
        assert [q.text for q in claim.quotes] == [wanted[claim.paper_id].quote]
        assert claim.kind == wanted[claim.paper_id].kind
    assert all(n.reason for n in report.review)
    _assert_checks(report, QUICK_PAPERS)
    # real runs: the failed one exits non-zero, the rest succeed; two ran as local jobs
    exits = {(r.handle, r.paper): r.exit_code for r in report.runs}
    assert exits.pop(("cai", "demo-paging")) != 0 and set(exits.values()) == {0}
    assert sorted(r.job != "" for r in report.runs).count(True) == 2
    _assert_verdicts(report, attempts)
    attested = {v.handle for v in report.verdicts if v.provenance == "attested"}
    assert attested == {"ada"}

    # the re-check names the normalisation problem and the organizer rejects it
    by_claim = {n.claim.split("/")[0]: n for n in report.recheck}
    note = by_claim["demo-hashing"]
    assert note.decision == "rejected" and note.undermining == ["normalisation"]
    assert "per-lookup vs per-batch-of-64" in note.reason
    assert by_claim["demo-paging"].decision == "confirmed"

    # outcome rows, derived from the known truth (one claim per paper)
    consensus: dict[str, str] = {}
    for paper in QUICK_PAPERS:
        consensus[paper] = _consensus({a.expected for a in attempts if a.paper == paper})
    assert {c.paper: c.consensus for c in report.consensus} == consensus
    values = list(consensus.values())
    verified, falsified = values.count("verified"), values.count("falsified")
    expected_rows = {
        "examined": len(QUICK_PAPERS), "any_verified": verified, "fully_reproduced": verified,
        "partially_reproduced": 0, "mixed": 0, "falsified": falsified + values.count("contested"),
        "all_falsified": falsified, "contested": values.count("contested"),
        "toy_only": values.count("toy-only"), "nothing_established": values.count("inconclusive"),
    }  # fmt: skip
    assert {r.key: r.count for r in report.stats.rows} == expected_rows
    assert expected_rows["fully_reproduced"] == 3 and expected_rows["all_falsified"] == 1

    # the ledger balances: never negative, every reservation settled, the jobs paid for
    for bal in report.balances:
        assert bal.available_usd >= 0 and bal.reserved_usd == 0, bal
    assert next(b for b in report.balances if b.participant == "ada").spent_usd > 0
    ctx = open_challenge(folder)
    try:
        jobs = list_jobs(ctx)
        assert len(jobs) == 2 and all(j.settled and j.status == "completed" for j in jobs)
    finally:
        ctx.close()

    # the frozen dataset and the static site
    assert (folder / "frozen" / CHECKSUMS).is_file() and (folder / "frozen" / "README.md").is_file()
    assert (folder / "site" / "index.html").is_file()
    assert (folder / DEMO_MARKER).is_file()


def test_every_relation_of_the_scenario_is_decided_by_its_check(scenario: DemoReport) -> None:
    report = scenario
    assert not report.quick and report.extracted == 0
    papers = [c.paper for c in CLAIMS]
    _assert_checks(report, papers)
    _assert_verdicts(report, list(ATTEMPTS))
    judged = {(v.handle, v.claim.split("/")[0]): v for v in report.verdicts}

    # a growth law over a sweep, one run per k: a logarithmic law beats the claimed constant
    paging = judged["bob", "demo-paging"]
    assert paging.rule == "K:G2" and "best fit: logarithmic; claimed: constant" in paging.detail
    assert paging.values[0].startswith("miss_ratio by x: 2: ") and "64: " in paging.values[0]
    # a bound an equality-only judge falsifies: three seeds well above "at least 80%"
    knn = judged["ada", "demo-knn"]
    assert (knn.rule, knn.equality, knn.equality_rule) == ("K:S1", "falsified", "R6")
    assert ">= 80 (" in knn.check and len(knn.values[0].split(",")) == 3  # and its tolerance
    # a ratio against a baseline, from both quantities' seeds (Welch on the logarithms)
    ratio = judged["bob", "demo-smallsort"]
    assert ratio.rule == "K:S1" and len(ratio.values) == 2
    assert all(len(v.split(",")) == 3 for v in ratio.values)
    # an existence claim: one instance of the sweep verifies it
    some = judged["cai", "demo-lstsq"]
    assert some.rule == "K:X1" and "instance at training-set sizes = 50" in some.detail
    # an open-ended universal claim on a finite sweep: only toy
    every = judged["ada", "demo-mergesort"]
    assert every.rule == "K:U2" and "finite_horizon" in every.flags
    # reduced scale turns the bound's verdict into toy; the failed run binds nothing
    assert judged["cai", "demo-knn"].rule == "K:C1"
    assert judged["cai", "demo-paging"].rule == "R1" and not judged["cai", "demo-paging"].check
    assert "run_failed" in judged["cai", "demo-paging"].flags


def test_final_screen(
    demo: tuple[Path, DemoReport],
    scenario: DemoReport,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, report = demo
    monkeypatch.setattr(_common.console, "width", 160)
    with _common.console.capture() as captured:
        _final_screen(report)
    screen = captured.get()
    for text in ("Fully reproduced", "Verdicts against the demo's known truth",
                 f"judge: {report.judge_right}/{len(report.verdicts)}", "per-batch-of-64",
                 "Checks: what code decides", "organizer (claims check set)",
                 f"openrepro serve --dir {folder}", "frozen dataset", "index.html"):  # fmt: skip
        assert text in screen, text
    with _common.console.capture() as captured:
        _final_screen(scenario)
    screen = " ".join(captured.get().split())
    knn = next(v for v in scenario.verdicts if v.claim.startswith("demo-knn") and v.handle == "ada")
    # the bound: what the check decided and what the equality comparison would have said
    assert (
        f"the check {knn.check} verified it (K:S1: {' '.join(knn.detail.split())}); an "
        "equality-only comparison would have said falsified (R6:"
    ) in screen
    for rule in ("K:G2", "K:X1", "K:U2", "K:S1", "K:C1"):
        assert rule in screen, rule
    capsys.readouterr()
    _common.print_json(report)  # --format json: what agents read
    data = json.loads(capsys.readouterr().out)
    assert data["judge_right"] == report.judge_right and data["verdicts"][0]["expected"]
    assert data["checks"][0]["relation"] and "equality" in data["verdicts"][0]
