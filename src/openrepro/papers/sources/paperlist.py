"""Paper lists in JSON or CSV.

Accepted shapes (one object or CSV row per paper):
- papercopilot/paperlists: ``id, title, author (", "-separated), status, track, site`` and, in some
  lists, ``abstract, keywords (";"-separated), pdf, openreview, arxiv``;
- openrepro's own fields: ``venue_id, title, authors (list, or ";"-separated in CSV), abstract,
  status, track, decision, site_url, pdf_url, arxiv_id, keywords, licence``.

A JSON file is a list of objects or ``{"papers": [...]}``. Strings are stored exactly as written
(LaTeX, quotes, non-ASCII names round-trip byte for byte).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources.base import SourceItem, SourceReader

__all__ = ["read_paper_list", "record_from_mapping"]

_ALIASES = {
    "venue_id": ("venue_id", "id", "openreview_id"),
    "authors": ("authors", "author"),
    "site_url": ("site_url", "site", "url"),
    "pdf_url": ("pdf_url", "pdf"),
    "arxiv_id": ("arxiv_id", "arxiv"),
}
_PLAIN = ("title", "abstract", "status", "track", "decision", "licence")
_EXTRA = "\x00extra"
_MAX_FILE_BYTES = 512 * 1024 * 1024


def _first(row: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        value = row.get(name)
        if value not in (None, ""):
            return value
    return None


def _split_authors(value: Any, field: str) -> list[str] | None:
    if value is None or value == "":
        return None
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"{field}: every author must be a string")
        return value
    if not isinstance(value, str):
        raise ValueError(f"{field}: expected a string or a list of strings")
    if field == "authors" and ";" in value:
        return [a.strip() for a in value.split(";") if a.strip()]
    # papercopilot joins names with ", ": splitting on exactly that keeps the join reversible.
    return value.split(", ") if value else []


def _split_keywords(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    return [k.strip() for k in str(value).split(";") if k.strip()]


def _arxiv(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    for prefix in ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv:", "arXiv:"):
        text = text.removeprefix(prefix)
    return text or None


def record_from_mapping(row: Mapping[str, Any], *, source: str, origin: str) -> PaperRecord:
    """Map one list entry to a :class:`PaperRecord`; raises ValueError/ValidationError if bad."""
    venue_id = _first(row, _ALIASES["venue_id"])
    if venue_id is None:
        raise ValueError("no id (expected 'id' or 'venue_id')")
    author_field = "authors" if row.get("authors") not in (None, "") else "author"
    data: dict[str, Any] = {
        "venue_id": str(venue_id),
        "authors": _split_authors(row.get(author_field), author_field),
        "site_url": _first(row, _ALIASES["site_url"]),
        "pdf_url": _first(row, _ALIASES["pdf_url"]),
        "arxiv_id": _arxiv(_first(row, _ALIASES["arxiv_id"])),
        "keywords": _split_keywords(row.get("keywords")),
        "source": source,
        "origin": origin,
    }
    for name in _PLAIN:
        value = row.get(name)
        if value not in (None, ""):
            if not isinstance(value, str):
                raise ValueError(f"{name}: expected a string, got {type(value).__name__}")
            data[name] = value
    if "title" not in data:
        raise ValueError("no title")
    return PaperRecord.model_validate(data)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'entry'}: {err['msg']}"
            for err in exc.errors()
        )
    return str(exc)


def _convert(rows: Iterator[tuple[str, Any]], source: str) -> Iterator[SourceItem]:
    for location, row in rows:
        if not isinstance(row, Mapping):
            yield SkippedItem(
                location=location, reason=f"expected an object, got {type(row).__name__}"
            )
            continue
        try:
            yield record_from_mapping(row, source=source, origin=location)
        except (ValueError, ValidationError) as exc:
            ident = _first(row, _ALIASES["venue_id"])
            where = f"{location} (id {ident})" if ident is not None else location
            yield SkippedItem(location=where, reason=_reason(exc))


def _read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > _MAX_FILE_BYTES:
            raise SourceError(f"{path}: {size} bytes is larger than the {_MAX_FILE_BYTES} limit")
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _json_entries(path: Path) -> list[Any]:
    try:
        data = json.loads(_read_bytes(path).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    if not isinstance(data, list):
        raise SourceError(f'{path}: expected a list of papers or {{"papers": [...]}}')
    return data


def _csv_rows(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """(location, row) pairs; a row that cannot be used comes as (location, reason string)."""
    reader = csv.DictReader(io.StringIO(text, newline=""), restkey=_EXTRA)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield f"{path.name}: line {reader.line_num}", f"malformed CSV: {exc}"
            continue
        location = f"{path.name}: line {reader.line_num}"
        if row.get(_EXTRA):
            yield location, "more cells than header columns"
        elif any(value is None for value in row.values()):
            yield location, "fewer cells than header columns"
        else:
            yield location, row


def read_paper_list(path: Path) -> SourceReader:
    """Open a JSON or CSV paper list (the file is read eagerly, so errors surface at once)."""
    source = f"list:{path.name}"
    if path.suffix.lower() == ".json":
        entries = _json_entries(path)

        def json_items() -> Iterator[SourceItem]:
            rows = ((f"{path.name}: entry {i + 1}", e) for i, e in enumerate(entries))
            yield from _convert(rows, source)

        return SourceReader(label=str(path), items=json_items, total=len(entries))

    try:
        text = _read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 ({exc})") from exc
    total = max(len(text.splitlines()) - 1, 0)

    def csv_items() -> Iterator[SourceItem]:
        for location, row in _csv_rows(path, text):
            if isinstance(row, str):
                yield SkippedItem(location=location, reason=row)
            else:
                yield from _convert(iter([(location, row)]), source)

    return SourceReader(label=str(path), items=csv_items, total=total)
