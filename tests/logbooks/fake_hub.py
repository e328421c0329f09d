"""A local stand-in for the Hugging Face Hub's repo API, which cannot be reached from here.

The tests run the real ``huggingface_hub`` client (``HfApi.create_repo`` and
``HfApi.create_commit``) against this small HTTP server on 127.0.0.1 (a free port, a thread). It
answers exactly the requests that client sends, the way the Hub does:

- ``POST /api/repos/create`` ``{"name", "organization", "type", "sdk", "visibility"}`` →
  ``{"url", "name", "id"}``; 409 ``{"error", "url"}`` when the repo exists (``exist_ok`` reads
  the ``url`` of that answer);
- ``POST /api/validate-yaml`` ``{"content", "repoType"}`` → ``{"errors": [], "warnings": []}``
  (sent before a commit that holds a ``README.md``);
- ``POST /api/{type}s/{owner}/{name}/preupload/{rev}`` ``{"files": [{"path", "sample",
  "size"}]}`` → ``{"files": [{"path", "uploadMode", "shouldIgnore", "oid"}]}``. Every file is
  answered ``"regular"`` (its content then travels base64-encoded inside the commit), so no LFS
  or Xet server is needed; the real Hub answers ``"lfs"`` for large or binary files. ``oid`` is
  the git blob id of the file the repo already holds, which the client uses to leave unchanged
  files out of the commit;
- ``POST /api/{type}s/{owner}/{name}/commit/{rev}`` (NDJSON: a ``header`` line, then ``file``
  lines) → ``{"commitUrl", "commitOid", "success"}``; the contents are decoded and stored;
- ``GET /api/{type}s/{owner}/{name}[/revision/{rev}]`` → the repo's info (``id``, ``sha``,
  ``private``, ``sdk``, ``siblings`` with ``rfilename``, ``size`` and ``blobId``), which the
  client reads when a commit would be empty, and ``snapshot_download`` for the commit to fetch;
- ``GET /api/{type}s/{owner}/{name}/tree/{rev}`` (``?recursive=true``) → ``[{"type": "file",
  "path", "size", "oid"}]``, all in one page (no ``Link`` header), which ``snapshot_download``
  lists the files from;
- ``HEAD``/``GET /[{type}s/]{owner}/{name}/resolve/{rev}/{path}`` → the file's bytes, with the
  headers ``hf_hub_download`` requires: ``ETag`` (the git blob id, quoted), ``X-Repo-Commit``
  and ``Content-Length``; a missing file is a 404 with ``X-Error-Code: EntryNotFound``.

``{rev}`` is ``main`` or the id of one of the repo's commits (``snapshot_download`` asks for the
commit it resolved). :meth:`FakeHub.add_repo` seeds a repo with files, as one commit.

Writes need ``Authorization: Bearer <a known token>``: 401 otherwise, as the Hub answers
anonymous writes; an unknown token is a 401 for any request. Reads (``GET``, ``HEAD``) without a
token are answered for a public repo; for a private or unknown repo they are a 401 with
``X-Error-Code: RepoNotFound`` (the Hub does not say whether it exists). With a known token, an
unknown repo is a 404 with ``X-Error-Code: RepoNotFound``, an unknown revision a 404 with
``X-Error-Code: RevisionNotFound``. Any other request is logged in ``unknown`` and answered 404,
so a client that starts calling something new fails loudly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
Answer = tuple[int, Any, dict[str, str]]


def git_blob_id(content: bytes) -> str:
    """The git object id of a file's content (what the Hub reports as a regular file's oid)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class Commit:
    oid: str
    summary: str
    description: str
    files: dict[str, bytes]  # the files this commit added or changed


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool = False
    sdk: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    commits: list[Commit] = field(default_factory=list)

    @property
    def sha(self) -> str:
        return self.commits[-1].oid if self.commits else "0" * 40


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def _error(status: int, message: str, code: str | None = None) -> Answer:
    return status, {"error": message}, ({"X-Error-Code": code} if code else {})


@dataclass
class FakeHub:
    """The Hub's state (repos by ``(type, id)``) and its request handling; see the module doc."""

    tokens: set[str] = field(default_factory=lambda: {"hf_test"})
    url: str = ""
    repos: dict[tuple[str, str], Repo] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def repo(self, repo_type: str, repo_id: str) -> Repo:
        return self.repos[(repo_type, repo_id)]

    def add_repo(
        self,
        repo_type: str,
        repo_id: str,
        files: dict[str, bytes],
        *,
        private: bool = False,
        sdk: str | None = None,
    ) -> Repo:
        """Create (or update) a repo holding ``files``, committed at once, without any request."""
        repo = self.repos.setdefault(
            (repo_type, repo_id), Repo(repo_type, repo_id, private=private, sdk=sdk)
        )
        payload = json.dumps([repo.sha, "seed", sorted(files.items())], default=repr)
        oid = hashlib.sha1(payload.encode("utf-8")).hexdigest()
        repo.files.update(files)
        repo.commits.append(Commit(oid, "Seed", "", dict(files)))
        return repo

    def handle(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
            if not self._authorized(request):
                key = self._read_key(request)
                if key is None or "authorization" in request.headers:  # a wrong token
                    return _error(401, "Invalid credentials in Authorization header")
                target = self.repos.get(key)
                if target is None or target.private:
                    return _error(401, "Repository not found", "RepoNotFound")
            return self._route(request)

    def _read_key(self, request: Request) -> tuple[str, str] | None:
        """``(type, id)`` of the repo a request reads, if it is a read (``GET``, ``HEAD``)."""
        if request.method not in ("GET", "HEAD"):
            return None
        parts = request.path.strip("/").split("/")
        if parts[:1] == ["api"]:  # /api/{type}s/{owner}/{name}/...
            parts = parts[1:]
        if len(parts) >= 3 and parts[0] in REPO_TYPES:  # (also /{type}s/{owner}/{name}/resolve)
            return REPO_TYPES[parts[0]], "/".join(parts[1:3])
        if len(parts) >= 3 and parts[2] == "resolve":
            return "model", "/".join(parts[:2])
        return None

    def _authorized(self, request: Request) -> bool:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and token in self.tokens

    def _route(self, request: Request) -> Answer:
        parts = request.path.strip("/").split("/")
        if (request.method, parts) == ("POST", ["api", "repos", "create"]):
            return self._create(json.loads(request.body))
        if (request.method, parts) == ("POST", ["api", "validate-yaml"]):
            return 200, {"errors": [], "warnings": []}, {}
        if len(parts) >= 4 and parts[0] == "api" and parts[1] in REPO_TYPES:
            repo_type, repo_id, rest = REPO_TYPES[parts[1]], "/".join(parts[2:4]), parts[4:]
            repo = self.repos.get((repo_type, repo_id))
            if repo is None:
                return _error(404, "Repository not found", "RepoNotFound")
            return self._repo_route(request, repo, rest)
        if request.method in ("GET", "HEAD"):
            if len(parts) >= 6 and parts[0] in REPO_TYPES and parts[3] == "resolve":
                return self._resolve(REPO_TYPES[parts[0]], "/".join(parts[1:3]), parts[4:])
            if len(parts) >= 5 and parts[2] == "resolve":
                return self._resolve("model", "/".join(parts[:2]), parts[3:])
        return self._unknown(request)

    def _known_revision(self, repo: Repo, revision: str) -> bool:
        return revision == "main" or any(c.oid == revision for c in repo.commits)

    def _repo_route(self, request: Request, repo: Repo, rest: list[str]) -> Answer:
        action, revision = (rest[0], "/".join(rest[1:])) if rest else ("info", "main")
        if not self._known_revision(repo, revision):
            return _error(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        if (request.method, action) == ("POST", "preupload"):
            return self._preupload(repo, json.loads(request.body))
        if (request.method, action) == ("POST", "commit"):
            return self._commit(repo, request.body)
        if request.method == "GET" and action in ("info", "revision"):
            return 200, self._info(repo), {}
        if request.method == "GET" and action == "tree":
            return 200, self._tree(repo), {}
        return self._unknown(request)

    def _tree(self, repo: Repo) -> list[dict[str, Any]]:
        return [
            {"type": "file", "path": path, "size": len(data), "oid": git_blob_id(data)}
            for path, data in sorted(repo.files.items())
        ]

    def _resolve(self, repo_type: str, repo_id: str, rest: list[str]) -> Answer:
        repo = self.repos.get((repo_type, repo_id))
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        revision, path = rest[0], "/".join(rest[1:])
        if not self._known_revision(repo, revision):
            return _error(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        data = repo.files.get(path)
        if data is None:
            return _error(404, f"Entry not found: {path}", "EntryNotFound")
        headers = {"ETag": f'"{git_blob_id(data)}"', "X-Repo-Commit": repo.sha}
        return 200, data, headers

    def _unknown(self, request: Request) -> Answer:
        self.unknown.append(f"{request.method} {request.path}")
        return _error(404, f"Sorry, we can't find the page you are looking for: {request.path}")

    def _create(self, body: dict[str, Any]) -> Answer:
        repo_type = body.get("type") or "model"
        repo_id = f"{body['organization']}/{body['name']}"
        url = f"{self.url}/{URL_PREFIX[repo_type]}{repo_id}"
        if (repo_type, repo_id) in self.repos:
            return 409, {"error": f"You already created this {repo_type} repo", "url": url}, {}
        if repo_type == "space" and not body.get("sdk"):
            return _error(400, "sdk is required for a Space")
        self.repos[(repo_type, repo_id)] = Repo(
            repo_type, repo_id, private=body.get("visibility") == "private", sdk=body.get("sdk")
        )
        return 200, {"url": url, "name": repo_id, "id": repo_id}, {}

    def _preupload(self, repo: Repo, body: dict[str, Any]) -> Answer:
        files = []
        for item in body["files"]:
            existing = repo.files.get(item["path"])
            oid = git_blob_id(existing) if existing is not None else None
            files.append(
                {"path": item["path"], "uploadMode": "regular", "shouldIgnore": False, "oid": oid}
            )
        return 200, {"files": files, "commitOid": repo.sha}, {}

    def _commit(self, repo: Repo, body: bytes) -> Answer:
        lines = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            return _error(400, "The first line must be the commit header")
        header, added = lines[0]["value"], {}
        for line in lines[1:]:
            value = line["value"]
            if line["key"] != "file" or value.get("encoding") != "base64":
                return _error(400, f"Unsupported commit operation: {line['key']}")
            added[value["path"]] = base64.b64decode(value["content"])
        payload = json.dumps([repo.sha, header, sorted(added.items())], default=repr)
        oid = hashlib.sha1(payload.encode("utf-8")).hexdigest()
        repo.files.update(added)
        repo.commits.append(Commit(oid, header["summary"], header.get("description", ""), added))
        url = f"{self.url}/{URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{oid}"
        return 200, {"commitUrl": url, "commitOid": oid, "success": True}, {}

    def _info(self, repo: Repo) -> dict[str, Any]:
        return {
            "id": repo.repo_id,
            "sha": repo.sha,
            "private": repo.private,
            "sdk": repo.sdk,
            "siblings": [
                {"rfilename": path, "size": len(data), "blobId": git_blob_id(data)}
                for path, data in sorted(repo.files.items())
            ],
        }


def _handler_for(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Request(
                method=self.command,
                path=unquote(urlsplit(self.path).path),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
            )
            status, body, headers = hub.handle(request)
            raw = isinstance(body, bytes)  # a file's content, as /resolve/ serves it
            data = body if raw else json.dumps(body).encode("utf-8")
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            content_type = "application/octet-stream" if raw else "application/json; charset=utf-8"
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")  # a stopped server refuses the next request
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    return Handler


@contextmanager
def serve_hub(hub: FakeHub | None = None) -> Iterator[FakeHub]:
    """Serve a :class:`FakeHub` on 127.0.0.1 (a free port) in a thread; ``hub.url`` is its URL."""
    hub = hub or FakeHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(hub))
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
