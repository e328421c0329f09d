"""The one home of manifest reading: a bundle's ``manifest.json`` and a Trackio ``logbook.json``.

Both are JSON objects read whole, in memory, under the same size cap and with the same error
messages (:func:`read_json_object`); each is then validated by its own pydantic model.

Trackio ``logbook.json``, every schema the 2026 event used:

* **schema 2** (trackio 0.43): ``title``, ``emoji``, ``space_id``, ``paper``, ``tags``,
  ``updated_at``, the page tree ``root``, ``traces``, ``workspace``, token counts and a
  ``revision`` (a 20-hex content hash).
* **schema 1** (the trackio releases most participants ran): the same keys less ``traces`` and
  ``workspace``; ``revision`` is a decimal nanosecond clock, ``paper`` may be ``null``.

Trackio 0.43 itself never trusts the manifest's page tree: it rebuilds it from the pages on disk
(``trackio.logbook.build_manifest``). It cannot be called on a submission as it stands: it orders
pages by file ``ctime`` (which an archive or a git checkout does not keep, so the same logbook
would read differently twice), parses ``metadata.json`` without a cap and raises on a malformed
one, and needs the ``.trackio`` folder a published Space does not have. So :func:`page_tree`
does what it does, deterministically: the manifest's pages that exist, in manifest order, then
the pages on disk the manifest does not list (``pages/<slug>/page.md``, ordered by the index
page's ``(#/slug)`` links, then by slug), titled by their first ``# `` heading as Trackio titles
them. Each disagreement is a warning, never a refusal; a page path that escapes the logbook is
still refused. A schema this reader does not know is refused with its number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from openrepro.errors import LogbookError

__all__ = [
    "CHECKS_FILE",
    "EVIDENCE_MAP_FILE",
    "EVIDENCE_MAP_FORMAT",
    "MAX_JSON_BYTES",
    "MAX_TAGS",
    "TRACKIO_SCHEMAS",
    "EvidenceMap",
    "MapPointer",
    "PageNode",
    "TrackioManifest",
    "check_json_size",
    "json_limit_problem",
    "page_tree",
    "read_evidence_map",
    "read_json_object",
    "read_trackio_manifest",
    "validation_problems",
]

MAX_JSON_BYTES = 16 * 1024 * 1024  # manifest.json, logbook.json: parsed whole, in memory
MAX_TAGS = 1000  # Trackio writes a handful; a logbook with more is not one a person tagged
MAX_TAG_CHARS = 300
TRACKIO_SCHEMAS = (1, 2)
_LINK_RE = re.compile(r"\(#/([A-Za-z0-9._-]+)\)")  # as trackio.logbook._link_order reads them
_HEADING_RE = re.compile(r"#\s+(.+)")


def json_limit_problem(exc: Exception) -> str:
    """Why :func:`json.loads` gave up on syntactically valid JSON beyond Python's limits
    (a ``RecursionError`` for deep nesting, a ``ValueError`` for a too long integer)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)


def check_json_size(path: Path, name: str) -> None:
    """Refuse a JSON file too large to parse in memory."""
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise LogbookError(f"{name}: {size:,} bytes, above the limit of {MAX_JSON_BYTES:,}")


def read_json_object(path: Path, name: str) -> dict[str, Any]:
    """A JSON object from ``path`` (at most :data:`MAX_JSON_BYTES`); errors name ``name``."""
    check_json_size(path, name)
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LogbookError(f"{name}: not valid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise LogbookError(f"{name}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except (RecursionError, ValueError) as exc:
        raise LogbookError(f"{name}: unreadable JSON ({json_limit_problem(exc)})") from exc
    if not isinstance(data, dict):
        raise LogbookError(f"{name}: expected a JSON object")
    return data


def _where(loc: tuple[int | str, ...]) -> str:
    """A field's location, its middle elided when deep (pages nest)."""
    parts = [str(p) for p in loc]
    if len(parts) > 12:
        parts = [*parts[:4], f"...({len(parts) - 8} more)...", *parts[-4:]]
    return ".".join(parts) or "top level"


def validation_problems(exc: ValidationError) -> str:
    """The first ten problems of a pydantic validation, each with its location."""
    return "; ".join(f"{_where(err['loc'])}: {err['msg']}" for err in exc.errors()[:10])


class PageNode(BaseModel):
    slug: str = Field(min_length=1)
    title: str = ""
    file: str = Field(min_length=1)
    children: list[PageNode] = Field(default_factory=list)


class TrackioManifest(BaseModel):
    """The part of ``logbook.json`` this reader relies on (other keys are ignored)."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int
    title: str = ""
    space_id: str | None = None
    paper: str | dict[str, Any] | None = None
    tags: list[str] = Field(default_factory=list, max_length=MAX_TAGS)
    root: PageNode
    traces: list[dict[str, Any]] = Field(default_factory=list)
    revision: str | int | None = None
    updated_at: str | None = None  # when Trackio last wrote it (its clock)

    @field_validator("updated_at", mode="before")
    @classmethod
    def _time_text(cls, value: Any) -> str | None:
        """A time written as text, at most 100 characters; anything else is not recorded."""
        return value if isinstance(value, str) and len(value) <= 100 else None


def read_trackio_manifest(path: Path, name: str) -> TrackioManifest:
    """Read ``logbook.json`` of any schema the event used; an unknown one names its version."""
    data = read_json_object(path, name)
    version = data.get("schema_version")
    if isinstance(version, bool) or version not in TRACKIO_SCHEMAS:
        known = ", ".join(str(v) for v in TRACKIO_SCHEMAS)
        raise LogbookError(
            f"{name}: unsupported schema_version {version!r} (this reader knows {known}; "
            "a newer Trackio wrote it, or it is not a Trackio logbook)"
        )
    tags = data.get("tags")
    if isinstance(tags, list) and len(tags) > MAX_TAGS:
        raise LogbookError(f"{name}: {len(tags):,} tags, more than the cap of {MAX_TAGS:,}")
    if data.get("tags") is None:
        data["tags"] = []  # schema 1 writes null when metadata.json has none
    try:
        manifest = TrackioManifest.model_validate(data)
    except ValidationError as exc:
        raise LogbookError(f"{name}: {validation_problems(exc)}") from exc
    for tag in manifest.tags:
        if len(tag) > MAX_TAG_CHARS or "\x00" in tag:
            raise LogbookError(f"{name}: tag {tag[:60]!r}... is not a tag (too long or NUL)")
    return manifest


# ---- the page tree, as Trackio reads it ----


def _walk(node: PageNode) -> list[PageNode]:
    found = [node]
    for child in node.children:
        found.extend(_walk(child))
    return found


def _title_of(path: Path, fallback: str) -> str:
    """The first ``# heading`` of a page, as Trackio titles pages it finds on disk."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for _, line in zip(range(200), handle, strict=False):
                match = _HEADING_RE.match(line.strip())
                if match:
                    return match.group(1).strip()
    except OSError:
        pass
    return fallback


def _link_order(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return list(dict.fromkeys(_LINK_RE.findall(text)))


def _exists(logbook_dir: Path, file: str) -> bool:
    pure = PurePosixPath(file)
    if pure.is_absolute() or ".." in pure.parts or "\\" in file or "\x00" in file:
        return True  # let the reader refuse it with its own message
    path = logbook_dir / pure
    return path.is_file() or path.is_symlink()


def page_tree(logbook_dir: Path, manifest: TrackioManifest) -> tuple[list[PageNode], list[str]]:
    """The pages to read, in order, and a warning per disagreement with the pages on disk.

    See the module docstring: listed pages that exist, then unlisted ``pages/<slug>/page.md``.
    """
    warnings: list[str] = []
    nodes: list[PageNode] = []
    listed: set[str] = set()
    for node in _walk(manifest.root):
        listed.add(PurePosixPath(node.file).as_posix())
        if _exists(logbook_dir, node.file):
            nodes.append(node)
        else:
            warnings.append(
                f"logbook.json lists page {node.slug!r} ({node.file}), which is not in the "
                "logbook: skipped, as Trackio skips it"
            )
    pages = logbook_dir / "pages"
    if pages.is_dir() and not pages.is_symlink():
        order = _link_order(pages / "index.md")
        rank = {name: i for i, name in enumerate(order)}  # a lookup: 20,000 pages were n^2
        found = sorted(
            (d for d in pages.iterdir() if d.is_dir() and not d.is_symlink()),
            key=lambda d: (rank.get(d.name, len(order)), d.name),
        )
        for folder in found:
            file = f"pages/{folder.name}/page.md"
            if file in listed or not (folder / "page.md").is_file():
                continue
            nodes.append(
                PageNode(slug=folder.name, title=_title_of(folder / "page.md", folder.name),
                         file=file)
            )  # fmt: skip
            warnings.append(f"page {file} is not listed in logbook.json: read, as Trackio reads it")
    return nodes, warnings


# ---- the participant's evidence map ----

EVIDENCE_MAP_FILE = "evidence_map.json"  # at the logbook's root, beside .trackio/
#: the participant's proposed checks, at the logbook's root (openrepro.claims.proposals)
CHECKS_FILE = "checks.json"
EVIDENCE_MAP_FORMAT = 1
MAX_MAP_ENTRIES = 10_000  # pointers in one map
MAX_MAP_TEXT = 500  # characters of a path, key, column or value


class MapPointer(BaseModel):
    """Where one quantity's values are, as the participant says: a **pointer**, never a value.

    Exactly one of ``metric`` (a metric key: one value per Trackio run, its last step),
    ``file`` (a table file a recorded run produced, by its path in the logbook) or ``table``
    (a table by id: ``<run cell id>#<n>`` for the n-th table a run printed). A file or a table
    needs a ``column``; ``row`` (from 1) picks one row, ``where`` (column -> value) every row
    that matches all of it; with neither, every row is a seed. ``x`` names the column that
    holds the swept variable, for a swept quantity."""

    model_config = ConfigDict(extra="forbid")

    metric: str = Field(default="", max_length=MAX_MAP_TEXT)
    file: str = Field(default="", max_length=MAX_MAP_TEXT)
    table: str = Field(default="", max_length=MAX_MAP_TEXT)
    row: int | None = Field(default=None, ge=1)
    where: dict[str, str | int | float] = Field(default_factory=dict, max_length=20)
    column: str = Field(default="", max_length=MAX_MAP_TEXT)
    x: str = Field(default="", max_length=MAX_MAP_TEXT)

    @model_validator(mode="after")
    def _one_place(self) -> MapPointer:
        given = [name for name in ("metric", "file", "table") if getattr(self, name)]
        if len(given) != 1:
            raise ValueError("give exactly one of metric, file or table")
        if self.metric and (self.row is not None or self.where or self.column or self.x):
            raise ValueError("a metric pointer takes no row, where, column or x")
        if not self.metric and not self.column:
            raise ValueError("a file or table pointer needs a column")
        if self.row is not None and self.where:
            raise ValueError("give row or where, not both")
        if any(len(str(k)) > MAX_MAP_TEXT or len(str(v)) > MAX_MAP_TEXT
               for k, v in self.where.items()):  # fmt: skip
            raise ValueError(f"where: a column or value above {MAX_MAP_TEXT} characters")
        return self

    def describe(self) -> str:
        """The pointer as people read it (``outputs/runs.csv, rows method=ours, column acc``)."""
        if self.metric:
            return f"metric {self.metric}"
        rows = (
            f"row {self.row}" if self.row is not None
            else "rows " + ", ".join(f"{k}={v}" for k, v in self.where.items()) if self.where
            else "every row"
        )  # fmt: skip
        return f"{self.file or 'table ' + self.table}, {rows}, column {self.column}"


class EvidenceMap(BaseModel):
    """``evidence_map.json``: per claim (its id ``p1/C1`` or key ``C1``) and quantity name, one
    pointer or a list of them (each list item gives its own seeds). Testimony: it only says
    where to look; the judge reads every value there itself and checks that a successful
    recorded run produced it."""

    model_config = ConfigDict(extra="forbid")

    format: int
    claims: dict[str, dict[str, MapPointer | list[MapPointer]]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_format(self) -> EvidenceMap:
        if self.format != EVIDENCE_MAP_FORMAT:
            raise ValueError(
                f"format {self.format} is not known (this openrepro reads format "
                f"{EVIDENCE_MAP_FORMAT})"
            )
        entries = [p for quantities in self.claims.values() for p in quantities.values()]
        count = sum(len(p) if isinstance(p, list) else 1 for p in entries)
        if count > MAX_MAP_ENTRIES:
            raise ValueError(f"{count:,} pointers, above the cap of {MAX_MAP_ENTRIES:,}")
        return self

    def pointers(self, claim_id: str, claim_key: str, quantity: str) -> list[MapPointer]:
        """The pointers given for ``quantity`` of the claim (by its id, else its key)."""
        entry = self.claims.get(claim_id) or self.claims.get(claim_key) or {}
        found = entry.get(quantity)
        if found is None:
            return []
        return found if isinstance(found, list) else [found]


def read_evidence_map(base: Path) -> EvidenceMap | None:
    """The evidence map at ``base`` (the folder the logbook's file paths are relative to), or
    ``None`` when there is none. A malformed map is a :class:`LogbookError` naming the file and
    the problem: the submission is refused (nothing is stored) and the participant fixes it."""
    path = base / EVIDENCE_MAP_FILE
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        raise LogbookError(f"{EVIDENCE_MAP_FILE}: not a regular file")
    data = read_json_object(path, EVIDENCE_MAP_FILE)
    if "format" not in data:
        raise LogbookError(
            f'{EVIDENCE_MAP_FILE}: no format version (write "format": {EVIDENCE_MAP_FORMAT})'
        )
    try:
        return EvidenceMap.model_validate(data)
    except ValidationError as exc:
        raise LogbookError(f"{EVIDENCE_MAP_FILE}: {validation_problems(exc)}") from exc
