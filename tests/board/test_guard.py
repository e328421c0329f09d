"""The board's request limits (openrepro.board.guard): body caps and the upload's token are
checked before the application reads a byte; slow clients and slow requests are cut off.

The byte counts come from an ASGI wrapper that counts what the application pulled from the
client, so "before any write" is measured, not assumed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.types import Message, Receive, Scope, Send

from openrepro.board import create_app
from openrepro.board.guard import RequestGuard
from openrepro.challenge import ChallengeContext
from openrepro.errors import StoreError
from openrepro.identity import register

MiB = 1024 * 1024


class Counting:
    """Wraps an ASGI app; ``pulled`` is how many body bytes the app received from the client."""

    def __init__(self, app: Any) -> None:
        self.app, self.pulled = app, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counted() -> Message:
            message = await receive()
            self.pulled += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@pytest.fixture
def board(challenge: ChallengeContext) -> Iterator[tuple[Counting, TestClient]]:
    counting = Counting(create_app(challenge, cache_seconds=0))
    yield counting, TestClient(counting)


def _chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    for _ in range(total // size):
        yield b"\0" * size


def test_an_anonymous_upload_is_refused_before_its_body_is_read(
    board: tuple[Counting, TestClient], tmp_path: Path
) -> None:
    """The attack: 200 MiB accepted (spooled to /tmp) before a 401."""
    counting, client = board
    archive = tmp_path / "big.tar.gz"
    archive.write_bytes(b"\0" * (4 * MiB))
    for headers in ({}, {"Authorization": "Bearer orp_forged"}):
        with archive.open("rb") as fh:
            reply = client.post("/api/v1/logbooks", files={"file": ("big.tar.gz", fh)},
                                headers=headers)  # fmt: skip
        assert reply.status_code == 401, reply.text
        assert reply.json()["error"]["type"] == "AuthError"
    assert counting.pulled == 0


def test_an_over_cap_body_is_refused_before_it_is_read(
    challenge: ChallengeContext, board: tuple[Counting, TestClient], tmp_path: Path
) -> None:
    counting, client = board
    token = register(challenge, "mallory").token
    challenge.settings.archive_max_bytes = 1 * MiB
    archive = tmp_path / "big.tar.gz"
    archive.write_bytes(b"\0" * (3 * MiB))
    with archive.open("rb") as fh:
        reply = client.post("/api/v1/logbooks", files={"file": ("big.tar.gz", fh)},
                            headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert reply.status_code == 413, reply.text
    assert counting.pulled == 0
    # JSON routes take request_max_bytes at most
    reply = client.post("/api/v1/participants", content=b"{" + b" " * (2 * MiB) + b"}",
                        headers={"content-type": "application/json"})  # fmt: skip
    assert reply.status_code == 413
    assert counting.pulled == 0


def _run(app: Any, scope: Scope, receive: Receive) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def _scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> Scope:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "scheme": "http", "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 5), "headers": headers}  # fmt: skip


def test_a_chunked_body_is_cut_off_at_the_cap(challenge: ChallengeContext) -> None:
    """No Content-Length: the body is counted as it streams in and refused past the cap."""
    app = create_app(challenge, cache_seconds=0)
    chunks = _chunks(64 * MiB)
    pulled = 0

    async def stream() -> Message:
        nonlocal pulled
        pulled += 64 * 1024
        return {"type": "http.request", "body": next(chunks), "more_body": True}

    scope = _scope("POST", "/api/v1/participants", [(b"content-type", b"application/json")])
    sent = _run(app, scope, stream)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 413
    assert pulled <= challenge.settings.request_max_bytes + 64 * 1024


def test_a_slow_client_gets_408(challenge: ChallengeContext) -> None:
    challenge.settings.client_timeout_s = 0.2
    app = create_app(challenge, cache_seconds=0)
    sent_parts = 0

    async def slowloris() -> Message:
        nonlocal sent_parts
        sent_parts += 1
        if sent_parts == 1:
            return {"type": "http.request", "body": b'{"handle": ', "more_body": True}
        await asyncio.sleep(30)  # never sends the rest
        return {"type": "http.disconnect"}

    scope = _scope("POST", "/api/v1/participants", [(b"content-type", b"application/json")])
    sent = _run(app, scope, slowloris)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 408


def test_a_request_past_its_time_limit_gets_503(challenge: ChallengeContext) -> None:
    challenge.settings.request_timeout_s = 1e-6
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.get("/api/v1/stats")
    assert reply.status_code == 503
    assert reply.json()["error"]["type"] == "RequestTimeout"
    assert reply.headers["x-content-type-options"] == "nosniff"


def test_requests_past_the_inflight_cap_are_told_busy_at_once(challenge: ChallengeContext) -> None:
    """Shedding load: past ``max_inflight_requests`` a request is answered 503 with
    Retry-After at once, instead of queueing behind the slow ones."""
    challenge.settings.max_inflight_requests = 1
    release = asyncio.Event()

    async def slow(scope: Scope, receive: Receive, send: Send) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard = RequestGuard(slow, challenge)

    async def both() -> tuple[list[Message], list[Message]]:
        first: list[Message] = []
        second: list[Message] = []

        async def recv() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def into(box: list[Message]) -> Any:
            async def send(message: Message) -> None:
                box.append(message)

            return send

        task = asyncio.create_task(guard(_scope("GET", "/", []), recv, await into(first)))
        await asyncio.sleep(0.05)
        await guard(_scope("GET", "/", []), recv, await into(second))
        release.set()
        await task
        return first, second

    first, second = asyncio.run(both())
    assert first[0]["status"] == 200
    assert second[0]["status"] == 503
    assert (b"retry-after", b"5") in second[0]["headers"]


def test_a_timed_out_request_stops_its_statements(challenge: ChallengeContext) -> None:
    """Before: a request past its 503 kept running its query in a worker thread."""
    challenge.settings.request_timeout_s = 0.3
    ended: list[tuple[str, float]] = []
    slow_sql = text(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000) "
        "SELECT count(*) FROM c"
    )

    def query() -> None:
        try:
            with challenge.store.session() as session:
                session.execute(slow_sql).scalar()
            ended.append(("finished", time.monotonic()))
        except StoreError:
            ended.append(("interrupted", time.monotonic()))

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        await run_in_threadpool(query)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})

    async def recv() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    started = time.monotonic()
    sent = _run(RequestGuard(route, challenge), _scope("GET", "/", []), recv)
    assert sent[0]["status"] == 503
    for _ in range(600):  # the worker thread is not awaited by the 503: wait for it to end
        if ended:
            break
        time.sleep(0.05)
    # uninterrupted, the statement runs for minutes: it ended because it was interrupted
    assert ended and ended[0][0] == "interrupted"
    assert ended[0][1] - started < 30
