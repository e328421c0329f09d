"""`review serve`: a small page on 127.0.0.1 that shows one item at a time.

No external resources (the page, its script and the images come from this server; a strict
Content-Security-Policy says so), Jinja2 with autoescape, answers only from this server's own
page (a per-start form token and an ``Origin`` check stop cross-site form posts; a ``Host``
check stops DNS rebinding), images under
opaque ids (the source is hidden), keyboard shortcuts (the option keys), progress, and
resumption: the next slot is the first of the reviewer's schedule without an answer in
answers.csv (or, for a stored task, in the store).

Time per item: the server notes (monotonic clock) when it sends the page showing a slot and,
when the answer to that slot arrives, records the seconds in between with the answer; an answer
to a slot shown before a restart gets no time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, Form, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from jinja2 import Environment
from starlette.middleware.trustedhost import TrustedHostMiddleware

from openrepro.errors import ConfigError
from openrepro.review.task import AnswerLog, load_task, schedule

__all__ = ["LOCAL_HOSTS", "create_app", "same_origin", "serve_task"]

_CSP = (
    "default-src 'none'; img-src 'self'; script-src 'self'; connect-src 'self'; "
    "style-src 'unsafe-inline'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
_ENV = Environment(autoescape=True)
_PAGE = _ENV.from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review: {{ task.name }}</title>
<style>
body { font-family: sans-serif; margin: 1.5rem; }
.pair { display: flex; gap: 1.5rem; } figure { margin: 0; text-align: center; }
img { max-width: 45vw; max-height: 65vh; image-rendering: pixelated; min-width: 128px;
      border: 1px solid #999; }
button { font-size: 1.1rem; margin: 0.3rem; } kbd { border: 1px solid #999; padding: 0 .3rem; }
</style></head>
<body data-slot="{{ slot.slot if slot else '' }}">
<p id="progress">{{ done }} / {{ total }} answered</p>
{% if slot %}
<h1 id="question">{{ task.question }}</h1>
<div class="pair">
  <figure><img id="left" src="/img/{{ left }}" alt="left image"><figcaption>left</figcaption>
  </figure>
  {% if right %}<figure><img id="right" src="/img/{{ right }}" alt="right image"><figcaption>right
  </figcaption></figure>{% endif %}
</div>
<form id="answer" method="post" action="/answer">
  <input type="hidden" name="slot" value="{{ slot.slot }}">
  <input type="hidden" name="csrf" value="{{ csrf }}">
  {% for label, keys in options %}
  <button type="submit" name="choice" value="{{ label }}" data-keys="{{ keys|join(' ') }}">
    {{ label }} {% for k in keys %}<kbd>{{ k }}</kbd>{% endfor %}</button>
  {% endfor %}
</form>
<script src="/review.js"></script>
{% else %}
<h1 id="done">All items answered. Thank you!</h1>
{% endif %}
</body></html>
""")
_SCRIPT = """
// Answer with one key; the next item replaces the page body without a reload (the form still
// works without script). The answer is on disk before the server replies.
document.addEventListener('keydown', function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) { return; }
  var form = document.getElementById('answer');
  if (!form || form.dataset.sent) { return; }
  var key = event.key.toLowerCase();
  var buttons = form.querySelectorAll('button[data-keys]');
  for (var i = 0; i < buttons.length; i++) {
    if (buttons[i].dataset.keys.split(' ').indexOf(key) >= 0) {
      form.dataset.sent = '1';
      event.preventDefault();
      var data = new FormData(form);
      data.append('choice', buttons[i].value);
      fetch('/answer', {method: 'POST', body: data}).then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.text();
      }).then(function (html) {
        var next = new DOMParser().parseFromString(html, 'text/html');
        document.body.replaceWith(document.adoptNode(next.body));
      }).catch(function () { window.location.reload(); });
      return;
    }
  }
});
"""


def same_origin(request: Request) -> bool:
    """Whether a form post comes from this server's own page: an ``Origin`` (or, without one,
    a ``Referer``) naming this host, and no ``Sec-Fetch-Site`` saying it is cross-site."""
    host = request.headers.get("host", "")
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin is None:
        return True  # not a browser's cross-site form: those always send one of the two
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == host


#: Host names the review page answers to: a request naming any other host (a DNS-rebinding
#: page in the reviewer's browser, whose name now points at 127.0.0.1) gets 400.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def create_app(
    folder: Path,
    reviewer: str,
    log: AnswerLog | None = None,
    *,
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS,
) -> FastAPI:
    """The review page of the task in ``folder`` for ``reviewer``; answers go to ``log``
    (default: the task's answers.csv; a stored task passes its store-backed log). Only
    requests whose ``Host`` is one of ``allowed_hosts`` are answered."""
    if not reviewer.strip():
        raise ConfigError("a reviewer name is required")
    task = load_task(folder)
    slots = schedule(task, reviewer)
    log = log if log is not None else AnswerLog(task)
    shown: dict[int, float] = {}
    secret = hashlib.sha256(f"{task.created_at}\0{task.seed}\0{folder.resolve()}".encode()).digest()
    files: dict[str, Path] = {}
    tokens: dict[tuple[str, str], str] = {}
    for item in task.items:
        for side, path in (("A", item.a), ("B", item.b)):
            if not path:
                continue
            token = hmac.new(secret, f"{item.id}\0{side}".encode(), "sha256").hexdigest()[:24]
            files[token] = Path(path)
            tokens[(item.id, side)] = token
    options: dict[str, list[str]] = {}
    for option in task.options:
        options.setdefault(option.label, []).append(option.key)
    app = FastAPI(title=f"review {task.name}", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    csrf = secrets.token_urlsafe(32)  # per server start: a form from another site cannot know it

    def secure(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @app.get("/", response_class=HTMLResponse)
    def page() -> Response:
        answered = log.answered(reviewer)
        slot = next((s for s in slots if s.slot not in answered), None)
        left = right = ""
        if slot is not None:
            left = tokens.get((slot.item, slot.order[0]), "")
            right = tokens.get((slot.item, slot.order[1]), "")
            left, right = (left or right), (right if left else "")  # a single output: left
            shown[slot.slot] = time.monotonic()
        html = _PAGE.render(task=task, slot=slot, done=len(answered), total=len(slots), csrf=csrf,
                            left=left, right=right, options=list(options.items()))  # fmt: skip
        return secure(HTMLResponse(html))

    @app.post("/answer")
    def answer(
        request: Request,
        slot: int = Form(...),
        choice: str = Form(...),
        csrf_token: str = Form("", alias="csrf"),
    ) -> Response:
        if not same_origin(request) or not hmac.compare_digest(csrf_token, csrf):
            raise HTTPException(status_code=403, detail="cross-site or stale form: reload the page")
        if not 0 <= slot < len(slots) or choice not in options:
            raise HTTPException(status_code=400, detail="unknown slot or answer")
        started = shown.pop(slot, None)
        seconds = None if started is None else time.monotonic() - started
        log.record(slots[slot], reviewer, choice, seconds)
        return secure(RedirectResponse("/", status_code=303))

    @app.get("/img/{token}")
    def image(token: str) -> Response:
        path = files.get(token)
        if path is None or not path.is_file():
            raise HTTPException(status_code=404)
        media = "image/" + {"jpg": "jpeg"}.get(path.suffix[1:].lower(), path.suffix[1:].lower())
        return secure(FileResponse(path, media_type=media))

    @app.get("/review.js")
    def script() -> Response:
        return secure(Response(_SCRIPT, media_type="text/javascript"))

    return app


def serve_task(
    folder: Path,
    reviewer: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    log: AnswerLog | None = None,
) -> None:
    """Serve the review page until interrupted."""
    import uvicorn

    hosts = (
        LOCAL_HOSTS if host in LOCAL_HOSTS or host in ("0.0.0.0", "::") else (*LOCAL_HOSTS, host)
    )
    app = create_app(folder, reviewer, log, allowed_hosts=hosts)
    uvicorn.run(app, host=host, port=port, log_level="warning")
