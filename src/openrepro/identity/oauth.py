"""Identities from a Hugging Face login (OAuth 2 authorization code flow; registration policy
``oauth``).

The board sends the browser to ``{oauth_url}/oauth/authorize`` with a random ``state`` that it
also keeps in a cookie; the provider sends it back to ``/auth/callback`` with a ``code``, which the
board exchanges at ``{oauth_url}/oauth/token`` (client id and secret, HTTP Basic) for an access
token, and reads the user at ``{oauth_url}/oauth/userinfo``. The handle is the provider's
``preferred_username`` (the HF username): verified, so the login registers it when it is new.
A login reaches an existing handle only when that handle is this login's own: registered
through this login (``identity_source == "hf-oauth"``, the same username, any case folded the
same) and a participant. A handle registered any other way (by an organizer, under ``open`` or
``invite``), an organizer's above all, is refused: a Hugging Face account whose username
happens to equal it gets nothing, and the holder's token stays valid. A login never grants a
role. Nothing from the browser but the ``code`` is trusted, and the ``state`` must match the
cookie (no login CSRF).
"""

from __future__ import annotations

import secrets
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel

from openrepro.challenge import ChallengeContext
from openrepro.errors import AuthError, ConfigError, NotFoundError
from openrepro.identity.service import (
    Actor,
    Registration,
    find_folded,
    get_participant,
    register,
    rotate_token,
)

__all__ = ["OAuthUser", "authorize_url", "finish_login", "new_state", "oauth_configured"]

SCOPES = "openid profile"
TIMEOUT_S = 10.0


class OAuthUser(BaseModel):
    username: str
    name: str = ""


def oauth_configured(ctx: ChallengeContext) -> bool:
    s = ctx.settings
    return s.registration == "oauth" and bool(s.oauth_client_id and s.oauth_client_secret)


def _require(ctx: ChallengeContext) -> None:
    if not oauth_configured(ctx):
        raise NotFoundError("this challenge has no Hugging Face login (registration `oauth`)")


def new_state() -> str:
    return secrets.token_urlsafe(24)


def authorize_url(ctx: ChallengeContext, redirect_uri: str, state: str) -> str:
    """Where the browser signs in."""
    _require(ctx)
    query = urlencode({"client_id": ctx.settings.oauth_client_id, "redirect_uri": redirect_uri,
                       "scope": SCOPES, "state": state, "response_type": "code"})  # fmt: skip
    return f"{ctx.settings.oauth_url.rstrip('/')}/oauth/authorize?{query}"


def _user(ctx: ChallengeContext, code: str, redirect_uri: str) -> OAuthUser:
    base = ctx.settings.oauth_url.rstrip("/")
    auth = (ctx.settings.oauth_client_id, ctx.settings.oauth_client_secret)
    try:
        with httpx.Client(timeout=TIMEOUT_S, follow_redirects=False) as client:
            reply = client.post(f"{base}/oauth/token", auth=auth,
                                data={"grant_type": "authorization_code", "code": code,
                                      "redirect_uri": redirect_uri,
                                      "client_id": ctx.settings.oauth_client_id})  # fmt: skip
            if reply.status_code != 200:
                raise AuthError(f"the login was refused by the provider ({reply.status_code})")
            access = reply.json().get("access_token")
            if not isinstance(access, str) or not access:
                raise AuthError("the provider gave no access token")
            info = client.get(f"{base}/oauth/userinfo",
                              headers={"Authorization": f"Bearer {access}"})  # fmt: skip
            if info.status_code != 200:
                raise AuthError(f"the provider did not say who signed in ({info.status_code})")
            data = info.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise AuthError(f"cannot reach the login provider ({type(exc).__name__})") from exc
    username = data.get("preferred_username")
    if not isinstance(username, str) or not username:
        raise AuthError("the provider's answer has no username")
    name = data.get("name")
    return OAuthUser(username=username, name=name if isinstance(name, str) else "")


def finish_login(
    ctx: ChallengeContext, *, code: str, state: str, expected_state: str | None, redirect_uri: str
) -> Registration:
    """Check ``state``, exchange ``code``, and register (or re-issue a token to) the user."""
    _require(ctx)
    if not expected_state or not secrets.compare_digest(state, expected_state):
        raise AuthError("the login's state does not match: start again from /auth/login")
    if not code:
        raise ConfigError("the provider sent no code")
    user = _user(ctx, code, redirect_uri)
    with ctx.store.session() as session:
        existing = find_folded(session, ctx, user.username)
        linked = existing is not None and (
            existing.identity_source == "hf-oauth" and existing.handle == user.username
        )
        role = existing.role if existing is not None else "participant"
    if existing is None:
        return register(ctx, user.username, name=user.name, actor=Actor(),
                        identity_source="hf-oauth")  # fmt: skip
    if not linked or role != "participant":
        raise AuthError(
            f"the handle {existing.handle!r} exists and is not linked to this Hugging Face "
            "login; ask an organizer if it is yours"
        )
    token = rotate_token(ctx, user.username, actor=Actor(handle=user.username, role="participant"))
    return Registration(participant=get_participant(ctx, user.username), token=token)
