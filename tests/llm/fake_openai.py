"""A scriptable OpenAI-compatible server on 127.0.0.1, for the error paths of the HTTP backend.

It answers what :class:`openrepro.llm.openai_backend.OpenAIBackend` sends:
- ``GET /v1/models`` → ``{"object": "list", "data": [{"id": ...}, ...]}`` (``models``), or
  ``models_status`` with an error body;
- ``POST /v1/chat/completions`` → the next scripted :class:`Reply` of the queue (a status, a JSON
  body, a delay, headers), or ``default`` once the queue is empty. A request whose
  ``response_format.type`` is in ``reject_formats`` is answered with that scripted reply first,
  without consuming the queue: a server that never supports that mode.
Every request is recorded (method, path, headers, JSON body) to assert what the client sent.

Real-model behaviour (what a real server accepts, determinism) is tested against
``python -m llama_cpp.server`` in ``test_llama_server.py``; this fake only makes failures
reproducible: rejected modes, 5xx, 401, truncated or cut replies, slow replies.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = [
    "FakeOpenAI",
    "Reply",
    "Request",
    "closed_port_url",
    "completion",
    "error",
    "validation_error",
]

MODEL = "fake-model"


@dataclass
class Request:
    """One request the fake server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any = None


@dataclass
class Reply:
    """One scripted answer: status, JSON body, extra headers, and seconds to wait first."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    prompt_tokens: int = 12,
    completion_tokens: int = 7,
    usage: bool = True,
    model: str = MODEL,
    delay: float = 0.0,
) -> Reply:
    """A successful chat completion whose message is ``content``."""
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(200, body, delay=delay)


def error(status: int, message: str, *, kind: str = "invalid_request_error") -> Reply:
    """An error in OpenAI's ``{"error": {...}}`` shape.

    429 and 5xx ask for a 10 ms ``retry-after-ms`` so the client's retries do not slow the tests.
    """
    headers = {"retry-after-ms": "10"} if status == 429 or status >= 500 else {}
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Reply(status, body, headers=headers)


def validation_error(field_path: list[str], message: str) -> Reply:
    """A FastAPI/pydantic 422 ``{"detail": [...]}``, as ``llama_cpp.server`` answers."""
    detail = [{"type": "literal_error", "loc": ["body", *field_path], "msg": message}]
    return Reply(422, {"detail": detail})


class FakeOpenAI:
    """The server; a context manager that serves on a free port of 127.0.0.1 in a thread."""

    def __init__(
        self,
        *,
        models: list[str] | None = None,
        models_status: int = 200,
        default: Reply | None = None,
    ) -> None:
        self.models = [MODEL] if models is None else models
        self.models_status = models_status
        self.default = default
        self.replies: deque[Reply] = deque()
        self.reject_formats: dict[str, Reply] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------

    def script(self, *replies: Reply) -> FakeOpenAI:
        """Queue ``replies`` for the next chat completions, in order."""
        with self._lock:
            self.replies.extend(replies)
        return self

    def reject(self, mode: str, reply: Reply) -> FakeOpenAI:
        """Answer every request with ``response_format.type == mode`` with ``reply``."""
        self.reject_formats[mode] = reply
        return self

    def chat_bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the chat completion requests received so far."""
        return [r.body for r in self.requests if r.path == "/v1/chat/completions"]

    def count(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    @property
    def url(self) -> str:
        """The base URL clients use, ending in ``/v1``."""
        assert self._server is not None, "the server is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- answering -----------------------------------------------------------------------

    def answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.method == "GET" and request.path == "/v1/models":
                return self._models()
            if request.method == "POST" and request.path == "/v1/chat/completions":
                return self._chat(request)
        return error(404, f"no route {request.method} {request.path}")

    def _models(self) -> Reply:
        if self.models_status != 200:
            return error(self.models_status, "models are not available")
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models]
        return Reply(200, {"object": "list", "data": data})

    def _chat(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        response_format = body.get("response_format") or {}
        rejected = self.reject_formats.get(str(response_format.get("type", "")))
        if rejected is not None:
            return rejected
        if self.replies:
            return self.replies.popleft()
        if self.default is not None:
            return self.default
        return error(500, "the fake server has no scripted reply left")

    def wait(self, seconds: float) -> None:
        """Sleep, but wake up when the server stops."""
        self._stopped.wait(seconds)

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> FakeOpenAI:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopped.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            request = Request(
                method=self.command,
                path=self.path.split("?", 1)[0],
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else None,
            )
            reply = fake.answer(request)
            if reply.delay:
                fake.wait(reply.delay)
            data = json.dumps(reply.body).encode("utf-8")
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    return Handler


def closed_port_url() -> str:
    """A ``/v1`` URL on 127.0.0.1 where nothing listens (connections are refused at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
