"""Request limits of the board, enforced before a route reads anything.

:class:`RequestGuard` is a pure ASGI middleware (``openrepro serve`` and
``openrepro.board.asgi:app`` both get it through :func:`~openrepro.board.web.create_app`):

- a body larger than ``request_max_bytes`` (a logbook upload: ``archive_max_bytes`` plus the
  multipart framing) is refused with 413: by its ``Content-Length`` before a byte is read, or as
  soon as a chunked body passes the cap;
- a logbook upload needs a valid ``Bearer`` token before its body is read (401 otherwise), so an
  anonymous or forged request never makes the server spool an archive to disk;
- a client that sends no piece of its body for ``client_timeout_s`` gets 408, and a request that
  takes longer than ``request_timeout_s`` gets 503 (when no answer has started yet); its work is
  cancelled, including statements running in a worker thread (the store's deadline,
  :func:`openrepro.store.db.deadline`, interrupts them), so a timed-out request stops costing;
- at most ``max_inflight_requests`` requests are worked on at once; one more is answered 503 with
  ``Retry-After`` at once (shedding load instead of queueing every client behind it).

Connection-level limits (request head size and deadline, connection caps) are
:mod:`openrepro.board.server`'s.

A reverse proxy in front of the board should enforce the same limits (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

from fastapi import Path
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openrepro.challenge import ChallengeContext
from openrepro.errors import AuthError, OpenReproError
from openrepro.identity import authenticate
from openrepro.store.db import deadline

__all__ = [
    "MAX_ROW_ID",
    "MULTIPART_SLACK",
    "STATEMENT_GRACE_S",
    "UPLOAD_PATHS",
    "RequestGuard",
    "RowId",
]

#: Routes that take an archive upload: a token first, then up to ``archive_max_bytes``.
UPLOAD_PATHS = frozenset({"/api/v1/logbooks"})
#: Store ids are 64-bit: a larger number in a URL is a 422, not an overflow in the driver.
MAX_ROW_ID = 2**63 - 1
RowId = Annotated[int, Path(ge=0, le=MAX_ROW_ID)]
MULTIPART_SLACK = 64 * 1024  # multipart boundaries, headers and the small form fields
#: A request's statements are interrupted this long after its 503 (``request_timeout_s``).
STATEMENT_GRACE_S = 1.0


def _bearer(headers: Headers) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class RequestGuard:
    def __init__(self, app: ASGIApp, ctx: ChallengeContext) -> None:
        self.app, self.ctx = app, ctx
        self.inflight = 0

    async def _reply(
        self, send: Send, status: int, kind: str, message: str, *, retry_after: int = 0
    ) -> None:
        body = json.dumps({"error": {"type": kind, "message": message}}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        if retry_after:
            headers.append((b"retry-after", str(retry_after).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.inflight >= self.ctx.settings.max_inflight_requests:
            busy = "the board is busy; retry in a few seconds"
            await self._reply(send, 503, "ServerBusy", busy, retry_after=5)
            return
        self.inflight += 1
        try:
            # the statements stop a moment after the 503: the answer is the guard's, never a
            # race with the route's own error for the interrupted statement
            with deadline(self.ctx.settings.request_timeout_s + STATEMENT_GRACE_S):
                await self._guarded(scope, receive, send)
        finally:
            self.inflight -= 1

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        settings = self.ctx.settings
        headers = Headers(scope=scope)
        upload = scope["method"] == "POST" and scope["path"].rstrip("/") in UPLOAD_PATHS
        cap = settings.archive_max_bytes + MULTIPART_SLACK if upload else settings.request_max_bytes
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > cap):
            await self._reply(send, 413, "RequestTooLarge",
                              f"the request body is larger than {cap:,} bytes")  # fmt: skip
            return
        if upload:
            token = _bearer(headers)
            try:
                who = await run_in_threadpool(authenticate, self.ctx, token)
                if who.role == "anonymous":
                    raise AuthError("an API token is required to submit a logbook")
            except OpenReproError as exc:
                await self._reply(send, 401, type(exc).__name__, str(exc))
                return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            try:
                message = await asyncio.wait_for(receive(), settings.client_timeout_s)
            except TimeoutError:
                raise HTTPException(
                    408, f"no request data for {settings.client_timeout_s:g} s"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    raise HTTPException(413, f"the request body is larger than {cap:,} bytes")
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await asyncio.wait_for(
                self.app(scope, limited_receive, tracking_send), settings.request_timeout_s
            )
        except TimeoutError:
            if not started:
                await self._reply(
                    send,
                    503,
                    "RequestTimeout",
                    f"the request took longer than {settings.request_timeout_s:g} s",
                )
        except HTTPException as exc:  # raised by limited_receive outside a route's handling
            if not started:
                await self._reply(send, exc.status_code, "RequestRefused", str(exc.detail))
