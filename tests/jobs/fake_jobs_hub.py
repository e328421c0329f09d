"""A local stand-in for the Hugging Face Hub's Jobs API, which cannot be reached from here.

The tests run the real ``huggingface_hub`` client (``HfApi.run_job``, ``run_uv_job``,
``inspect_job``, ``list_jobs``, ``fetch_job_logs``, ``cancel_job``, ``wait_for_job``,
``list_jobs_hardware``) against this HTTP server on 127.0.0.1 (a free port, a thread). It answers
the requests that client sends, in the shapes the client parses:

- ``GET /api/whoami-v2`` → ``{"name": <namespace>, "type": "user"}``;
- ``GET /api/jobs/hardware`` → ``[{"name", "prettyName", "cpu", "ram", "unitCostMicroUSD",
  "unitCostUSD", "unitLabel": "minute", ...}]``;
- ``POST /api/jobs/{ns}`` (the job spec: ``dockerImage``, ``command``, ``environment``,
  ``flavor``, ``timeoutSeconds``, ``labels``) → a JobInfo (``id`` of 24 hex digits, ``createdAt``,
  ``status: {"stage": "RUNNING"}``, ``owner`` ...);
- ``GET /api/jobs/{ns}`` (``?label=k=v`` filters, ``?stage=``) → JobInfos, one page (no ``Link``);
- ``GET /api/jobs/{ns}/{id}`` → the JobInfo with ``durations: {"runningSecs", ...}``;
- ``GET /api/jobs/{ns}/{id}/logs`` → Server-Sent Events, one ``data: {"timestamp", "data"}``
  line per log line (a first ``===== Job started`` event, which the client drops), then the
  stream ends, as the Hub's does when the job has ended;
- ``POST /api/jobs/{ns}/{id}/cancel`` → 200, the job's stage becomes ``CANCELED``.

Every request needs ``Authorization: Bearer <token>`` (401 otherwise). Anything else is logged
in ``unknown`` and answered 404. Tests end a job with :meth:`FakeJobsHub.finish`.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

HARDWARE = [
    {"name": "cpu-basic", "prettyName": "CPU Basic", "cpu": "2 vCPU", "ram": "16 GB",
     "ephemeralStorage": "20 GB", "accelerator": None, "unitCostMicroUSD": 167,
     "unitCostUSD": 0.000167, "unitLabel": "minute"},
    {"name": "a10g-small", "prettyName": "Nvidia A10G - small", "cpu": "4 vCPU", "ram": "15 GB",
     "accelerator": {"type": "gpu", "model": "A10G", "quantity": "1", "vram": "24 GB",
                     "manufacturer": "Nvidia"},
     "unitCostMicroUSD": 16667, "unitCostUSD": 0.016667, "unitLabel": "minute"},
]  # fmt: skip


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass
class HubJob:
    id: str
    namespace: str
    spec: dict[str, Any]
    stage: str = "RUNNING"
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    started: datetime | None = None
    finished: datetime | None = None
    running_secs: int | None = None
    message: str | None = None
    logs: list[str] = field(default_factory=list)

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "createdAt": _iso(self.created),
            "startedAt": _iso(self.started) if self.started else None,
            "finishedAt": _iso(self.finished) if self.finished else None,
            "dockerImage": self.spec.get("dockerImage"),
            "spaceId": self.spec.get("spaceId"),
            "command": self.spec.get("command"),
            "arguments": self.spec.get("arguments", []),
            "environment": self.spec.get("environment", {}),
            "flavor": self.spec.get("flavor"),
            "labels": self.spec.get("labels"),
            "status": {"stage": self.stage, "message": self.message},
            "durations": {"schedulingSecs": 1, "runningSecs": self.running_secs,
                          "totalSecs": (self.running_secs or 0) + 1},
            "owner": {"id": "0" * 24, "name": self.namespace, "type": "user"},
        }  # fmt: skip


@dataclass
class FakeJobsHub:
    namespace: str = "org"
    tokens: set[str] = field(default_factory=lambda: {"hf_test_token"})
    jobs: dict[str, HubJob] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)
    hardware_calls: int = 0
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def finish(
        self, job_id: str, stage: str = "COMPLETED", *, running_secs: int = 60,
        logs: list[str] | None = None, message: str | None = None,
    ) -> None:  # fmt: skip
        with self.lock:
            job = self.jobs[job_id]
            job.stage = stage
            job.running_secs = running_secs
            job.message = message
            now = datetime.now(UTC)  # in the past, as the client compares log times to Date
            job.started = now - timedelta(seconds=running_secs + 2)
            job.finished = now - timedelta(seconds=1)
            if logs is not None:
                job.logs = list(logs)


class _Handler(BaseHTTPRequestHandler):
    hub: FakeJobsHub
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: Any) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        auth = self.headers.get("Authorization", "")
        if auth.removeprefix("Bearer ") in self.hub.tokens:
            return True
        self._send(401, {"error": "Invalid credentials in Authorization header"})
        return False

    def _route(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        query = parse_qsl(parts.query)
        self.hub.requests.append((method, path))
        if not self._authorized():
            return
        segments = path.strip("/").split("/")
        hub = self.hub
        if method == "GET" and path == "/api/whoami-v2":
            return self._send(200, {"name": hub.namespace, "type": "user"})
        if method == "GET" and path == "/api/jobs/hardware":
            hub.hardware_calls += 1
            return self._send(200, HARDWARE)
        if len(segments) >= 3 and segments[:2] == ["api", "jobs"]:
            namespace = segments[2]
            if namespace != hub.namespace:
                return self._send(403, {"error": f"no access to namespace {namespace}"})
            if len(segments) == 3 and method == "POST":
                length = int(self.headers.get("Content-Length", "0"))
                spec = json.loads(self.rfile.read(length))
                job = HubJob(id=secrets.token_hex(12), namespace=namespace, spec=spec)
                with hub.lock:
                    hub.jobs[job.id] = job
                return self._send(200, job.info())
            if len(segments) == 3 and method == "GET":
                labels = [v.split("=", 1) for k, v in query if k == "label"]
                stages = {v for k, v in query if k == "stage"}
                found = [
                    j.info() for j in hub.jobs.values()
                    if all((j.spec.get("labels") or {}).get(k) == v for k, v in labels)
                    and (not stages or j.stage in stages)
                ]  # fmt: skip
                return self._send(200, found)
            job = hub.jobs.get(segments[3])
            if job is None:
                return self._send(404, {"error": "Job not found"})
            if len(segments) == 4 and method == "GET":
                return self._send(200, job.info())
            if len(segments) == 5 and segments[4] == "cancel" and method == "POST":
                with hub.lock:
                    if job.stage in ("RUNNING", "SCHEDULING"):
                        job.stage = "CANCELED"
                        job.started = job.started or job.created
                        job.finished = datetime.now(UTC)
                        job.running_secs = job.running_secs or 5
                return self._send(200, {})
            if len(segments) == 5 and segments[4] == "logs" and method == "GET":
                return self._logs(job)
        hub.unknown.append((method, self.path))
        self._send(404, {"error": f"unknown route {method} {path}"})

    def _logs(self, job: HubJob) -> None:
        start = job.started or job.created
        events = ["===== Job started at " + _iso(start) + " =====", *job.logs]
        body = b""
        for i, line in enumerate(events):
            payload = {"timestamp": _iso(start + timedelta(milliseconds=i)), "data": line}
            body += b"data: " + json.dumps(payload).encode() + b"\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")


@contextmanager
def serve_jobs_hub(hub: FakeJobsHub | None = None) -> Iterator[FakeJobsHub]:
    """Serve ``hub`` (a new one by default) on 127.0.0.1 until the block ends."""
    hub = hub or FakeJobsHub()
    handler = type("Handler", (_Handler,), {"hub": hub})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
