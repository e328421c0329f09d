"""arXiv papers by id, through the Hugging Face Papers API (``arxiv:ID[,ID...]``, ``arxiv:@FILE``).

A FILE holds one id per line; blank lines and ``#`` comments are ignored. Ids are new-style
(``2501.01234``, ``2501.01234v2``) or old-style (``hep-th/9901001``), optionally written as
``arXiv:ID`` or an ``arxiv.org/abs/`` URL; a version suffix is dropped, since a record describes
the paper, not one version.

Each paper is one ``GET {endpoint}/api/papers/{id}``, the request of ``HfApi.paper_info``, sent
through huggingface_hub's shared session but with a timeout (``paper_info`` sets none). The
response is read into huggingface_hub's ``PaperInfo``. An invalid id, an unknown paper (404) or
any other HTTP error skips that paper; an endpoint that cannot be reached at the first request,
or for several papers in a row, is a :class:`~openrepro.errors.SourceError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx2
from pydantic import ValidationError

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources.base import SourceItem, SourceReader

if TYPE_CHECKING:  # huggingface_hub is imported when a paper is fetched, not with this module
    from huggingface_hub.errors import HfHubHTTPError
    from huggingface_hub.hf_api import PaperInfo

__all__ = ["normalize_arxiv_id", "read_arxiv"]

TIMEOUT_S = 30.0
MAX_NETWORK_FAILURES = 3  # consecutive papers whose request failed before the source gives up
_NEW_STYLE = re.compile(r"\d{2}(0[1-9]|1[0-2])\.\d{4,5}")
_OLD_STYLE = re.compile(r"[a-z]+(-[a-z]+)*(\.[A-Z]{2})?/\d{2}(0[1-9]|1[0-2])\d{3}")
_VERSION = re.compile(r"v\d+$")
_PREFIXES = ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv:")


@dataclass(frozen=True)
class _Entry:
    """One id as written, and where (for messages)."""

    location: str
    text: str


def normalize_arxiv_id(text: str) -> str | None:
    """The id without prefix or version (``arXiv:2501.01234v2`` → ``2501.01234``), or None."""
    value = text.strip()
    for prefix in _PREFIXES:
        if value.lower().startswith(prefix):
            value = value[len(prefix) :]
    value = _VERSION.sub("", value)
    if _NEW_STYLE.fullmatch(value) or _OLD_STYLE.fullmatch(value):
        return value
    return None


def _file_entries(path: Path) -> list[_Entry]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 ({exc})") from exc
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        value = line.split("#", 1)[0].strip()
        if value:
            entries.append(_Entry(location=f"{path.name}: line {number} ({value})", text=value))
    return entries


def _entries(spec: str) -> list[_Entry]:
    """The ids named by ``spec``; SourceError if the file cannot be read or names none."""
    spec = spec.strip()
    if spec.startswith("@"):
        path = Path(spec[1:]).expanduser()
        entries = _file_entries(path)
        if not entries:
            raise SourceError(f"{path}: no arXiv ids (one per line expected)")
        return entries
    values = [value.strip() for value in spec.split(",") if value.strip()]
    if not values:
        raise SourceError("arxiv: expects ID[,ID...] or @FILE, e.g. arxiv:2501.01234")
    return [_Entry(location=f"arxiv:{value}", text=value) for value in values]


def _http_reason(exc: HfHubHTTPError) -> str:
    status = exc.response.status_code
    if status == 404:
        return "not found in the Hugging Face Papers API (HTTP 404)"
    detail = f": {exc.server_message}" if exc.server_message else ""
    return f"HTTP {status} from {exc.response.url}{detail}"


class _Fetcher:
    """Requests papers; tells a paper the service refuses from a service that is not there."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.answered = False  # the endpoint has answered at least once
        self.failures = 0  # consecutive requests that got no answer

    def fetch(self, arxiv_id: str) -> PaperInfo | str:
        """The paper, or the reason it is skipped; SourceError if the endpoint is unreachable."""
        from huggingface_hub import get_session, hf_raise_for_status
        from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled
        from huggingface_hub.hf_api import PaperInfo

        url = f"{self.endpoint}/api/papers/{arxiv_id}"
        try:
            response = get_session().get(url, timeout=TIMEOUT_S)
        except OfflineModeIsEnabled as exc:
            raise SourceError(f"arxiv: {exc}") from exc
        except httpx2.TransportError as exc:
            return self._no_answer(url, exc)
        self.answered, self.failures = True, 0
        try:
            hf_raise_for_status(response)
            return PaperInfo(**response.json())
        except HfHubHTTPError as exc:
            return _http_reason(exc)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            return f"unexpected response from {url} ({type(exc).__name__}: {exc})"

    def _no_answer(self, url: str, exc: httpx2.TransportError) -> str:
        self.failures += 1
        reason = f"{type(exc).__name__}: {exc}"
        if not self.answered:
            raise SourceError(f"arxiv: cannot reach {self.endpoint} ({url}): {reason}") from exc
        if self.failures >= MAX_NETWORK_FAILURES:
            raise SourceError(
                f"arxiv: {self.endpoint} stopped answering ({self.failures} requests failed "
                f"in a row; last: {reason})"
            ) from exc
        return f"no answer from {url} ({reason})"


def _record(info: PaperInfo, arxiv_id: str, origin: str) -> PaperRecord:
    title = " ".join((info.title or "").split())
    if not title:
        raise ValueError("the Papers API gives no title")
    return PaperRecord(
        venue_id=f"arxiv:{arxiv_id}",
        title=title,
        authors=[author.name for author in info.authors] if info.authors else None,
        abstract=info.summary.strip() if info.summary else None,
        site_url=f"https://arxiv.org/abs/{arxiv_id}",
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}",
        arxiv_id=arxiv_id,
        licence=None,
        source="arxiv",
        origin=origin,
    )


def _item(entry: _Entry, arxiv_id: str, outcome: PaperInfo | str) -> SourceItem:
    if isinstance(outcome, str):
        return SkippedItem(location=entry.location, reason=outcome)
    try:
        return _record(outcome, arxiv_id, entry.location)
    except ValidationError as exc:
        reason = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return SkippedItem(location=entry.location, reason=reason)
    except ValueError as exc:
        return SkippedItem(location=entry.location, reason=str(exc))


def read_arxiv(spec: str, settings: Settings) -> SourceReader:
    """Open ``ID[,ID...]`` or ``@FILE``; the first valid id is fetched at once.

    Raises SourceError if the file cannot be read, names no id, or the endpoint cannot be reached.
    """
    from huggingface_hub.hf_api import HfApi

    entries = _entries(spec)
    endpoint = HfApi(endpoint=settings.hf_endpoint or None).endpoint.rstrip("/")
    fetcher = _Fetcher(endpoint)
    probe: dict[str, PaperInfo | str] = {}
    first_id = next((i for e in entries if (i := normalize_arxiv_id(e.text))), None)
    if first_id is not None:
        probe[first_id] = fetcher.fetch(first_id)

    def items() -> Iterator[SourceItem]:
        seen: dict[str, str] = {}
        for entry in entries:
            arxiv_id = normalize_arxiv_id(entry.text)
            if arxiv_id is None:
                reason = f"not an arXiv id: {entry.text!r}"
                yield SkippedItem(location=entry.location, reason=reason)
            elif arxiv_id in seen:
                reason = f"{arxiv_id} is listed twice (first at {seen[arxiv_id]})"
                yield SkippedItem(location=entry.location, reason=reason)
            else:
                seen[arxiv_id] = entry.location
                outcome = probe.pop(arxiv_id) if arxiv_id in probe else fetcher.fetch(arxiv_id)
                yield _item(entry, arxiv_id, outcome)

    label = f"arxiv:{spec.strip()}" if len(spec) <= 80 else f"arxiv: {len(entries)} ids"
    return SourceReader(label=label, items=items, total=len(entries))
