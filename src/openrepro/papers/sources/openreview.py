"""OpenReview API v2: the accepted papers of a venue (``openreview:VENUE_ID``).

In API v2 a submission's ``content.venueid`` is the venue id once it is accepted (rejected and
withdrawn submissions carry ``.../Rejected_Submission`` and the like), so the reader asks for the
notes whose ``content.venueid`` equals the venue, page by page as ``get_all_notes`` does (sorted
by id, ``after`` the last id of the previous page), and streams them.

Credentials are optional (accepted papers of public venues are readable as a guest):
``OPENREVIEW_TOKEN``, or ``OPENREVIEW_USERNAME`` and ``OPENREVIEW_PASSWORD``.

openreview-py's session retries up to 8 times with backoff of up to two minutes (honouring any
``Retry-After``, printing each retry to stdout) and sets no timeout, and its constructor logs in
with that session when OPENREVIEW_USERNAME/PASSWORD are set. The reader keeps the constructor off
the network, then replaces the session's adapters with a short retry policy and a timeout before
any request, so an unreachable or failing service is reported in seconds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import requests
from openreview import OpenReviewException
from openreview.api import OpenReviewClient
from pydantic import ValidationError
from requests.adapters import HTTPAdapter
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources.base import SourceItem, SourceReader

__all__ = ["read_openreview"]

PAGE_SIZE = 1000  # the API's maximum; a server may answer with fewer notes per page
TIMEOUT_S = (10.0, 60.0)  # (connect, read)
MAX_RETRY_AFTER_S = 10.0
# A token that is not a JWT: the constructor then neither logs in nor fetches a profile.
_NO_LOGIN_TOKEN = "openrepro-placeholder"
_PRESENTATION = re.compile(r"\b(oral|spotlight|poster)", re.IGNORECASE)
# What a failing request raises: transport errors, API errors, an unexpected response body.
_REQUEST_ERRORS = (requests.RequestException, OpenReviewException, KeyError, TypeError, ValueError)


class _Retry(Retry):
    """urllib3's retry, with the server's ``Retry-After`` capped (it can ask for minutes)."""

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        seconds = super().get_retry_after(response)
        return None if seconds is None else min(seconds, MAX_RETRY_AFTER_S)


class _BoundedAdapter(HTTPAdapter):
    """A transport adapter with few, short retries and a timeout on every request."""

    def __init__(self) -> None:
        retry = _Retry(
            total=3,
            connect=1,
            read=1,
            status=2,
            backoff_factor=0.25,
            status_forcelist=(429, 500, 502, 503, 504),
            raise_on_status=False,  # the client turns the final error response into a message
        )
        super().__init__(max_retries=retry)

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: dict[str, str] | None = None,
    ) -> requests.Response:
        return super().send(
            request,
            stream=stream,
            timeout=TIMEOUT_S if timeout is None else timeout,
            verify=verify,
            cert=cert,
            proxies=proxies,
        )


def web_url(baseurl: str) -> str:
    """The site that serves forums and PDFs: ``https://api2.openreview.net`` → openreview.net.

    Any other host (a local or test server) serves them itself, so the base URL is returned.
    """
    host = urlsplit(baseurl).hostname or ""
    if host.endswith(".openreview.net"):
        for prefix in ("api2.", "api."):
            if host.startswith(prefix):
                return f"https://{host.removeprefix(prefix)}"
    return baseurl.rstrip("/")


def _api_error(exc: BaseException) -> dict[str, Any] | None:
    """The ``{name, message, status}`` body of an API error, if ``exc`` carries one."""
    if isinstance(exc, OpenReviewException) and exc.args and isinstance(exc.args[0], dict):
        return exc.args[0]
    return None


def _error_text(exc: BaseException) -> str:
    """A one-line description of a failed request."""
    info = _api_error(exc)
    if info is not None:
        status = f"HTTP {info['status']} " if "status" in info else ""
        return f"{status}{info.get('name', 'Error')}: {info.get('message', '')}".strip()
    if isinstance(exc, OpenReviewException):
        return str(exc.args[0]) if exc.args else type(exc).__name__
    if isinstance(exc, requests.ConnectionError) and exc.args:
        reason = getattr(exc.args[0], "reason", exc.args[0])
        return f"cannot connect ({reason})"
    if isinstance(exc, requests.RequestException):
        return f"{type(exc).__name__}: {exc}"
    return f"unexpected response ({type(exc).__name__}: {exc})"


def _open_client(baseurl: str) -> Any:
    """A client with a bounded session, authenticated from the environment if credentials are set.

    The constructor would log in on its own (it reads OPENREVIEW_USERNAME/PASSWORD itself) with
    its minutes-long retry policy; a placeholder token stops it, and authentication happens here
    once the session is bounded.
    """
    client = OpenReviewClient(baseurl=baseurl, token=_NO_LOGIN_TOKEN)
    client.token = None
    client.headers.pop("Authorization", None)
    session: requests.Session = client.session
    session.adapters.clear()  # also drops the edit endpoints' adapters, unused here
    session.mount("https://", _BoundedAdapter())
    session.mount("http://", _BoundedAdapter())

    token = os.environ.get("OPENREVIEW_TOKEN", "").strip().removeprefix("Bearer ")
    username = os.environ.get("OPENREVIEW_USERNAME", "")
    password = os.environ.get("OPENREVIEW_PASSWORD", "")
    if token:
        client.token = token
        client.headers["Authorization"] = f"Bearer {token}"
    elif username or password:
        if not (username and password):
            raise SourceError(
                "OpenReview: set both OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD "
                "(or OPENREVIEW_TOKEN), or neither to read as a guest"
            )
        try:
            client.login_user(username, password)
        except _REQUEST_ERRORS as exc:
            raise SourceError(
                f"OpenReview: cannot log in as {username} at {baseurl}: {_error_text(exc)}"
            ) from exc
    return client


def _first_page(client: Any, venue: str) -> tuple[list[Any], int]:
    """The first page of accepted notes and the number of all of them."""
    notes, count = client.get_notes(
        content={"venueid": venue}, sort="id", limit=PAGE_SIZE, with_count=True
    )
    return list(notes), int(count)


def _next_page(client: Any, venue: str, after: str) -> list[Any]:
    notes = client.get_notes(content={"venueid": venue}, sort="id", limit=PAGE_SIZE, after=after)
    return list(notes)


def _check_venue_exists(client: Any, venue: str, baseurl: str) -> None:
    """Raise SourceError unless ``venue`` is a group (called when no paper was found)."""
    try:
        client.get_group(venue)
    except _REQUEST_ERRORS as exc:
        info = _api_error(exc) or {}
        if info.get("status") == 404 or info.get("name") == "NotFoundError":
            raise SourceError(
                f"OpenReview: unknown venue {venue!r} at {baseurl} "
                "(expected a venue id such as ICML.cc/2025/Conference)"
            ) from exc
        raise SourceError(
            f"OpenReview: cannot read venue {venue!r} at {baseurl}: {_error_text(exc)}"
        ) from exc


def _value(content: dict[str, Any], key: str) -> Any:
    """The value of an API v2 content field (``{"value": ...}``), or None."""
    field = content.get(key)
    return field.get("value") if isinstance(field, dict) else None


def _text(content: dict[str, Any], key: str) -> str | None:
    value = _value(content, key)
    return value if isinstance(value, str) and value.strip() else None


def _text_list(content: dict[str, Any], key: str) -> list[str] | None:
    value = _value(content, key)
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def presentation_status(venue_label: str | None) -> str | None:
    """``"ICML 2025 spotlightposter"`` → ``"Spotlight"``; None if no oral/spotlight/poster."""
    match = _PRESENTATION.search(venue_label or "")
    return match.group(1).capitalize() if match else None


def _pdf_url(content: dict[str, Any], site: str) -> str | None:
    path = _text(content, "pdf")
    if path is None or path.startswith(("http://", "https://")):
        return path
    return f"{site}/{path.lstrip('/')}"


def _validation_reason(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'note'}: {err['msg']}" for err in exc.errors()
    )


def note_item(note: Any, venue: str, site: str) -> SourceItem:
    """Map one API v2 note to a record, or to a skipped item saying why it cannot be one."""
    location = f"openreview:{venue} note {note.id}"
    content: dict[str, Any] = note.content if isinstance(note.content, dict) else {}
    venueid = _value(content, "venueid")
    if venueid != venue:
        return SkippedItem(location=location, reason=f"not accepted (venueid {venueid!r})")
    title = _text(content, "title")
    if title is None:
        return SkippedItem(location=location, reason="note has no title")
    label = _text(content, "venue")
    try:
        return PaperRecord(
            venue_id=note.id,
            title=title,
            authors=_text_list(content, "authors"),
            abstract=_text(content, "abstract"),
            keywords=_text_list(content, "keywords"),
            status=presentation_status(label),
            decision=label,
            pdf_url=_pdf_url(content, site),
            site_url=f"{site}/forum?id={note.forum or note.id}",
            licence=note.license if isinstance(note.license, str) else None,
            source=f"openreview:{venue}",
            origin=location,
        )
    except ValidationError as exc:
        return SkippedItem(location=location, reason=_validation_reason(exc))


def read_openreview(venue: str, settings: Settings) -> SourceReader:
    """Open the accepted papers of an OpenReview venue; the first page is fetched at once.

    Raises SourceError if the service cannot be reached, the login fails or the venue is unknown.
    """
    venue = venue.strip()
    if not venue:
        raise SourceError("openreview: expects a venue id, e.g. openreview:ICML.cc/2025/Conference")
    baseurl = settings.openreview_baseurl.rstrip("/")
    try:
        client = _open_client(baseurl)
        first, count = _first_page(client, venue)
    except OpenReviewException as exc:
        raise SourceError(f"OpenReview at {baseurl}: {_error_text(exc)}") from exc
    except _REQUEST_ERRORS as exc:
        raise SourceError(
            f"OpenReview: cannot read {baseurl}/notes for {venue}: {_error_text(exc)}"
        ) from exc
    if not first:
        _check_venue_exists(client, venue, baseurl)
    site = web_url(baseurl)

    def items() -> Iterator[SourceItem]:
        page = first
        while page:
            for note in page:
                yield note_item(note, venue, site)
            after = str(page[-1].id)
            try:
                page = _next_page(client, venue, after)
            except _REQUEST_ERRORS as exc:
                raise SourceError(
                    f"OpenReview: reading {venue} from {baseurl} failed after note {after}: "
                    f"{_error_text(exc)}"
                ) from exc
            if page and str(page[-1].id) == after:
                raise SourceError(f"OpenReview at {baseurl}: the server repeats the page {after}")

    return SourceReader(label=f"openreview:{venue}", items=items, total=count)
