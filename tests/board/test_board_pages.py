"""The board's HTML pages: content, filters, security headers, hostile content, caching."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from board_fixtures import HOSTILE, hostile_bundle
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store
from sqlalchemy import select

from openrepro.board import create_app
from openrepro.board.pages import share
from openrepro.challenge import ChallengeContext
from openrepro.logbooks.submit import submit_logbook
from openrepro.outcomes import compute_stats, override_verdict, paper_outcomes
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Paper

PAGES = ["/", "/papers", "/papers/P5-contested", "/participants/alice", "/leaderboard", "/stats"]


@pytest.fixture
def board(challenge: ChallengeContext) -> TestClient:
    build_outcome_store(challenge)
    return TestClient(create_app(challenge, cache_seconds=0))


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_with_strict_headers(board: TestClient, path: str) -> None:
    reply = board.get(path)
    assert reply.status_code == 200
    assert reply.headers["x-content-type-options"] == "nosniff"
    csp = reply.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp
    assert "<script" not in reply.text


def test_home_shows_the_outcome_rows_and_charts(board: TestClient) -> None:
    page = board.get("/").text
    table = page.split('id="outcomes"')[1].split("</table>")[0]
    counts = dict(re.findall(r"<td>([^<]+)</td><td class=\"num\">(\d+)</td>", table))
    assert counts["Contested (independent teams reached opposite verdicts on a claim)"] == "1"
    assert counts["Fully reproduced (every claim verified)"] == "2"
    assert page.count("<svg") == 4


def test_paper_list_filters(board: TestClient) -> None:
    def listed(query: str) -> list[str]:
        page = board.get(f"/papers{query}").text
        return re.findall(r'<span class="muted">([^<]+)</span></td>', page)

    assert listed("?status=contested") == ["P5-contested"]
    assert listed("?status=unattempted") == ["P8-unattempted"]
    assert set(listed("?status=needs-recheck")) == {"P3-mixed", "P4-allfalse", "P5-contested"}
    assert len(listed("")) == 10
    assert board.get("/papers?status=bogus").status_code == 404


def test_paper_page_matrix_links_to_evidence(board: TestClient) -> None:
    page = board.get("/papers/P5-contested").text
    matrix = page.split('id="matrix"')[1].split("</table>")[0]
    assert 'class="v-contested">contested' in matrix
    assert matrix.count('class="v-verified"') == 1 and matrix.count('class="v-falsified"') == 1
    assert re.search(r'href="/logbooks/\d+#verdict-C1"', matrix)


def test_override_is_visible_after_the_cache_notices(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    board = TestClient(create_app(challenge, cache_seconds=0.05))
    before = board.get("/papers/P4-allfalse").text
    assert 'id="outcome">all falsified' in before
    cell = next(c for c in board.get("/api/v1/verdicts?paper=P4-allfalse").json())
    override_verdict(challenge, cell["verdict_id"], "inconclusive", reason="bad units")
    import time

    time.sleep(0.1)
    after = board.get("/papers/P4-allfalse").text
    assert 'id="outcome">falsified' in after and "edited" in after


def test_hostile_logbook_is_inert(challenge: ChallengeContext, tmp_path: Path) -> None:
    records = [PaperRecord(venue_id="p1", title=f"Paper {HOSTILE}", abstract=HOSTILE)]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    report = submit_logbook(challenge, hostile_bundle(tmp_path / "b"), handle="mallory")
    board = TestClient(create_app(challenge, cache_seconds=0))
    for path in (f"/logbooks/{report.logbook_id}", "/papers/p1", "/participants/mallory",
                 "/papers"):  # fmt: skip
        page = board.get(path).text
        assert "<script" not in page and "onerror=" not in page.replace("onerror=&#34;", "")
        assert "&lt;script&gt;" in page or path == "/participants/mallory"
    content = board.get(f"/logbooks/{report.logbook_id}/content")
    assert content.headers["content-security-policy"].startswith("default-src 'none'")
    assert "<script" not in content.text, content.text[content.text.find("<script") - 200 :][:400]
    assert not re.search(r"(?:href|src)=[\"']?javascript:", content.text)
    assert 'sandbox="allow-same-origin"' in board.get(f"/logbooks/{report.logbook_id}").text


def test_files_are_served_only_by_hash_and_only_images(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    records = [PaperRecord(venue_id="p1", title="Paper")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    from test_bundle import make_bundle

    report = submit_logbook(challenge, make_bundle(tmp_path / "b"), handle="ada")
    board = TestClient(create_app(challenge, cache_seconds=0))
    content = board.get(f"/logbooks/{report.logbook_id}/content").text
    (image,) = re.findall(r'src="(/files/[0-9a-f]{64}\.png)"', content)
    reply = board.get(image)
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/png"
    assert reply.content.startswith(b"\x89PNG")
    assert board.get("/files/..%2F..%2Fopenrepro.toml").status_code == 404
    assert board.get("/files/" + "0" * 64 + ".svg").status_code == 404
    assert board.get("/files/" + "0" * 64 + ".png").status_code == 404


def test_the_stats_page_prints_the_outcome_rows(
    board: TestClient, challenge: ChallengeContext
) -> None:
    page = board.get("/stats").text
    stats = compute_stats(challenge, public=True)
    for row in stats.rows:
        shown = re.search(
            rf'<tr data-key="{row.key}"><td>[^<]*</td><td class="num">(\d+)</td>', page
        )
        assert shown is not None and int(shown.group(1)) == row.count, row.key
    for key, n in stats.verdicts.items():
        assert f'<td class="v-{key}">{key}</td><td class="num">{n}</td>' in page
    assert 'href="/stats"' in board.get("/").text  # in the navigation


@pytest.mark.parametrize(
    ("percent", "shown"),
    [
        (0.0, "0 %"),
        (100 / 3340, "< 0.1 %"),
        (12.345, "12.3 %"),
        (99.97, "> 99.9 %"),
        (100, "100 %"),
    ],
)
def test_shares_never_read_as_none(percent: float, shown: str) -> None:
    assert share(percent) == shown


def test_the_paper_list_sorts_filters_and_finds_authors(
    board: TestClient, challenge: ChallengeContext
) -> None:
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "P3-mixed"))
        assert paper is not None
        paper.authors = ["Ada Lovelace", "Alan Turing"]
    listed = board.get("/papers").text
    assert "Ada Lovelace, Alan Turing" in listed  # authors beside the title

    def order(path: str) -> list[str]:
        return re.findall(r'<span class="muted">(P\d+-[a-z]+)', board.get(path).text)

    assert order("/papers") == sorted(order("/papers"))
    rows = {o.paper: o for o in paper_outcomes(challenge, public=True)}
    by_logbooks = order("/papers?sort=logbooks")
    counts = [rows[v].logbooks for v in by_logbooks]
    assert counts == sorted(counts, reverse=True) and len(by_logbooks) == len(rows)
    titles = [rows[v].title.casefold() for v in order("/papers?sort=title")]
    assert titles == sorted(titles)
    with_claims = order("/papers?status=has-claims")
    assert set(with_claims) == {v for v, o in rows.items() if o.claims > 0}
    assert order("/papers?author=turing") == ["P3-mixed"]  # part of a name, any case
    assert order("/papers?author=turing&status=unattempted") == []
    assert board.get("/papers?sort=bogus").status_code == 404


def test_a_paper_page_links_the_paper_and_gives_the_pull_command(
    board: TestClient, challenge: ChallengeContext
) -> None:
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "P1-full"))
        assert paper is not None
        paper.site_url = "https://openreview.net/forum?id=P1-full"
        paper.pdf_url = "javascript:alert(1)"  # never a link
        paper.arxiv_id = "2101.00001v2"
    page = board.get("/papers/P1-full").text
    links = dict(re.findall(r'<a href="([^"]+)" rel="noopener noreferrer" data-link="([^"]+)">',
                            page))  # fmt: skip
    assert links == {"https://openreview.net/forum?id=P1-full": "venue page",
                     "https://arxiv.org/abs/2101.00001v2": "arXiv"}  # fmt: skip
    assert "javascript:" not in page
    assert "openrepro pull P1-full --server URL --dir P1-full" in page  # no public_url set
    assert "openrepro checks set" not in page and "(organizers)" not in page
    challenge.settings.public_url = "https://repro.example.org/"
    again = TestClient(create_app(challenge, cache_seconds=0)).get("/papers/P1-full").text
    assert "openrepro pull P1-full --server https://repro.example.org --dir P1-full" in again
