"""Local stand-ins for OpenReview API v2 and the Hugging Face Papers API.

The real services cannot be reached from the test machines, so the tests run the real clients
(openreview-py, huggingface_hub) against a small HTTP server on 127.0.0.1 (a free port, a thread)
that answers the requests those clients send the way the real services do:

OpenReview API v2 (what ``OpenReviewClient`` sends):
- ``POST /login`` ``{"id", "password", "expiresIn"}`` → ``{"token", "user": {"profile": {...}}}``;
- ``GET /notes?content.venueid=...&sort=id&limit=...&count=true`` → ``{"notes", "count"}``,
  then ``...&after=LAST_ID`` for the next page (as ``get_all_notes`` pages). Notes are filtered
  on ``content.venueid`` and sorted by id; a page holds at most ``page_size`` notes (the real
  API caps ``limit`` at 1000), so a small ``page_size`` exercises paging;
- ``GET /groups?id=...`` → ``{"groups": [...]}``, or 404 for an unknown group.
Errors have the API's ``{"name", "message", "status"}`` body.

Hugging Face: ``GET /api/papers/{id}`` → the paper JSON (``id``, ``authors[].name``, ``title``,
``summary``, ``publishedAt``, ...), or 404 ``{"error": ...}``.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


@dataclass
class Request:
    """One request the fake server received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = None


@dataclass
class FakeService:
    """Base of the fakes: routes a request to ``handle`` and keeps a log of requests."""

    requests: list[Request] = field(default_factory=list, init=False)

    def handle(self, request: Request) -> tuple[int, Any]:
        raise NotImplementedError

    def headers_for(self, request: Request, status: int) -> dict[str, str]:
        """Extra response headers (none by default)."""
        return {}

    def requests_to(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]


def error(status: int, name: str, message: str) -> tuple[int, Any]:
    return status, {"name": name, "message": message, "status": status}


@dataclass
class FakeOpenReview(FakeService):
    """OpenReview API v2: notes, groups and password login."""

    notes: list[dict[str, Any]] = field(default_factory=list)
    groups: set[str] = field(default_factory=set)
    page_size: int = 1000
    users: dict[str, str] = field(default_factory=dict)  # username → password
    require_login: bool = False  # /notes answers 403 without a valid token
    ignore_venue_filter: bool = False  # a misbehaving server: return every note
    fail_notes_with: list[int] = field(default_factory=list)  # statuses for the next /notes
    retry_after: str | None = None  # Retry-After header of a 429 answer
    fail_pages_after_first: int | None = None  # status for every request with ``after``
    tokens: set[str] = field(default_factory=set, init=False)

    def handle(self, request: Request) -> tuple[int, Any]:
        if request.method == "POST" and request.path == "/login":
            return self._login(request.body or {})
        if request.method == "GET" and request.path == "/notes":
            return self._notes(request)
        if request.method == "GET" and request.path == "/groups":
            return self._groups(request.query)
        return error(404, "NotFoundError", f"no route {request.method} {request.path}")

    def headers_for(self, request: Request, status: int) -> dict[str, str]:
        if status == 429 and self.retry_after is not None:
            return {"Retry-After": self.retry_after}
        return {}

    def _login(self, body: dict[str, Any]) -> tuple[int, Any]:
        user, password = body.get("id"), body.get("password")
        if user not in self.users or self.users[user] != password:
            return error(400, "InvalidCredentialsError", "Invalid username or password")
        token = f"token-{user}"
        self.tokens.add(token)
        profile = {"id": "~Test_User1", "usernames": ["~Test_User1"]}
        return 200, {"token": token, "user": {"id": user, "profile": profile}}

    def _authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        return header.removeprefix("Bearer ") in self.tokens

    def _notes(self, request: Request) -> tuple[int, Any]:
        if self.fail_notes_with:
            status = self.fail_notes_with.pop(0)
            return error(status, "Error", "Service temporarily unavailable")
        query = request.query
        if self.fail_pages_after_first is not None and "after" in query:
            return error(self.fail_pages_after_first, "Error", "Internal server error")
        if self.require_login and not self._authorized(request):
            return error(403, "ForbiddenError", "You do not have permission to read these notes")
        selected = sorted(self._matching(query), key=lambda note: note["id"])
        total = len(selected)
        if "after" in query:
            selected = [note for note in selected if note["id"] > query["after"]]
        offset = int(query.get("offset", 0))
        limit = min(int(query.get("limit", 1000)), self.page_size)
        body: dict[str, Any] = {"notes": selected[offset : offset + limit]}
        if query.get("count") == "true":
            body["count"] = total
        return 200, body

    def _matching(self, query: dict[str, str]) -> list[dict[str, Any]]:
        venueid = query.get("content.venueid")
        if venueid is None or self.ignore_venue_filter:
            return list(self.notes)
        return [n for n in self.notes if n["content"].get("venueid", {}).get("value") == venueid]

    def _groups(self, query: dict[str, str]) -> tuple[int, Any]:
        group_id = query.get("id", "")
        if group_id not in self.groups:
            return error(404, "NotFoundError", f"Group Not Found: {group_id}")
        group = {"id": group_id, "members": [], "readers": ["everyone"], "domain": group_id}
        return 200, {"groups": [group]}


@dataclass
class FakeHfPapers(FakeService):
    """Hugging Face Papers API: ``GET /api/papers/{id}``."""

    papers: dict[str, dict[str, Any]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)  # id → error status to answer

    def handle(self, request: Request) -> tuple[int, Any]:
        prefix = "/api/papers/"
        if request.method != "GET" or not request.path.startswith(prefix):
            return 404, {"error": "Sorry, we can't find the page you are looking for."}
        paper_id = request.path.removeprefix(prefix)
        if paper_id in self.statuses:
            return self.statuses[paper_id], {"error": "Something went wrong"}
        if paper_id not in self.papers:
            return 404, {"error": "Paper not found"}
        return 200, self.papers[paper_id]


def _handler_for(service: FakeService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            request = Request(
                method=self.command,
                path=unquote(parts.path),
                query={k: v[-1] for k, v in parse_qs(parts.query).items()},
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else None,
            )
            service.requests.append(request)
            status, body = service.handle(request)
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            for name, value in service.headers_for(request, status).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            # No keep-alive: a stopped server must refuse the clients' next request.
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    return Handler


@contextmanager
def serve(service: FakeService) -> Iterator[str]:
    """Serve ``service`` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(service))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connections are refused at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
