"""Hostile participants: what a registered (or anonymous) user could do to the live board with
well-formed requests. Each test reproduces one attack against the board and checks it is now
refused or bounded; SQLite and PostgreSQL through the ``challenge`` fixture.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from board_fixtures import tarball
from fastapi.testclient import TestClient
from sqlalchemy import event
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.errors import ConfigError, LogbookError, PermissionDeniedError
from openrepro.identity import Actor, register
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import search_papers, search_terms
from openrepro.papers import service as paper_service
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import MAX_QUERY_TERMS, import_papers

API = "/api/v1"
TEXT = " ".join(["distillation of students and teachers in neural networks"] * 200)


@pytest.fixture
def papers_ctx(challenge: ChallengeContext) -> ChallengeContext:
    records = [
        PaperRecord(venue_id=f"p{i}", title=f"Distillation paper {i}",
                    abstract="Students learn from teachers.", full_text=TEXT)
        for i in range(1, 4)
    ]  # fmt: skip
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    return challenge


@contextmanager
def statements(ctx: ChallengeContext) -> Iterator[list[tuple[str, Any]]]:
    """Every SQL statement (and its parameters) the store runs inside the block."""
    seen: list[tuple[str, Any]] = []
    engine = ctx.store.engine

    def record(conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool) -> None:
        seen.append((sql, params))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


# --- 1. search ---------------------------------------------------------------------------------


def test_search_terms_are_distinct_and_bounded() -> None:
    assert search_terms("loss " * 1_500) == ["loss"]
    assert search_terms("Loss LOSS loss") == ["Loss"]
    many = search_terms(" ".join(f"w{i}" for i in range(1_000)))
    assert len(many) == MAX_QUERY_TERMS
    assert all(len(t) <= 64 for t in search_terms("a" * 10_000))


def test_repeated_word_search_is_one_term_and_lists_have_no_snippets(
    papers_ctx: ChallengeContext,
) -> None:
    """The attack: one word repeated 100-1,500 times on /papers and /api/v1/papers cost FTS5
    snippet() quadratic time. Now the board's lists run no snippet/ts_headline at all and the
    database sees each word once."""
    client = TestClient(create_app(papers_ctx, cache_seconds=0))
    query = " ".join(["distillation"] * 100)
    with statements(papers_ctx) as seen:
        page = client.get("/papers", params={"q": query})
        api = client.get(f"{API}/papers", params={"q": query})
    assert page.status_code == 200 and "Distillation paper 1" in page.text
    assert api.status_code == 200 and api.json()["total"] == 3
    searches = [(sql, p) for sql, p in seen if "papers_fts" in sql or "search_vector @@" in sql]
    assert searches, "no search ran"
    for sql, params in searches:
        assert "snippet(" not in sql and "ts_headline" not in sql, sql
        values = params.values() if isinstance(params, dict) else params
        assert not any(isinstance(v, str) and v.count("distillation") > 1 for v in values), params


def test_an_over_long_query_is_refused_by_the_api(papers_ctx: ChallengeContext) -> None:
    client = TestClient(create_app(papers_ctx, cache_seconds=0))
    reply = client.get(f"{API}/papers", params={"q": "distillation " * 1_500})
    assert reply.status_code == 422, reply.text
    # the HTML page cuts it instead, and still answers
    assert client.get("/papers", params={"q": "distillation " * 1_500}).status_code == 200


def test_a_search_past_its_time_limit_is_stopped(
    papers_ctx: ChallengeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    if papers_ctx.store.dialect != "sqlite":  # statement_timeout: PostgreSQL cancels the query
        with statements(papers_ctx) as seen, papers_ctx.store.session() as session:
            search_papers(session, papers_ctx.challenge_id, "distillation")
        assert any("statement_timeout = 2000" in sql for sql, _ in seen), seen
    monkeypatch.setattr(paper_service, "SEARCH_SECONDS", 0.0)
    if papers_ctx.store.dialect == "sqlite":  # a progress handler interrupts the statement
        with papers_ctx.store.session() as s, pytest.raises(ConfigError, match="was stopped"):
            search_papers(s, papers_ctx.challenge_id, "distillation students teachers")
    monkeypatch.undo()
    with papers_ctx.store.session() as session:  # the store is fine afterwards
        assert len(search_papers(session, papers_ctx.challenge_id, "distillation")) == 3


def test_search_pages_do_not_fill_the_page_cache(papers_ctx: ChallengeContext) -> None:
    app = create_app(papers_ctx, cache_seconds=60)
    client = TestClient(app)
    for i in range(20):
        assert client.get("/papers", params={"q": f"distillation w{i}"}).status_code == 200
        assert client.get(f"{API}/papers", params={"q": f"students w{i}"}).status_code == 200
    # searches cache nothing of their own: only the challenge-wide figures the list pages share
    # (built once, whatever the number of queries) may be in the cache
    keys = set(app.state.cache._pages)
    assert not any("distillation" in k or "students" in k or "q=" in k for k in keys), keys
    assert keys <= {"data:outcomes", "data:pending", "data:authors"}, keys


# --- 3. handle takeover --------------------------------------------------------------------------


def test_a_handle_without_a_token_cannot_be_claimed(
    papers_ctx: ChallengeContext, tmp_path: Path
) -> None:
    """The attack: an organizer submitted for carol (`submit --as carol`), so carol exists with
    no token; an anonymous POST /participants {"handle": "carol"} returned carol's token."""
    submit_logbook(papers_ctx, make_bundle(tmp_path / "b"), handle="carol")
    client = TestClient(create_app(papers_ctx, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "carol"})
    assert reply.status_code == 403, reply.text
    assert "token" not in reply.json()
    with pytest.raises(PermissionDeniedError, match="already registered"):
        register(papers_ctx, "carol", actor=Actor(handle="mallory", role="participant"))
    # an organizer can still issue carol her token
    assert register(papers_ctx, "carol").token


@pytest.mark.parametrize("handle", ["carol\n", "carol\n\n", " carol", "carol\x00"])
def test_handles_with_trailing_newlines_are_refused(
    challenge: ChallengeContext, handle: str
) -> None:
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": handle})
    assert reply.status_code == 400, (handle, reply.text)


# --- low: odd inputs are clear errors, not 500s; files only as what they are -----------------


@pytest.fixture
def stored(papers_ctx: ChallengeContext, tmp_path: Path) -> tuple[TestClient, str, int]:
    """A board with one submitted bundle; its client, mallory's token and the logbook id."""
    report = submit_logbook(papers_ctx, make_bundle(tmp_path / "b"), handle="ada")
    token = register(papers_ctx, "mallory").token
    return TestClient(create_app(papers_ctx, cache_seconds=0)), token, report.logbook_id


def test_huge_ids_are_422_not_500(stored: tuple[TestClient, str, int]) -> None:
    client, token, _ = stored
    big = 2**63
    for url in (f"/logbooks/{big}", f"/logbooks/{big}/content", f"{API}/logbooks/{big}",
                f"{API}/verdicts?logbook={big}", f"/papers?page={10**30}"):  # fmt: skip
        assert client.get(url).status_code == 422, url
    reply = client.post(f"{API}/verdicts/{big}/override", json={"value": "verified", "reason": "x"},
                        headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert reply.status_code == 422


def test_odd_upload_names_and_page_files_are_clear_errors(
    stored: tuple[TestClient, str, int], papers_ctx: ChallengeContext, tmp_path: Path
) -> None:
    client, token, _ = stored
    auth = {"Authorization": f"Bearer {token}"}
    archive = tarball(make_bundle(tmp_path / "n"), tmp_path / "n.tar.gz")
    with archive.open("rb") as fh:
        reply = client.post(f"{API}/logbooks", headers=auth,
                            files={"file": ("a" * 300 + ".tar.gz", fh)})  # fmt: skip
    assert reply.status_code == 422 and "at most 200" in reply.json()["error"]["message"]
    folder = tmp_path / "t" / "project"
    pages = folder / ".trackio" / "logbook" / "pages"
    pages.mkdir(parents=True)
    (pages / "index.md").write_text("# notes\n", encoding="utf-8")
    manifest = {"schema_version": 2, "paper": "p1",
                "root": {"slug": "index", "title": "x", "file": "pages/index\x00.md"}}  # fmt: skip
    (pages.parent / "logbook.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LogbookError, match="must stay in the logbook"):
        submit_logbook(papers_ctx, folder, handle="mallory")
    bundle = make_bundle(tmp_path / "nul", artifacts=[{"path": "fig\x00.png"}])
    with pytest.raises(LogbookError, match="must be relative and stay in the logbook"):
        submit_logbook(papers_ctx, bundle, handle="mallory")
    tgz = tarball(folder.parent, tmp_path / "t.tar.gz")
    with tgz.open("rb") as fh:
        reply = client.post(f"{API}/logbooks", headers=auth, files={"file": ("t.tar.gz", fh)})
    assert reply.status_code == 422, reply.text


def test_files_are_served_only_as_the_images_they_are(
    stored: tuple[TestClient, str, int], papers_ctx: ChallengeContext
) -> None:
    client, _, logbook_id = stored
    with papers_ctx.store.session() as session:
        record = load_logbook(session, papers_ctx.challenge_id, logbook_id)
    by_path = {f.path: f.sha256 for f in record.files}
    figure = client.get(f"/files/{by_path['fig.png']}.png")
    assert figure.status_code == 200 and figure.headers["content-type"] == "image/png"
    # a script, a log and a JSON file are stored too, but are not images
    for path in ("train.py", "logs/seed0.txt", "results/seed0.json"):
        for suffix in (".png", ".jpg", ".gif", ".webp"):
            assert client.get(f"/files/{by_path[path]}{suffix}").status_code == 404, path
    assert client.get(f"/files/{by_path['fig.png']}.jpg").status_code == 404  # not a JPEG


def test_api_docs_load_their_assets_from_the_board_itself(papers_ctx: ChallengeContext) -> None:
    """Swagger UI comes from the packaged copy (fastapi-offline), never from a CDN: the docs
    work offline, and the page's policy allows no other host."""
    client = TestClient(create_app(papers_ctx, cache_seconds=0))
    page = client.get("/api/docs")
    assert page.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sorted(assets) == ["/api/docs/assets/swagger-ui-bundle.js",
                              "/api/docs/assets/swagger-ui.css"]  # fmt: skip
    for url in assets:
        served = client.get(url)
        assert served.status_code == 200 and len(served.content) > 10_000, url
    assert b"SwaggerUIBundle" in client.get(assets[0] if assets[0].endswith(".js")
                                            else assets[1]).content  # fmt: skip
    assert client.get("/api/docs/assets/..%2F..%2Fopenapi.json").status_code == 404
    assert client.get("/api/docs/assets/index.html").status_code == 404
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "'unsafe-eval'" not in csp
    assert "http" not in csp  # no other host
    assert client.get("/api/openapi.json").status_code == 200
