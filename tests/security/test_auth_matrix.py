"""The API's auth matrix: every route of ``/api/v1`` x {anonymous, participant A, participant B,
organizer} with the status each must get, on SQLite and PostgreSQL.

The routes are enumerated from ``app.routes``: a new route without a row here fails
:func:`test_every_api_route_has_a_row`. Verdicts sit inside their anti-herding window
(``verdict_window_hours``), so only the organizer may see them. Rows run in order on one store;
``/freeze`` goes last since it makes the challenge read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from board_fixtures import tarball
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from httpx import Response
from outcome_store import build_outcome_store
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.identity import Actor, register, rotate_token
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Claim, ClaimEdit, Logbook, Paper, Participant, Verdict, VerdictEdit

API = "/api/v1"
ROLES = ("anonymous", "alice", "bob", "boss")  # participant A, participant B, organizer


def api_routes(routes: list[Any], prefix: str = "") -> set[tuple[str, str]]:
    """``(method, path)`` of every API route, through included routers of any FastAPI version."""
    found: set[tuple[str, str]] = set()
    for route in routes:
        if isinstance(route, APIRoute):
            found |= {(m, prefix + route.path) for m in route.methods if m != "HEAD"}
        elif hasattr(route, "original_router"):  # FastAPI >= 0.16x keeps included routers
            inner = prefix + route.include_context.prefix
            found |= api_routes(list(route.original_router.routes), inner)
        elif hasattr(route, "routes"):  # a mounted sub-application or router
            found |= api_routes(list(route.routes), prefix + getattr(route, "path", ""))
    return {(m, p) for m, p in found if p.startswith(API)}


@dataclass
class World:
    """The store under test and the tokens of the four roles."""

    ctx: ChallengeContext
    client: TestClient
    tokens: dict[str, str | None]
    archive: Path
    alice_verdict: int  # a verdict on one of alice's own logbooks
    logbook: int
    notes: list[str] = field(default_factory=list)

    def call(self, role: str, method: str, url: str, **kwargs: Any) -> Response:
        token = self.tokens[role]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if "upload" in kwargs:
            form = kwargs.pop("upload")
            with self.archive.open("rb") as fh:
                files = {"file": ("logbook.tar.gz", fh, "application/gzip")}
                return self.client.request(
                    method, url, headers=headers, files=files, data=form, **kwargs
                )
        return self.client.request(method, url, headers=headers, **kwargs)


@dataclass(frozen=True)
class Row:
    """One request sent by each role; ``expect`` the status per role; ``check`` more."""

    method: str
    route: str  # the route's path as in app.routes
    url: Callable[[World], str]
    expect: dict[str, int]
    kwargs: Callable[[World, str], dict[str, Any]] = lambda w, role: {}
    check: Callable[[World, str, Response], None] | None = None


def _only_own_logbooks(role: str, reply: Response) -> None:
    body = reply.json()
    assert body["handle"] == role, body
    assert all(book["logbook_id"] for book in body["logbooks"])


def _all(status: int) -> dict[str, int]:
    return dict.fromkeys(ROLES, status)


ORGANIZER_ONLY = {"anonymous": 401, "alice": 403, "bob": 403, "boss": 200}


def _no_verdicts_unless_organizer(world: World, role: str, reply: Response) -> None:
    body = reply.json()
    verdicts = body if isinstance(body, list) else body["verdicts"]
    if role == "boss":
        assert verdicts, "the organizer sees verdicts inside their window"
    else:
        assert verdicts == [], f"{role} read verdicts inside their window"


def _stats_hidden(world: World, role: str, reply: Response) -> None:
    examined = {r["key"]: r["count"] for r in reply.json()["rows"]}["examined"]
    assert (examined > 0) == (role == "boss"), (role, examined)


def _me(world: World, role: str, reply: Response) -> None:
    body = reply.json()
    assert body["handle"] == ("" if role == "anonymous" else role)
    assert body["role"] == {"anonymous": "anonymous", "boss": "organizer"}.get(role, "participant")


def _submitted_as_alice(world: World, role: str, reply: Response) -> None:
    if reply.status_code == 201:
        assert reply.json()["participant"] == "alice"


def _override_body(world: World, role: str) -> dict[str, Any]:
    return {"json": {"value": "verified", "reason": f"{role} says so"}}


def _registration(world: World, role: str) -> dict[str, Any]:
    # only an organizer may create an organizer
    return {"json": {"handle": f"new-{role}", "role": "organizer"}}


def assert_no_secret(reply: Response) -> None:
    text = reply.text
    assert "token_hash" not in text and "orp_" not in text and "email" not in text


def _no_verdicts_unless_organizer_or_public(world: World, role: str, reply: Response) -> None:
    # the logbook page's verdicts are the public ones, for everyone (the window hides them)
    assert reply.json()["verdicts"] == [], f"{role} read verdicts inside their window"


ROWS: list[Row] = [
    Row("GET", "/papers", lambda w: f"{API}/papers", _all(200)),
    Row("GET", "/papers/{venue_id:path}", lambda w: f"{API}/papers/P1-full", _all(200),
        check=_no_verdicts_unless_organizer),
    Row("GET", "/papers/{venue_id:path}/workspace", lambda w: f"{API}/papers/p1/workspace",
        _all(200)),
    Row("GET", "/participants/{handle}", lambda w: f"{API}/participants/alice", _all(200),
        check=lambda w, role, r: assert_no_secret(r)),
    Row("GET", "/me", lambda w: f"{API}/me", _all(200), check=_me),
    Row("GET", "/logbooks/{logbook_id}", lambda w: f"{API}/logbooks/{w.logbook}", _all(200),
        check=_no_verdicts_unless_organizer_or_public),
    Row("GET", "/verdicts", lambda w: f"{API}/verdicts", _all(200),
        check=_no_verdicts_unless_organizer),
    Row("GET", "/verdicts", lambda w: f"{API}/verdicts?participant=alice", _all(200),
        check=_no_verdicts_unless_organizer),
    Row("GET", "/stats", lambda w: f"{API}/stats", _all(200), check=_stats_hidden),
    Row("POST", "/participants", lambda w: f"{API}/participants",
        {"anonymous": 403, "alice": 403, "bob": 403, "boss": 201}, kwargs=_registration),
    Row("POST", "/participants/{handle}/approve", lambda w: f"{API}/participants/alice/approve",
        ORGANIZER_ONLY),
    # gail named team t1 herself: only a confirmed member of t1 (dave, erin) or an organizer
    Row("POST", "/participants/{handle}/confirm-team",
        lambda w: f"{API}/participants/gail/confirm-team", ORGANIZER_ONLY),
    Row("POST", "/invites", lambda w: f"{API}/invites",
        {"anonymous": 401, "alice": 403, "bob": 403, "boss": 201},
        kwargs=lambda w, role: {"json": {"uses": 1}}),
    # participants submit only as themselves; the organizer may submit for anyone
    Row("POST", "/logbooks", lambda w: f"{API}/logbooks",
        {"anonymous": 401, "alice": 201, "bob": 403, "boss": 201},
        kwargs=lambda w, role: {"upload": {"as": "alice"}}, check=_submitted_as_alice),
    Row("POST", "/verdicts/{verdict_id}/override",
        lambda w: f"{API}/verdicts/{w.alice_verdict}/override", ORGANIZER_ONLY,
        kwargs=_override_body),
    Row("POST", "/claims/{claim_id:path}/edit", lambda w: f"{API}/claims/P1-full/C1/edit",
        ORGANIZER_ONLY, kwargs=lambda w, role: {"json": {"reason": role, "text": f"by {role}"}}),
    # a participant's own logbooks: a token required, each sees only their own
    Row("GET", "/me/logbooks", lambda w: f"{API}/me/logbooks",
        {"anonymous": 401, "alice": 200, "bob": 200, "boss": 200},
        check=lambda w, role, r: None if role == "anonymous" else _only_own_logbooks(role, r)),
    Row("GET", "/claims/{claim_id:path}/proposals", lambda w: f"{API}/claims/P1-full/C1/proposals",
        _all(200)),
    # the role is checked before the proposal is looked up: a participant learns nothing
    Row("POST", "/proposals/{proposal_id}/accept", lambda w: f"{API}/proposals/999999/accept",
        {"anonymous": 401, "alice": 403, "bob": 403, "boss": 404}),
    # the judge queue's figures and failures (their reasons name logbooks): organizers only
    Row("GET", "/queue", lambda w: f"{API}/queue", ORGANIZER_ONLY),
    Row("POST", "/freeze", lambda w: f"{API}/freeze", ORGANIZER_ONLY),
]  # fmt: skip


@pytest.fixture
def world(challenge: ChallengeContext, tmp_path: Path) -> Iterator[World]:
    build_outcome_store(challenge)
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="Paper one")], source="test")  # fmt: skip
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "p1"))
        assert paper is not None
        session.add(Claim(paper_id=paper.id, key="C1", text="accuracy is 0.87", kind="result"))
        alice_verdict, logbook = session.execute(
            select(Verdict.id, Logbook.id)
            .join(Logbook, Logbook.id == Verdict.logbook_id)
            .join(Participant, Participant.id == Logbook.participant_id)
            .where(Participant.handle == "alice")
        ).first() or (0, 0)
    assert alice_verdict
    challenge.settings.verdict_window_hours = 24 * 365 * 100  # every verdict still private
    tokens: dict[str, str | None] = {"anonymous": None}
    for handle in ("alice", "bob"):
        tokens[handle] = register(challenge, handle).token
    tokens["boss"] = register(challenge, "boss", role="organizer").token
    register(challenge, "gail", team="t1", actor=Actor(handle="gail", role="participant"))
    archive = tarball(make_bundle(tmp_path / "bundle"), tmp_path / "logbook.tar.gz")
    client = TestClient(create_app(challenge, cache_seconds=0))
    yield World(challenge, client, tokens, archive, alice_verdict, logbook)


def _counts(ctx: ChallengeContext) -> dict[str, int]:
    with ctx.store.session() as session:
        return {
            model.__name__: int(session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (Logbook, VerdictEdit, ClaimEdit, Participant)
        }


def test_every_api_route_has_a_row(world: World) -> None:
    routes = api_routes(list(world.client.app.routes))  # type: ignore[attr-defined]
    rows = {(r.method, API + r.route) for r in ROWS}
    assert len(routes) >= 13, routes
    assert routes - rows == set(), "API routes without a row in the auth matrix"
    assert rows - routes == set(), "rows for routes that no longer exist"
    spec = world.client.get("/api/openapi.json").json()["paths"]
    documented = {(m.upper(), p) for p, ops in spec.items() for m in ops}
    shown = {(m, p.replace(":path}", "}")) for m, p in routes}
    assert documented == shown


def test_auth_matrix(world: World) -> None:
    failures: list[str] = []
    for row in ROWS:
        for role in ROLES:
            before = _counts(world.ctx)
            reply = world.call(role, row.method, row.url(world), **row.kwargs(world, role))
            expected = row.expect[role]
            if reply.status_code != expected:
                got = f"{reply.status_code} != {expected}: {reply.text[:200]}"
                failures.append(f"{row.method} {row.url(world)} as {role}: {got}")
                continue
            if expected in (401, 403):
                error = reply.json()["error"]
                assert error["type"] == {401: "AuthError", 403: "PermissionDeniedError"}[expected]
                assert _counts(world.ctx) == before, f"a refused {row.method} changed the store"
            if row.check is not None:
                row.check(world, role, reply)
    assert failures == [], "\n".join(failures)
    # what the refused writes did not do: alice's verdict keeps the judge's value until the
    # organizer's override; the claim text is the organizer's; the challenge is frozen
    with world.ctx.store.session() as session:
        edits = session.scalars(select(VerdictEdit.reason)).all()
        claim_edits = session.scalars(select(ClaimEdit.reason)).all()
        handles = set(session.scalars(select(Participant.handle)))
        owners = session.scalars(
            select(Participant.handle).join(Logbook, Logbook.participant_id == Participant.id)
            .join(Paper, Paper.id == Logbook.paper_id).where(Paper.venue_id == "p1")
        ).all()  # fmt: skip
    assert [e for e in edits if "says so" in e] == ["boss says so"]
    assert [e for e in claim_edits if e in ROLES] == ["boss"]
    assert {"new-anonymous", "new-alice", "new-bob"}.isdisjoint(handles)
    assert "new-boss" in handles
    assert set(owners) == {"alice"}
    frozen = world.call("boss", "POST", f"{API}/verdicts/{world.alice_verdict}/override",
                        json={"value": "toy", "reason": "late"})  # fmt: skip
    assert frozen.status_code == 409


def test_participant_cannot_act_for_another_in_any_form(world: World) -> None:
    """Impersonation through the form field, the manifest and role escalation all fail."""
    # the bundle's manifest says participant "ada": the token wins, not the manifest
    reply = world.call("bob", "POST", f"{API}/logbooks", upload={})
    assert reply.status_code == 201 and reply.json()["participant"] == "bob"
    for target in ("alice", "boss", "ada", "ALICE", "alice ", "../alice"):
        refused = world.call("bob", "POST", f"{API}/logbooks", upload={"as": target})
        assert refused.status_code == 403, (target, refused.text)
    # re-registering someone else's handle (to get a token for it) is refused
    for handle in ("alice", "boss"):
        again = world.call("bob", "POST", f"{API}/participants", json={"handle": handle})
        assert again.status_code == 403
        again = world.call("anonymous", "POST", f"{API}/participants", json={"handle": handle})
        assert again.status_code == 403
    assert world.call("alice", "GET", f"{API}/me").json()["handle"] == "alice"  # token intact
    assert world.call("boss", "GET", f"{API}/me").json()["role"] == "organizer"


def test_rotated_token_stops_working(world: World) -> None:
    old = world.tokens["alice"]
    assert world.call("alice", "GET", f"{API}/me").status_code == 200
    new = rotate_token(world.ctx, "alice")
    reply = world.call("alice", "GET", f"{API}/me")
    assert reply.status_code == 401 and reply.json()["error"]["type"] == "AuthError"
    assert world.call("alice", "POST", f"{API}/logbooks", upload={}).status_code == 401
    world.tokens["alice"] = new
    assert world.call("alice", "GET", f"{API}/me").json()["handle"] == "alice"
    # an organizer re-registering a handle revokes its token the same way
    reissued = world.call("boss", "POST", f"{API}/participants", json={"handle": "alice"})
    assert reissued.status_code == 201
    assert world.call("alice", "GET", f"{API}/me").status_code == 401
    world.tokens["alice"] = reissued.json()["token"]
    assert world.call("alice", "GET", f"{API}/me").status_code == 200
    assert old not in (new, world.tokens["alice"])


MALFORMED = [
    "Bearer",
    "Bearer ",
    "Bearer    ",
    "Basic YWxpY2U6c2VjcmV0",
    "Token orp_abc",
    "orp_abc",
    "Bearer orp_abc",
    "Bearer orp_abc extra",
    "Bearer\torp_abc",
    "Bearer ' OR 1=1 --",
    "Bearer " + "A" * 10_000,
    "Bearer %00",
]


def test_malformed_authorization_is_401(world: World) -> None:
    boss = world.tokens["boss"]
    assert boss is not None
    for header in MALFORMED:
        for method, url in (("GET", f"{API}/me"), ("POST", f"{API}/freeze")):
            reply = world.client.request(method, url, headers={"Authorization": header})
            assert reply.status_code == 401, (header[:40], reply.text)
            assert reply.json()["error"]["type"] == "AuthError"
    # a valid token with a wrong scheme or glued to its scheme is not accepted either
    for bad in (f"Basic {boss}", f"Bearer{boss}", boss, f"Bearer {boss}x", f"Bearer {boss[:-1]}"):
        assert world.client.get(f"{API}/me", headers={"Authorization": bad}).status_code == 401
    assert (
        world.client.get(f"{API}/me", headers={"Authorization": f"bearer {boss}"}).json()["role"]
        == "organizer"
    )
