"""`openrepro demo --quick`, end to end: the real embedded model extracts claims, scripted
participants run real experiments through the trackio CLI (two as local jobs on the credit
ledger), the judge, the re-check queue, outcomes, freeze and the static board. Every figure
asserted is derived from the scenario's known truth (openrepro.demo.scenario)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from openrepro.challenge import open_challenge
from openrepro.cli import _common
from openrepro.cli.demo import _final_screen
from openrepro.demo import ATTEMPTS, CLAIMS, DEMO_MARKER, QUICK_PAPERS, DemoReport, run_demo
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


def _consensus(verdicts: set[str]) -> str:
    if {"verified", "falsified"} <= verdicts:
        return "contested"
    for value, name in (("verified", "verified"), ("falsified", "falsified"), ("toy", "toy-only")):
        if value in verdicts:
            return name
    return "inconclusive"


def test_every_stage_ran_on_the_known_scenario(demo: tuple[Path, DemoReport]) -> None:
    folder, report = demo
    attempts = [a for a in ATTEMPTS if a.paper in QUICK_PAPERS]
    assert report.papers == len(QUICK_PAPERS) and report.quick
    # the organizer review leaves exactly the wanted claim per paper, quoted as wanted
    assert sorted(c.paper_id for c in report.claims) == sorted(QUICK_PAPERS)
    wanted = {c.paper: c for c in CLAIMS}
    for claim in report.claims:
        assert [q.text for q in claim.quotes] == [wanted[claim.paper_id].quote]
        assert claim.kind == wanted[claim.paper_id].kind and claim.reported
    assert all(n.reason for n in report.review)
    # real runs: the failed one exits non-zero, the rest succeed; two ran as local jobs
    exits = {(r.handle, r.paper): r.exit_code for r in report.runs}
    assert exits.pop(("cai", "demo-paging")) != 0 and set(exits.values()) == {0}
    assert sorted(r.job != "" for r in report.runs).count(True) == 2
    assert report.logbooks == len(attempts) == len(report.verdicts)

    # verdicts against the known truth: the judge is right everywhere but the planted false
    # falsification, which the re-check catches; the deterministic path decides all but the
    # injected logbook (no measurement: the LLM path, which must not verify it)
    for v, attempt in zip(report.verdicts, attempts, strict=True):
        assert (v.handle, v.claim.split("/")[0]) == (attempt.handle, attempt.paper)
        assert v.final == attempt.expected, v
        if (attempt.handle, attempt.paper) == FALSE_FALSIFICATION:
            assert v.judge == "falsified"
        else:
            assert v.judge == attempt.expected, v
        assert v.path == ("llm" if attempt.hostile else "deterministic"), v
    assert report.judge_right == len(attempts) - 1 and report.final_right == len(attempts)
    hostile = [v for v in report.verdicts if v.hostile]
    assert hostile and all("verified" not in (v.judge, v.final) for v in hostile)
    assert all("injection_suspected" in v.flags for v in hostile)
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
    assert expected_rows["fully_reproduced"] == 2 and expected_rows["all_falsified"] == 1

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


def test_final_screen(
    demo: tuple[Path, DemoReport],
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
                 f"openrepro serve --dir {folder}", "frozen dataset", "index.html"):  # fmt: skip
        assert text in screen, text
    capsys.readouterr()
    _common.print_json(report)  # --format json: what agents read
    data = json.loads(capsys.readouterr().out)
    assert data["judge_right"] == report.judge_right and data["verdicts"][0]["expected"]
