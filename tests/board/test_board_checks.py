"""The board shows how a check decided a verdict: the check in words, its rule, the bound values
with links to the metric rows they were read from, the test's numbers and a chart of the seeds
against the paper's bound. Judged by the real judge over real Trackio logbooks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store
from test_judge_checks import ABSTRACT, _attempt  # a real Trackio logbook, three seeds

from openrepro.board import build_board_site, create_app
from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.render import metric_anchor
from openrepro.papers import PaperRecord, import_papers

SEEDS = [95.1, 95.3, 94.9]


def judged_check(ctx: ChallengeContext, tmp: Path) -> int:
    """p1/C1 "at least 90% accuracy" (a bound drafted by the rules), attempted by alice with
    three seeds and judged; the logbook's id."""
    paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT)
    import_papers(ctx.store, ctx.challenge_id, [paper], source="t")
    with ctx.store.session() as s:
        view = add_claim(
            s, ctx.challenge_id, "p1", text="At least 90% accuracy on CIFAR-10.",
            kind="result", quotes=["reaches at least 90% accuracy"], editor="org", drafting="rules"
        )  # fmt: skip
    assert view.check is not None and view.check.relation == "bound"
    book = _attempt(ctx, tmp, "alice", ",".join(map(str, SEEDS)))
    [row] = judge_logbooks(ctx, None).verdicts
    assert row.verdict == "verified" and row.rule.startswith("K:")
    return book


@pytest.fixture
def judged(challenge: ChallengeContext, tmp_path: Path) -> tuple[TestClient, int]:
    book = judged_check(challenge, tmp_path)
    return TestClient(create_app(challenge, cache_seconds=0)), book


def _section(page: str, book: int) -> str:
    found = re.search(rf'<section class="check" id="check-C1-{book}">(.*?)</section>', page, re.S)
    assert found is not None, "no check section"
    return found.group(1)


def test_the_logbook_page_shows_how_the_check_decided(judged: tuple[TestClient, int]) -> None:
    board, book = judged
    page = board.get(f"/logbooks/{book}").text
    assert f'<a href="#check-C1-{book}">decided by check</a> (rule S1)' in page
    shown = _section(page, book)
    assert "<code>subject &gt;= 90 (no tolerance)</code>" in shown and "(bound)" in shown
    assert "<strong>Rule S1</strong>: interval inside the claimed region" in shown
    assert "<strong>Test:</strong> one-sample t interval (95%): estimate" in shown
    # the bound values, each linked to the exact metric row (run, key, step) in the frame
    links = re.findall(r'<a class="pointer pointer-metric" href="([^"]+)" target="logbook-frame">'
                       r"([^<]+)</a>", shown)  # fmt: skip
    assert len(links) == 3
    for seed in ("seed0", "seed1", "seed2"):
        anchor = metric_anchor(seed, "claims/p1/C1/accuracy", 0)
        assert (f"/logbooks/{book}/content#{anchor}",
                f"metric claims/p1/C1/accuracy (run {seed}, step 0)") in links  # fmt: skip
    values = re.findall(r'<td class="num">([0-9.]+)</td>', shown)
    assert sorted(map(float, values)) == sorted(SEEDS)
    # the chart: a dot per seed, the paper's bound, the interval used, and words for it all
    svg = re.search(r"<svg[^>]*check-chart[^>]*>.*?</svg>", shown, re.S)
    assert svg is not None
    dots = sorted(float(v) for v in re.findall(r'<circle class="seed"[^>]*data-value="([^"]+)"',
                                                svg.group(0)))  # fmt: skip
    assert dots == sorted(SEEDS)
    assert re.search(r'<line class="reference"[^>]*data-value="90"', svg.group(0))
    interval = re.search(r'class="interval"[^>]*data-low="([^"]+)" data-high="([^"]+)"',
                         svg.group(0))  # fmt: skip
    assert interval is not None
    low, high = map(float, interval.groups())
    assert 90 < low < min(SEEDS) and max(SEEDS) < high < 100  # a t interval around the mean
    assert "<desc>subject: 95.1, 95.3, 94.9; paper: 90" in svg.group(0)
    # each link's anchor is a row of the rendered logbook
    content = board.get(f"/logbooks/{book}/content").text
    for href, _ in links:
        assert f'id="{href.split("#")[1]}"' in content


def test_the_logbook_frame_of_a_trackio_logbook(judged: tuple[TestClient, int]) -> None:
    """What a first look at the page found, on a real Trackio logbook: the frame named nobody,
    said no run concerned the claim, drew one-point series as empty charts, titled runs twice."""
    board, book = judged
    content = board.get(f"/logbooks/{book}/content").text
    assert "<dt>Participant</dt><dd>alice</dd>" in content
    claim = content.split('<section class="or-claim">', 1)[1].split("</section>", 1)[0]
    assert "No run concerns this claim." not in claim
    assert re.search(r'<li><a href="#run-[0-9a-f]+">Run: ', claim)
    assert "Run Run" not in content
    charts = re.findall(r'<svg class="or-chart".*?</svg>', claim, re.S)
    assert len(charts) == 3 and all(c.count("<circle") == 1 for c in charts)  # one per seed


def test_the_paper_page_shows_the_check_and_its_verdict(judged: tuple[TestClient, int]) -> None:
    board, book = judged
    page = board.get("/papers/p1").text
    assert "check: <code>subject &gt;= 90 (no tolerance)</code>" in page
    assert "openrepro claims check set" not in page  # no organizer commands on public pages
    shown = _section(page, book)
    assert shown.count('<circle class="seed"') == 3
    assert (
        f'href="/logbooks/{book}/content#{metric_anchor("seed1", "claims/p1/C1/accuracy", 0)}"'
        in shown
    )
    assert "target=" not in shown  # no frame on this page: the link opens the logbook itself


def test_verdicts_without_a_check_say_so(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/papers/P5-contested").text
    assert "no check yet: its verdicts are inconclusive" in page
    book = re.search(r'href="/logbooks/(\d+)"', page)
    assert book is not None
    logbook = board.get(f"/logbooks/{book.group(1)}").text
    assert "No check yet: inconclusive (nothing is compared without a check)." in logbook
    assert "decided by check" not in logbook


def test_the_static_export_shows_the_check_too(
    judged: tuple[TestClient, int], challenge: ChallengeContext, tmp_path: Path
) -> None:
    _, book = judged
    out = tmp_path / "site"
    build_board_site(challenge, out)
    page = (out / "logbooks" / f"{book}.html").read_text()
    shown = _section(page, book)
    assert shown.count('<circle class="seed"') == 3
    anchor = metric_anchor("seed0", "claims/p1/C1/accuracy", 0)
    assert f'href="../logbooks/{book}/index.html#{anchor}" target="logbook-frame"' in shown
    content = (out / "logbooks" / str(book) / "index.html").read_text()
    assert f'id="{anchor}"' in content and "<dt>Participant</dt><dd>alice</dd>" in content
