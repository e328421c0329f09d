"""``/auth/login`` and ``/auth/callback``: the board's Hugging Face login (registration policy
``oauth``; see :mod:`openrepro.identity.oauth`). The ``state`` lives in an HttpOnly, SameSite=Lax
cookie; the API token is shown once on a page that is never cached."""

from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from openrepro.challenge import ChallengeContext
from openrepro.identity.oauth import authorize_url, finish_login, new_state

__all__ = ["STATE_COOKIE", "auth_router"]

STATE_COOKIE = "orp_oauth_state"


def _callback_url(ctx: ChallengeContext, request: Request) -> str:
    base = ctx.settings.public_url.rstrip("/") or str(request.base_url).rstrip("/")
    return f"{base}/auth/callback"


def auth_router(ctx: ChallengeContext) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/auth/login")
    def login(request: Request) -> Response:
        state = new_state()
        reply = RedirectResponse(authorize_url(ctx, _callback_url(ctx, request), state), 303)
        reply.set_cookie(STATE_COOKIE, state, max_age=600, httponly=True, samesite="lax",
                         secure=request.url.scheme == "https", path="/auth")  # fmt: skip
        return reply

    @router.get("/auth/callback")
    async def callback(request: Request, code: str = "", state: str = "") -> Response:
        done = await run_in_threadpool(
            finish_login, ctx, code=code, state=state,
            expected_state=request.cookies.get(STATE_COOKIE),
            redirect_uri=_callback_url(ctx, request),
        )  # fmt: skip
        handle = html.escape(done.participant.handle)
        page = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Signed in as {handle}</title></head><body><h1>Signed in as {handle}</h1>"
            "<p>Your API token (shown once; keep it secret):</p>"
            f'<pre id="token">{html.escape(done.token)}</pre></body></html>'
        )
        reply = HTMLResponse(page, headers={"Cache-Control": "no-store"})
        reply.delete_cookie(STATE_COOKIE, path="/auth")
        return reply

    return router
