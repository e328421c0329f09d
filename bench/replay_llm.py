"""Replay recorded model answers as an OpenAI-compatible server on 127.0.0.1.

No hosted model is reachable from the bench, so a capable model's answers are recorded (one
JSON line per request: ``{"request_sha256": ..., "reply": "<the JSON text the model
answered>"}``, optionally ``"key"``, ``"prompt_tokens"``, ``"completion_tokens"``) and this server
answers each chat request with the reply recorded for it. A request is identified by
:func:`openrepro.llm.request_sha256` of its messages and of the JSON schema in its
``response_format`` (``json_schema`` or ``json_object`` mode), the same hash
``bench/check_prompts.py`` writes; the model, temperature, seed and token limit do not enter it.
A request with no recorded reply is answered HTTP 422 with a message that names its hash (the
prompt or the schema changed since the recording, or the claim was not recorded); so is a
request in the plain ``text`` mode, whose schema is folded into the prompt.

    .venv/bin/python bench/replay_llm.py RECORDED.jsonl [REPAIRS.jsonl] [--port 8011]
        [--model recorded]
    # then: OPENREPRO_LLM_URL=http://127.0.0.1:8011/v1 ...

The drafter's repair round (four messages: the request, the first answer as the assistant's,
the repair text) is one more request, hashed the same way: give its recording as a further file
(``bench/check_prompts.py --repairs-of`` writes those requests), or in the same file.

Endpoints: ``GET /v1/models``, ``POST /v1/chat/completions``. ``ReplayServer`` runs it in a
thread for ``bench/checks_recorded.py`` and the tests.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from openrepro.llm import Message, request_sha256

__all__ = ["Recording", "ReplayServer", "load_recording", "request_hash"]


class Recording:
    """One recorded answer."""

    def __init__(self, reply: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        self.reply = reply
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


def load_recording(path: Path) -> dict[str, Recording]:
    """The recorded answers of a JSONL file by request hash; a bad line is an error naming it."""
    out: dict[str, Recording] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            digest, reply = row["request_sha256"], row["reply"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a recorded answer ({exc})") from exc
        if not isinstance(reply, str):
            reply = json.dumps(reply, ensure_ascii=False)  # a reply recorded as a JSON object
        out[str(digest)] = Recording(
            reply, int(row.get("prompt_tokens", 0)), int(row.get("completion_tokens", 0))
        )
    return out


def request_hash(body: dict[str, Any]) -> str | None:
    """The hash of a chat request's messages and schema; None without a schema."""
    response_format = body.get("response_format") or {}
    kind = response_format.get("type")
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    elif kind == "json_object":
        schema = response_format.get("schema")
    else:
        schema = None
    if not isinstance(schema, dict):
        return None
    messages = [
        Message(role=m["role"], content=m["content"] if isinstance(m["content"], str) else "")
        for m in body.get("messages", [])
    ]
    return request_sha256(messages, schema)


class ReplayServer:
    """The server, on 127.0.0.1 in a background thread (``port`` 0: any free port)."""

    def __init__(
        self, recordings: dict[str, Recording], *, model: str = "recorded", port: int = 0
    ) -> None:
        self.recordings = recordings
        self.model = model
        self.port = port
        self.served = 0
        self.unrecorded: list[str] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL (``.../v1``) to give an OpenAI-compatible client."""
        assert self._server is not None, "the server is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for one request."""
        if path.rstrip("/") == "/v1/models" and body is None:
            return 200, {"object": "list", "data": [{"id": self.model, "object": "model"}]}
        if path.rstrip("/") != "/v1/chat/completions" or body is None:
            return 404, _error(f"no such endpoint: {path}")
        digest = request_hash(body)
        if digest is None:
            return 422, _error("replay needs the reply's JSON schema in the request (json modes)")
        recorded = self.recordings.get(digest)
        if recorded is None:
            with self._lock:
                self.unrecorded.append(digest)
            return 422, _error(
                f"no recorded reply for request_sha256 {digest} (the prompt or the schema "
                "changed since the recording, or this claim was not recorded)"
            )
        with self._lock:
            self.served += 1
        return 200, {
            "id": f"replay-{digest[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": recorded.reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": recorded.prompt_tokens,
                "completion_tokens": recorded.completion_tokens,
                "total_tokens": recorded.prompt_tokens + recorded.completion_tokens,
            },
        }

    def start(self) -> ReplayServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


def _handler(server: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(*server.answer(self.path, None))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as exc:
                self._send(400, _error(f"the request body is not JSON ({exc.msg})"))
                return
            if not isinstance(body, dict):
                self._send(400, _error("the request body is not a JSON object"))
                return
            self._send(*server.answer(self.path, body))

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recording", type=Path, nargs="+", help="recorded answers (JSONL)")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--model", default="recorded", help="the model name it lists")
    args = parser.parse_args(argv)
    recordings: dict[str, Recording] = {}
    for path in args.recording:
        recordings.update(load_recording(path))
    server = ReplayServer(recordings, model=args.model, port=args.port).start()
    print(f"replaying {len(recordings)} answers at {server.url} (Ctrl-C stops)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print(f"served {server.served}, unrecorded {len(server.unrecorded)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
