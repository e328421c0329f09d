"""The Hugging Face login (registration policy ``oauth``) against a local stand-in provider.

Hugging Face's OAuth endpoints cannot be reached from the tests, so a small FastAPI app on
127.0.0.1 speaks the same HTTP API (``/oauth/authorize`` redirecting back with a code,
``/oauth/token`` checking the client's Basic credentials and the code, ``/oauth/userinfo``
answering for the access token); the board's real client code talks to it over HTTP.
"""

from __future__ import annotations

import base64
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Form, Header, HTTPException
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.testclient import TestClient

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.identity import get_participant, register

CLIENT_ID, CLIENT_SECRET = "app-123", "s3cret"


def provider(users: dict[str, str]) -> FastAPI:
    """``users``: the username each authorization code signs in (set by the test)."""
    app = FastAPI()
    codes: dict[str, str] = {}
    tokens: dict[str, str] = {}

    @app.get("/oauth/authorize")
    def authorize(client_id: str, redirect_uri: str, state: str, scope: str,
                  response_type: str) -> RedirectResponse:  # fmt: skip
        assert client_id == CLIENT_ID and response_type == "code" and "openid" in scope
        code = secrets.token_urlsafe(8)
        codes[code] = users["next"]
        return RedirectResponse(f"{redirect_uri}?code={code}&state={state}", 302)

    @app.post("/oauth/token")
    def token(code: str = Form(...), grant_type: str = Form(...),
              authorization: str = Header("")) -> JSONResponse:  # fmt: skip
        expected = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if authorization != f"Basic {expected}" or grant_type != "authorization_code":
            raise HTTPException(401)
        user = codes.pop(code, None)  # a code works once
        if user is None:
            raise HTTPException(400)
        access = secrets.token_urlsafe(8)
        tokens[access] = user
        return JSONResponse({"access_token": access, "token_type": "bearer"})

    @app.get("/oauth/userinfo")
    def userinfo(authorization: str = Header("")) -> JSONResponse:
        user = tokens.get(authorization.removeprefix("Bearer "))
        if user is None:
            raise HTTPException(401)
        return JSONResponse({"sub": f"id-{user}", "preferred_username": user, "name": user.title()})

    return app


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def login(challenge: ChallengeContext) -> Iterator[tuple[TestClient, dict[str, str]]]:
    users = {"next": "ada"}
    with serve(provider(users)) as url:
        challenge.settings.registration = "oauth"
        challenge.settings.oauth_url = url
        challenge.settings.oauth_client_id = CLIENT_ID
        challenge.settings.oauth_client_secret = CLIENT_SECRET
        yield TestClient(create_app(challenge, cache_seconds=0)), users


def _sign_in(board: TestClient) -> httpx.Response:
    start = board.get("/auth/login", follow_redirects=False)
    assert start.status_code == 303
    at_provider = httpx.get(start.headers["location"], follow_redirects=False)
    assert at_provider.status_code == 302
    back = urlsplit(at_provider.headers["location"])
    assert back.path == "/auth/callback"
    return board.get(f"/auth/callback?{back.query}")


def test_login_registers_the_verified_username(
    login: tuple[TestClient, dict[str, str]], challenge: ChallengeContext
) -> None:
    board, _ = login
    page = _sign_in(board)
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    token = page.text.split('<pre id="token">')[1].split("</pre>")[0]
    me = board.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["handle"] == "ada"
    assert get_participant(challenge, "ada").identity_source == "hf-oauth"
    # signing in again gives ada a new token; the old one stops working
    again = _sign_in(board).text.split('<pre id="token">')[1].split("</pre>")[0]
    assert again != token
    assert board.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    # plain registration stays closed under this policy
    assert board.post("/api/v1/participants", json={"handle": "puppet"}).status_code == 403


def test_a_forged_or_replayed_callback_signs_nobody_in(
    login: tuple[TestClient, dict[str, str]],
) -> None:
    board, _ = login
    start = board.get("/auth/login", follow_redirects=False)
    at_provider = httpx.get(start.headers["location"], follow_redirects=False)
    query = parse_qs(urlsplit(at_provider.headers["location"]).query)
    code = query["code"][0]
    # login CSRF: an attacker's code and state in the victim's browser (no matching cookie)
    fresh = TestClient(board.app)
    assert fresh.get(f"/auth/callback?code={code}&state={query['state'][0]}").status_code == 401
    # a wrong state with the right cookie
    assert board.get(f"/auth/callback?code={code}&state=guess").status_code == 401
    # a made-up code
    reply = board.get(f"/auth/callback?code=made-up&state={query['state'][0]}")
    assert reply.status_code == 401
    # without the oauth policy there is no login
    board.app.state.ctx.settings.registration = "open"
    assert board.get("/auth/login", follow_redirects=False).status_code == 404


def test_a_login_never_takes_over_a_handle_it_does_not_own(
    login: tuple[TestClient, dict[str, str]], challenge: ChallengeContext
) -> None:
    """Before: an HF account whose username equalled an existing handle (an organizer's
    included) got that handle's token with its role, and the holder's token was revoked."""
    board, users = login
    boss = register(challenge, "boss", role="organizer")
    carol = register(challenge, "carol")  # registered by an organizer, not through the login
    for name in ("boss", "carol", "Carol", "BOSS"):
        users["next"] = name
        page = _sign_in(board)
        assert page.status_code == 401, name
        assert "not linked to this Hugging Face login" in page.text
    for holder in (boss, carol):  # the holders' tokens still work, with their own roles
        me = board.get("/api/v1/me", headers={"Authorization": f"Bearer {holder.token}"}).json()
        assert me["handle"] == holder.participant.handle
        assert me["role"] == holder.participant.role
    # an account registered through the login is not taken over by a case variant either
    users["next"] = "ada"
    assert _sign_in(board).status_code == 200
    users["next"] = "ADA"
    assert _sign_in(board).status_code == 401
