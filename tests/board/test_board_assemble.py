"""One assembler: pages built in bulk (the static site, the live board's building ahead) show
what the page built alone on demand shows (the same records, the same bytes), and the live page
and the static page of the same record are the same bytes except their links."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from board_fixtures import wait_built
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store

from openrepro.board import build_board_site, create_app
from openrepro.board.assemble import Records
from openrepro.board.cache import PageCache
from openrepro.board.catalogue import PAGES, live_url, record_pages, static_file
from openrepro.challenge import ChallengeContext
from openrepro.claims.service import add_claim
from openrepro.jobs import run_job, wait_job
from openrepro.outreach import record_response
from openrepro.store import Logbook, Paper, Participant


def _rich(ctx: ChallengeContext) -> None:
    """The outcome store (revisions, teams, an override) plus what a paper list does not show:
    a claim with a check and its edit history, an author response, a participant's job."""
    build_outcome_store(ctx)
    with ctx.store.session() as s:
        paper = s.query(Paper).filter_by(challenge_id=ctx.challenge_id, venue_id="P1-full").one()
        paper.abstract = "Training is 1.9x faster per step than the baseline."
        s.flush()
        view = add_claim(s, ctx.challenge_id, "P1-full", text="Faster.", kind="efficiency",
                         quotes=["Training is 1.9x faster per step"], editor="ana",
                         drafting="rules")  # fmt: skip
        s.commit()
    assert view.check is not None  # the drafter gave it one: the pages must say so
    record_response(ctx, "P4-allfalse/C1", "fixed", version="v3", note="erratum posted")
    job = run_job(ctx, [sys.executable, "-c", "print('hi')"], handle="alice", timeout_s=60,
                  paper="P1-full")  # fmt: skip
    assert wait_job(ctx, job.id, timeout_s=60).status == "completed"


def _ids(ctx: ChallengeContext) -> tuple[list[int], list[str]]:
    with ctx.store.session() as s:
        books = sorted(s.query(Logbook.id).all())
        people = sorted(s.query(Participant.handle).all())
    return [b[0] for b in books], [p[0] for p in people]


def test_records_read_in_bulk_equal_the_records_read_alone(challenge: ChallengeContext) -> None:
    _rich(challenge)
    bulk = Records(challenge)
    books, people = _ids(challenge)
    assert len(bulk.venue_ids()) == 10 and books and people
    for venue_id in bulk.venue_ids():
        alone = Records(challenge, paper=venue_id).paper(venue_id)
        assert bulk.paper(venue_id).model_dump() == alone.model_dump(), venue_id
    checked = bulk.paper("P1-full").claims
    assert any(c.check is not None and c.edits for c in checked)
    for logbook_id in books:
        alone_book = Records(challenge, logbook=logbook_id).logbook(logbook_id)
        assert bulk.logbook(logbook_id).model_dump() == alone_book.model_dump(), logbook_id
    for handle in people:
        alone_person = Records(challenge, participant=handle).participant(handle)
        assert bulk.participant(handle).model_dump() == alone_person.model_dump(), handle
    assert bulk.participant("alice").jobs and bulk.participant("dave").team_confirmed
    assert [r.response for r in bulk.responses("P4-allfalse")] == ["fixed"]


_LINK = re.compile(r'\b(href|src|action)="[^"]*"')


def _unlinked(page: str) -> str:
    """``page`` without its links' targets, and without the link to the API (which only the
    live board has)."""
    return _LINK.sub(r'\1=""', page).replace('<a href="">API</a>', "")


def test_the_live_and_the_static_page_of_a_record_differ_only_in_links(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    _rich(challenge)
    out = tmp_path / "site"
    build_board_site(challenge, out)
    live = TestClient(create_app(challenge, cache_seconds=0))
    pages = list(record_pages(Records(challenge)))
    assert {kind for kind, _ in pages} == {k for k, p in PAGES.items() if p.param}
    for kind, key in pages:
        shown = live.get(live_url(kind, key))
        assert shown.status_code == 200, (kind, key)
        static = (out / static_file(kind, key)).read_text(encoding="utf-8")
        assert _unlinked(shown.text) == _unlinked(static), (kind, key)
        assert shown.text != static or kind == "content"  # links do differ


def test_pages_built_ahead_are_the_pages_built_on_demand(challenge: ChallengeContext) -> None:
    _rich(challenge)
    warm = create_app(challenge, cache_seconds=60, warm=True)
    cache: PageCache = warm.state.cache
    wait_built(cache, 60)
    assert cache.pending() == 0
    cold = TestClient(create_app(challenge, cache_seconds=0))
    urls = {f"{kind}:{key}": live_url(kind, key) for kind, key in record_pages(Records(challenge))}
    for key, path in urls.items():
        ahead = cache.peek(key)
        assert ahead is not None, f"{key} was not built ahead"
        assert ahead == cold.get(path).text, key
    assert cache.warmed >= len(urls)
    page = cache.peek("paper:P1-full")
    assert page is not None and "check: <code>" in page
    cache.close()


def test_the_static_site_shows_checks_jobs_and_teams(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    """The static pages were once built from their own bulk queries, which left out claims'
    checks, participants' jobs and confirmed teams: they now come from the same records."""
    _rich(challenge)
    out = tmp_path / "site"
    build_board_site(challenge, out)
    paper = (out / "papers" / "p" / "P1-full.html").read_text()
    assert "check: <code>" in paper
    live = TestClient(create_app(challenge, cache_seconds=0))
    person = (out / "participants" / "alice.html").read_text()
    assert "completed" in person and "completed" in live.get("/participants/alice").text


def test_a_change_during_a_fill_is_not_stored_stale(challenge: ChallengeContext) -> None:
    """A value whose tags a change touched while the fill ran is queued to be built again
    alone, not stored as the fill built it."""
    cache = PageCache(challenge, seconds=60)
    cache.check()

    def produce():  # type: ignore[no-untyped-def]
        yield "a", lambda tags: "a again", {"paper:1"}, "a from the fill"
        with cache._lock:  # what check() does when it sees a verdict on paper 2
            cache._apply({"paper:2"})
        yield "b", lambda tags: "b again", {"paper:2"}, "b from the fill"
        yield "c", lambda tags: "c again", {"paper:3"}, "c from the fill"

    assert cache.fill(produce(), total=3) == 2
    wait_built(cache, 10, settle=0.05)
    assert cache.peek("a") == "a from the fill"
    assert cache.peek("b") == "b again"  # built alone after the change
    assert cache.peek("c") == "c from the fill"
    cache.close()
