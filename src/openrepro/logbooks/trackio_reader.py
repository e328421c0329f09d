"""Read a Trackio logbook folder (and its Trackio metrics) into a :class:`LogbookRecord`.

Layout written by ``trackio logbook`` (trackio 0.43, ``schema_version`` 2)::

    <root>/                      the folder the participant ran ``trackio logbook`` in
      .trackio/metadata.json     private state (paper, local artifacts) - not read here
      .trackio/logbook/
        logbook.json             title, space_id, paper, tags, the page tree, traces, revision
        pages/index.md           the root page; other pages are pages/<slug>/page.md
      results.csv                files a run produced, named by artifact cells (paths are
                                 relative to <root>, the run's working directory)

A page is Markdown; each cell starts with ``---``, then ``<!-- trackio-cell``, a one-line JSON
header and ``-->``, then the cell's body. ``trackio logbook run`` writes a ``code`` cell whose
header holds ``command``, ``exit_code`` and ``duration_s`` and whose body shows the scripts
(````` ````python title=train.py `````) and the output (````` ````output `````); each file the run
wrote with a data/model extension follows as its own ``artifact`` cell with ``auto: true``,
``path`` and ``size``. Those cells become the run's ``produced`` files. Figure cells carry their
HTML inline and Trackio-artifact cells (``artifact: "project/name:vN"``) point into Trackio's
store, so neither names a file here: they are kept as cells only. Markdown cells, and code cells
that ran nothing (pasted output), are testimony.

Metrics live outside the logbook, in Trackio's SQLite project files ``<TRACKIO_DIR>/<project>.db``
(by default under ``~/.cache/huggingface/trackio``). The reader takes ``trackio_dir``; without it,
it looks for ``*.db`` files in ``<root>/.trackio/`` and ``<root>/trackio/`` (where a participant
copies them), and reads no metrics when there are none.

Unlike Trackio's own lenient reader, this one refuses anything malformed with a
:class:`LogbookError` that names the file.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from openrepro.errors import LogbookError
from openrepro.logbooks.bundle import file_ref
from openrepro.logbooks.figures import extract_images
from openrepro.logbooks.limits import (
    MAX_METRIC_BYTES,
    MAX_METRIC_LABEL_CHARS,
    MAX_METRIC_ROWS,
    MAX_METRIC_VALUE_BYTES,
    METRICS_SECONDS,
    Budget,
)
from openrepro.logbooks.linking import link_produced, paper_refs
from openrepro.logbooks.manifest import (
    MAX_TAGS,
    PageNode,
    TrackioManifest,
    json_limit_problem,
    page_tree,
    read_json_object,
    read_trackio_manifest,
    validation_problems,
)
from openrepro.logbooks.records import (
    Artifact,
    Cell,
    CellType,
    FileRef,
    LogbookRecord,
    Metric,
    Page,
    Run,
    Testimony,
)
from openrepro.logbooks.sidefiles import find_side_files
from openrepro.logbooks.tables import (
    index_tables,
    loose_table_files,
    open_parquet,
    parquet_values,
)

__all__ = ["SCHEMA_VERSION", "page_claims", "read_trackio_export", "read_trackio_logbook"]

SCHEMA_VERSION = 2
PROJECT_DIR = ".trackio"
LOGBOOK_DIR = "logbook"
MANIFEST = "logbook.json"
CELL_TYPES: dict[str, CellType] = {
    t: t for t in ("markdown", "code", "figure", "artifact", "dashboard")
}
_OPEN_RE = re.compile(r"(?:^|\n)---\n<!-- trackio-cell\n")
_CLOSE_RE = re.compile(r"(?:^|\n)-->(?:\n|$)")
_FENCE_RE = re.compile(r"(`{3,4}|~{3,4})([^\n]*)\n([\s\S]*?)\n\1")  # as trackio parses fences
_TITLE_RE = re.compile(r"title=(\S+)")
_METRIC_CLAIM_RE = re.compile(r"^claims/([^/]+)/([^/]+)/.+")
# "Claim C2: ..." as openrepro's scaffold titles pages, "Claim 2: ..." as the event's did
_PAGE_CLAIM_RE = re.compile(r"\bclaim\s+c?(\d+[a-z0-9]*)\b", re.IGNORECASE)
_QUALIFIED_CLAIM_RE = re.compile(r"(?<![\w./-])([\w.-]+)/(C\d+[A-Za-z0-9]*)\b")
_PAPER_KEYS = ("id", "venue_id", "openreview_id", "arxiv_id")
_DB_ROW_COLUMNS = frozenset({"id", "run_id", "timestamp", "run_name", "step", "log_id", "space_id"})


_PageNode = PageNode  # the manifest's models live in openrepro.logbooks.manifest
_Manifest = TrackioManifest


class _CellHeader(BaseModel):
    """A cell marker's JSON header; unknown keys are kept in ``Cell.meta``."""

    model_config = ConfigDict(extra="allow")

    type: str = "markdown"
    id: str | int | None = None  # real logbooks have numeric ids too
    title: str = ""
    created_at: str | None = None
    command: list[str] | None = None
    exit_code: int | None = None
    duration_s: float | None = None
    path: str | None = None
    artifact_type: str | None = None
    auto: bool = False


class _RawCell(BaseModel):
    header: _CellHeader
    meta: dict[str, Any]
    body: str
    line: int


# ---- locating the logbook ----


def _locate(root: Path) -> tuple[Path, Path]:
    """Return ``(base, logbook_dir)``: file paths are relative to ``base``."""
    if (root / MANIFEST).is_file():
        logbook_dir = root
        parent = root.parent
        base = parent.parent if parent.name == PROJECT_DIR and root.name == LOGBOOK_DIR else root
        return base, logbook_dir
    logbook_dir = root / PROJECT_DIR / LOGBOOK_DIR
    if (logbook_dir / MANIFEST).is_file():
        return root, logbook_dir
    raise LogbookError(f"{root}: no {PROJECT_DIR}/{LOGBOOK_DIR}/{MANIFEST} (not a Trackio logbook)")


def _rel(base: Path, path: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


_validation_problems = validation_problems


def _read_manifest(path: Path, name: str) -> TrackioManifest:
    """``logbook.json`` of schema 1 or 2 (see :mod:`openrepro.logbooks.manifest`)."""
    return read_trackio_manifest(path, name)


def _walk(node: _PageNode) -> Iterator[_PageNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _page_path(logbook_dir: Path, node: _PageNode, manifest_name: str) -> Path:
    """The page's file; it must be a regular file inside the logbook folder (links resolved)."""
    pure = PurePosixPath(node.file)
    if pure.is_absolute() or ".." in pure.parts or "\\" in node.file or "\x00" in node.file:
        raise LogbookError(
            f"{manifest_name}: page {node.slug!r} file {node.file!r} must stay in the logbook"
        )
    path = logbook_dir / pure
    if not path.resolve().is_relative_to(logbook_dir.resolve()):
        raise LogbookError(
            f"{manifest_name}: page {node.slug!r} file {node.file!r} links outside the logbook"
        )
    if not path.is_file():
        raise LogbookError(f"{manifest_name}: page {node.slug!r} file {node.file!r} is missing")
    return path


# ---- pages and cells ----


def _read_text(path: Path, name: str) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogbookError(f"{name}: not valid UTF-8 at byte {exc.start} ({exc.reason})") from exc


def _parse_header(raw: str, name: str, line: int) -> tuple[_CellHeader, dict[str, Any]]:
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LogbookError(
            f"{name}, line {line + exc.lineno - 1}: cell marker is not valid JSON ({exc.msg})"
        ) from exc
    except (RecursionError, ValueError) as exc:
        raise LogbookError(
            f"{name}, line {line}: cell marker is unreadable JSON ({json_limit_problem(exc)})"
        ) from exc
    if not isinstance(meta, dict):
        raise LogbookError(f"{name}, line {line}: cell marker is not a JSON object")
    try:
        header = _CellHeader.model_validate(meta)
    except ValidationError as exc:
        raise LogbookError(
            f"{name}, line {line}: cell marker: {_validation_problems(exc)}"
        ) from exc
    if header.type not in CELL_TYPES:
        raise LogbookError(f"{name}, line {line}: unknown cell type {header.type!r}")
    return header, meta


_ESCAPED_CLOSE_RE = re.compile(r"^(\{.*\})\s*(?:\\n)*\s*-->\s*(?:\\n)*$")


def _split_cells(text: str, name: str, warnings: list[str] | None = None) -> list[_RawCell]:
    """Split a page at its cell markers (the text before the first marker is not a cell).

    One malformed marker seen in real logbooks is repaired, with a warning: a header whose
    closing ``-->`` sits on the header's own line behind an escaped ``\\n`` (a script wrote the
    marker with ``\\\\n``). Trackio reads such a cell as a markdown cell swallowing the next one;
    this reader reads the header as meant.
    """
    openers = list(_OPEN_RE.finditer(text))
    cells: list[_RawCell] = []
    for i, opener in enumerate(openers):
        end = openers[i + 1].start() if i + 1 < len(openers) else len(text)
        segment = text[opener.end() : end]
        line = text.count("\n", 0, opener.end()) + 1
        first, _, rest = segment.partition("\n")
        escaped = _ESCAPED_CLOSE_RE.match(first.strip())
        if escaped and not first.strip().endswith("}"):
            header, meta = _parse_header(escaped.group(1), name, line)
            if warnings is not None:
                warnings.append(
                    f"{name}, line {line}: cell marker closed by an escaped '\\n-->' on its "
                    "header line: read as a marker"
                )
            cells.append(_RawCell(header=header, meta=meta, body=rest.strip(), line=line))
            continue
        close = _CLOSE_RE.search(segment)
        if close is None:
            raise LogbookError(f"{name}, line {line}: cell marker is not closed with '-->'")
        header, meta = _parse_header(segment[: close.start()], name, line)
        cells.append(
            _RawCell(header=header, meta=meta, body=segment[close.end() :].strip(), line=line)
        )
    return cells


def _fences(body: str) -> list[tuple[str, str | None, str]]:
    """``(language, title, text)`` of each fenced block, parsed as Trackio does."""
    found: list[tuple[str, str | None, str]] = []
    for match in _FENCE_RE.finditer(body):
        info = match.group(2).strip()
        lang = (info.split() or [""])[0].lower()
        title = _TITLE_RE.search(info)
        found.append((lang, title.group(1) if title else None, match.group(3)))
    return found


def _make_run(cell: Cell, header: _CellHeader) -> Run:
    fences = _fences(cell.body)
    outputs = [text for lang, _, text in fences if lang == "output"]
    return Run(
        id=cell.id,
        page=cell.page,
        title=cell.title,
        command=header.command or [],
        exit_code=header.exit_code,
        duration_s=header.duration_s,
        output=outputs[-1] if outputs else "",
        scripts={title: text for lang, title, text in fences if title and lang != "output"},
        created_at=header.created_at,
    )


def _id_text(value: str | int | None) -> str | None:
    text = "" if value is None else str(value).strip()
    return text or None


class _Builder:
    """Accumulates the record's parts while the pages are read in manifest order."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.pages: list[Page] = []
        self.runs: list[Run] = []
        self.artifacts: list[Artifact] = []
        self.testimony: list[Testimony] = []
        self.files: dict[str, FileRef] = {}
        self.warnings: list[str] = []
        self.embedded: dict[str, bytes] = {}  # images decoded from figure cells
        self._ids: set[str] = set()

    def file(self, relative: str, where: str) -> FileRef:
        """Hash a file the logbook names (relative to ``base``; no escape through links)."""
        pure = PurePosixPath(relative)
        if not pure.is_absolute() and ".." not in pure.parts:
            resolved = (self.base / pure).resolve()
            if not resolved.is_relative_to(self.base.resolve()):
                raise LogbookError(f"{where}: file {relative!r} links outside the logbook")
        ref = file_ref(self.base, relative, where)
        self.files[ref.path] = ref
        return ref

    def add_page(self, node: _PageNode, text: str, name: str) -> None:
        if "\r" in text:  # Trackio reads pages with universal newlines (a Windows checkout)
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            self.warnings.append(f"{name}: Windows line endings, read as Trackio reads them")
        page = Page(slug=node.slug, title=node.title)
        last_run: Run | None = None
        for index, raw in enumerate(_split_cells(text, name, self.warnings)):
            header = raw.header
            where = f"{name}, line {raw.line}"
            cell_type = CELL_TYPES[header.type]  # known: checked in _parse_header
            cell = Cell(
                id=self._cell_id(_id_text(header.id), f"{node.slug}#{index}", where),
                type=cell_type,
                page=node.slug,
                title=header.title,
                body=raw.body,
                meta=raw.meta,
            )
            if cell.type == "figure":
                cell = self._figure(cell, where)
            page.cells.append(cell)
            last_run = self._add_cell(cell, header, last_run, where)
        self.pages.append(page)

    def _cell_id(self, given: str | None, fallback: str, where: str) -> str:
        """A cell's id, unique in the logbook: pointers name cells by id. A repeated id (a page
        copied by hand) gets ``~2``, ``~3``... appended, with a warning."""
        cell_id = given or fallback
        if cell_id in self._ids:
            n = 2
            while f"{cell_id}~{n}" in self._ids:
                n += 1
            self.warnings.append(f"{where}: cell id {cell_id!r} repeats; read as {cell_id}~{n}")
            cell_id = f"{cell_id}~{n}"
        self._ids.add(cell_id)
        return cell_id

    def _figure(self, cell: Cell, where: str) -> Cell:
        """Embedded images become files (artifacts), named in the body instead of inlined."""
        body, images, problems = extract_images(cell.body, f"{where}: figure cell {cell.id}")
        self.warnings.extend(problems)
        for ref, data in images:
            self.files[ref.path] = ref
            self.embedded[ref.path] = data
            self.artifacts.append(Artifact(file=ref, page=cell.page, cell=cell.id, kind="figure"))
        return cell.model_copy(update={"body": body}) if images else cell

    def _add_cell(
        self, cell: Cell, header: _CellHeader, last_run: Run | None, where: str
    ) -> Run | None:
        """Record one cell; returns the run that following auto artifact cells belong to."""
        if cell.type == "code" and header.command:
            run = _make_run(cell, header)
            self.runs.append(run)
            return run
        if cell.type == "artifact" and header.path:
            ref = self.file(header.path, f"{where}: artifact cell {cell.id}")
            kind = header.artifact_type or "file"
            self.artifacts.append(Artifact(file=ref, page=cell.page, cell=cell.id, kind=kind))
            if header.auto and last_run is not None:
                last_run.produced.append(ref)
                return last_run
            return None
        if cell.type in ("markdown", "code") and cell.body:
            self.testimony.append(Testimony(page=cell.page, cell=cell.id, text=cell.body))
        return None


# ---- paper and claims ----


def _paper_id(paper: str | dict[str, Any] | None) -> str | None:
    """``paper`` is a string or, as Trackio writes it, an object like ``{"arxiv_id": ...}``."""
    if isinstance(paper, str):
        return paper.strip() or None
    if isinstance(paper, dict):
        for key in _PAPER_KEYS:
            value = paper.get(key)
            if isinstance(value, str | int) and str(value).strip():
                return str(value).strip()
    return None


def page_claims(paper_id: str, pages: list[Page]) -> list[str]:
    """The claims of paper ``paper_id`` that page titles name ("Claim 2: ...", "Claim C2")."""
    return sorted({f"{paper_id}/C{key}" for p in pages for key in _PAGE_CLAIM_RE.findall(p.title)})


def _claims(paper_id: str | None, pages: list[Page], metrics: list[Metric]) -> list[str]:
    found: set[str] = set()
    for metric in metrics:
        match = _METRIC_CLAIM_RE.match(metric.key)
        if match:
            found.add(f"{match.group(1)}/{match.group(2)}")
    for page in pages:
        for paper, key in _QUALIFIED_CLAIM_RE.findall(page.title):
            found.add(f"{paper}/{key}")
        if paper_id:
            for key in _PAGE_CLAIM_RE.findall(page.title):
                found.add(f"{paper_id}/C{key}")
    return sorted(found)


# ---- metrics ----


def _numeric(value: object) -> float | None:
    """A finite number, else ``None`` (strings, media, NaN and infinities are skipped)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond a float's range
        return None
    return number if math.isfinite(number) else None


def _step(value: object, where: str) -> int:
    """A metric row's step: an integer (Trackio writes one); anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise LogbookError(f"{where}: step {value!r} is not an integer")
    try:
        return int(value)
    except (ValueError, OverflowError) as exc:
        raise LogbookError(f"{where}: step {value!r} is not an integer") from exc


def _find_dbs(base: Path, trackio_dir: Path | None, projects: list[str] | None) -> list[Path]:
    folders = [trackio_dir] if trackio_dir is not None else [base / PROJECT_DIR, base / "trackio"]
    if projects is not None:
        found: list[Path] = []
        for project in projects:
            safe = "".join(c for c in project if c.isalnum() or c in "-_") or "default"
            paths = [
                folder / f"{safe}.db" for folder in folders if (folder / f"{safe}.db").is_file()
            ]
            if not paths:
                where = " or ".join(str(folder / f"{safe}.db") for folder in folders)
                raise LogbookError(f"{where}: no Trackio database for project {project!r}")
            found.append(paths[0])
        return found
    return sorted(p for folder in folders if folder.is_dir() for p in folder.glob("*.db"))


def _db_rows(path: Path, name: str = "") -> Iterator[tuple[Any, ...]]:
    """The rows of the database's ``metrics`` table: a real table only (a view, a virtual table
    or a generated/hidden column could compute anything: ``pragma_table_xinfo`` tells), at
    most ``MAX_METRIC_ROWS`` of them, each ``metrics`` value at most ``MAX_METRIC_VALUE_BYTES``
    (measured in SQL, so a huge value never leaves SQLite), fetched in batches under the byte
    budget ``MAX_METRIC_BYTES``, read within ``METRICS_SECONDS``. Errors name the database as
    ``name`` (its path inside the logbook: never a server folder), else its path."""
    name = name or str(path)
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise LogbookError(f"{name}: cannot open the Trackio database ({exc})") from exc
    deadline = time.monotonic() + METRICS_SECONDS
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1_000)
    try:
        found = conn.execute(
            "SELECT type, sql FROM sqlite_master WHERE name = 'metrics'"
        ).fetchone()
        if found is None:
            return
        kind = "virtual table" if "VIRTUAL" in str(found[1] or "").upper() else found[0]
        if kind != "table":
            raise LogbookError(f"{name}: `metrics` is a {kind}, not a table (only tables are read)")
        computed = [
            str(name)
            for name, hidden in conn.execute(
                "SELECT name, hidden FROM pragma_table_xinfo('metrics')"
            )
            if hidden
        ]
        if computed:
            raise LogbookError(
                f"{name}: `metrics` has generated or hidden columns ({', '.join(computed)}): "
                "only stored columns are read"
            )
        cursor = conn.execute(
            "SELECT id, substr(run_name, 1, :label), CASE WHEN length(step) <= 64 THEN step END,"
            " substr(timestamp, 1, :label), length(CAST(metrics AS BLOB)),"
            " CASE WHEN length(CAST(metrics AS BLOB)) <= :value THEN metrics END"
            " FROM metrics ORDER BY id LIMIT :rows",
            {
                "label": MAX_METRIC_LABEL_CHARS,
                "value": MAX_METRIC_VALUE_BYTES,
                "rows": MAX_METRIC_ROWS + 1,
            },
        )
        count = spent = 0
        while batch := cursor.fetchmany(_BATCH_ROWS):
            for row_id, run_name, step, timestamp, size, blob in batch:
                count += 1
                if count > MAX_METRIC_ROWS:
                    raise LogbookError(
                        f"{name}: more than {MAX_METRIC_ROWS:,} metrics rows (a logbook's limit)"
                    )
                if blob is None and size is not None:
                    raise LogbookError(
                        f"{name}: metrics row {row_id} holds {size:,} bytes, above "
                        f"{MAX_METRIC_VALUE_BYTES:,} (a logbook's limit)"
                    )
                spent += (size or 0) + len(str(run_name)) + len(str(timestamp))
                if spent > MAX_METRIC_BYTES:
                    raise LogbookError(
                        f"{name}: its metrics hold more than {MAX_METRIC_BYTES:,} bytes "
                        "(a logbook's limit)"
                    )
                yield row_id, run_name, step, timestamp, blob
    except sqlite3.OperationalError as exc:
        if str(exc) == "interrupted":
            raise LogbookError(
                f"{name}: reading the metrics took longer than {METRICS_SECONDS:g} s"
            ) from exc
        raise LogbookError(f"{name}: cannot read the Trackio database ({exc})") from exc
    except sqlite3.Error as exc:
        raise LogbookError(f"{name}: cannot read the Trackio database ({exc})") from exc
    finally:
        conn.close()


_BATCH_ROWS = 1_000  # rows fetched from a metrics database at a time


def _blob(value: object, where: str) -> dict[str, Any]:
    if isinstance(value, bytes | bytearray | memoryview):
        value = bytes(value).decode("utf-8", errors="replace")
    try:
        data = json.loads(str(value))
    except json.JSONDecodeError as exc:
        raise LogbookError(f"{where}: metrics is not valid JSON ({exc.msg})") from exc
    except (RecursionError, ValueError) as exc:
        raise LogbookError(
            f"{where}: metrics is unreadable JSON ({json_limit_problem(exc)})"
        ) from exc
    if not isinstance(data, dict):
        raise LogbookError(f"{where}: metrics is not a JSON object")
    return data


def _read_db(path: Path, budget: Budget | None = None, name: str = "") -> list[Metric]:
    """The metrics of one Trackio database; errors name it as ``name`` (else its path)."""
    name = name or str(path)
    budget = budget or Budget(name)
    metrics: list[Metric] = []
    for row_id, run_name, step, timestamp, blob in _db_rows(path, name):
        where = f"{name}: metrics row {row_id}"
        number = _step(step, where)
        for key, raw in _blob(blob, where).items():
            value = _numeric(raw)
            if value is not None:
                budget.metrics()
                metrics.append(
                    Metric(
                        run=str(run_name), key=key, step=number, value=value,
                        timestamp=str(timestamp) if timestamp is not None else None,
                        source="trackio-db",
                    )
                )  # fmt: skip
    return metrics


# ---- entry points ----


def _metadata(base: Path, logbook_dir: Path) -> dict[str, Any]:
    """``.trackio/metadata.json``, where Trackio keeps ``paper`` and ``tags`` (``{}`` if none).

    Trackio 0.43 takes both from it when it rebuilds the manifest; a submission carries it when
    the participant pushed the whole ``.trackio`` folder."""
    path = logbook_dir.parent / "metadata.json"
    if logbook_dir.parent.name != PROJECT_DIR or not path.is_file() or path.is_symlink():
        return {}
    try:
        return read_json_object(path, _rel(base, path))
    except LogbookError:
        return {}  # private state Trackio rewrites; a broken one names nothing worth refusing


def read_trackio_logbook(
    root: Path, *, trackio_dir: Path | None = None, projects: list[str] | None = None
) -> LogbookRecord:
    """Read the logbook under ``root`` (its folder, or the ``.trackio/logbook`` folder itself).

    Metrics come from the ``*.db`` files of ``trackio_dir`` (only ``projects`` when given),
    else from ``root/.trackio/`` and ``root/trackio/``.
    """
    base, logbook_dir = _locate(root)
    manifest_name = _rel(base, logbook_dir / MANIFEST)
    manifest = _read_manifest(logbook_dir / MANIFEST, manifest_name)
    builder = _Builder(base)
    budget = Budget(manifest_name)  # caps: openrepro.logbooks.limits
    nodes, problems = page_tree(logbook_dir, manifest)
    builder.warnings.extend(problems)
    for node in nodes:
        budget.pages()
        path = _page_path(logbook_dir, node, manifest_name)
        name = _rel(base, path)
        builder.add_page(node, budget.text(_read_text(path, name)), name)
        budget.cells(len(builder.pages[-1].cells))
    metrics = [
        m
        for db in _find_dbs(base, trackio_dir, projects)
        for m in _read_db(db, budget, _rel(base, db))
    ]
    sides, keep, testimony = find_side_files(base)
    for ref in keep:
        builder.files[ref.path] = ref
    builder.testimony.extend(testimony)
    record = build_record(
        manifest, builder, metrics, str(root), metadata=_metadata(base, logbook_dir),
        manifest_name=manifest_name,
    )  # fmt: skip
    return record.model_copy(update={"side_files": sides})


def build_record(
    manifest: _Manifest,
    builder: _Builder,
    metrics: list[Metric],
    source: str,
    *,
    metadata: dict[str, Any] | None = None,
    manifest_name: str = MANIFEST,
) -> LogbookRecord:
    """The record of a parsed logbook (a local folder or a published Space).

    ``paper`` and ``tags`` come from ``logbook.json``, else (schema 1 often has ``paper: null``)
    from Trackio's ``metadata.json``; the tables are indexed from the files on ``builder.base``.
    """
    meta = metadata or {}
    paper = manifest.paper if manifest.paper not in (None, "", {}) else meta.get("paper")
    tags = manifest.tags
    where = manifest_name
    if not tags and isinstance(meta.get("tags"), list):
        tags = [str(t) for t in meta["tags"][:MAX_TAGS] if isinstance(t, str | int)]
        where = f"{manifest_name} (metadata.json)"
    if paper is not manifest.paper:
        where = f"{manifest_name} (metadata.json)"
    if not isinstance(paper, str | dict):
        paper = None
    refs = paper_refs(paper, tags, where)
    paper_id = _paper_id(paper) or next((r.value for r in refs if r.kind == "tag"), None)
    artifacts = [(a.file, a.page, a.cell) for a in builder.artifacts if a.kind != "figure"]
    loose = _loose_files(builder)
    tables, problems = index_tables(builder.base, builder.runs, builder.pages, artifacts, loose)
    record = LogbookRecord(
        format="trackio",
        format_version=str(manifest.schema_version),
        title=manifest.title,
        paper_id=paper_id,
        claims=_claims(paper_id, builder.pages, metrics),
        pages=builder.pages,
        runs=builder.runs,
        metrics=metrics,
        artifacts=builder.artifacts,
        traces=manifest.traces,
        testimony=builder.testimony,
        files=sorted(builder.files.values(), key=lambda f: f.path),
        source=source,
        tags=tags,
        paper_refs=refs,
        tables=tables,
        warnings=[*builder.warnings, *problems],
        updated_at=manifest.updated_at,
    )
    for path, data in builder.embedded.items():
        record.add_embedded(builder.files[path], data)
    return record


def _loose_files(builder: _Builder) -> list[FileRef]:
    """Table files in the folder that no cell names, kept as files: those a recorded run is
    shown to write become its produced files (:func:`~openrepro.logbooks.linking.link_produced`,
    also for artifact cells no run claimed); the rest are returned (testimony)."""
    claimed = {ref.path for run in builder.runs for ref in run.produced}
    named = [a.file for a in builder.artifacts if a.kind != "figure" and a.file.path not in claimed]
    found: list[FileRef] = []
    for relative in loose_table_files(builder.base, set(builder.files)):
        try:
            found.append(builder.file(relative, "the logbook's folder"))
        except LogbookError as exc:
            builder.warnings.append(str(exc))
    link_produced(builder.base, builder.runs, named)
    return link_produced(builder.base, builder.runs, found)


def _export_run_names(folder: Path) -> dict[str, str]:
    path = folder / "runs.json"
    if not path.is_file():
        return {}
    try:
        runs = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as exc:
        problem = json_limit_problem(exc) if isinstance(exc, RecursionError) else exc
        raise LogbookError(f"{path}: not valid JSON ({problem})") from exc
    if not isinstance(runs, list):
        raise LogbookError(f"{path}: expected a list of runs")
    return {
        str(run["id"]): str(run["name"])
        for run in runs
        if isinstance(run, dict) and run.get("id") is not None and run.get("name") is not None
    }


def _export_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of ``metrics.parquet`` under the table readers' caps: the row columns and the
    numeric columns only, at most ``MAX_METRIC_ROWS`` rows and ``_EXPORT_CELLS`` values read."""
    try:
        arrow: Any = importlib.import_module("pyarrow")
    except ImportError as exc:
        raise LogbookError(f"{path}: pyarrow is needed to read a Trackio export") from exc
    handle = open_parquet(path)
    rows = handle.metadata.num_rows
    if rows > MAX_METRIC_ROWS:
        raise LogbookError(
            f"{path}: more than {MAX_METRIC_ROWS:,} metrics rows (a logbook's limit)"
        )
    wanted = [
        field.name
        for field in handle.schema_arrow
        if field.name in _DB_ROW_COLUMNS
        or arrow.types.is_integer(field.type)
        or arrow.types.is_floating(field.type)
    ]
    if rows * len(wanted) > _EXPORT_CELLS:
        raise LogbookError(
            f"{path}: {rows:,} rows of {len(wanted):,} columns, above {_EXPORT_CELLS:,} values"
        )
    try:
        columns = {name: list(parquet_values(handle, name, str(path))) for name in wanted}
    except LogbookError:
        raise
    except Exception as exc:  # pyarrow raises its own (ArrowInvalid, OSError, ...)
        raise LogbookError(f"{path}: cannot read the Parquet file ({exc})") from exc
    return [{name: values[i] for name, values in columns.items()} for i in range(rows)]


_EXPORT_CELLS = 5_000_000  # values read from a Trackio export's metrics.parquet


def read_trackio_export(folder: Path) -> list[Metric]:
    """Metrics of a static Trackio export (``trackio freeze``): ``metrics.parquet`` + ``runs.json``.

    ``metrics.parquet`` has the columns ``id, run_id, timestamp, run_name, step`` (and
    ``log_id, space_id``) plus one column per logged key; ``runs.json`` lists
    ``{"id", "name", ...}`` and names runs whose rows lack ``run_name``. Needs ``pyarrow``.
    """
    path = folder / "metrics.parquet"
    if not path.is_file():
        raise LogbookError(f"{path}: missing (not a Trackio static export)")
    names = _export_run_names(folder)
    metrics: list[Metric] = []
    for row in _export_rows(path):
        run = row.get("run_name") or names.get(str(row.get("run_id")), str(row.get("run_id")))
        timestamp = row.get("timestamp")
        step = _step(row.get("step") or 0, f"{path}: row of run {run!r}")
        for key, raw in row.items():
            value = None if key in _DB_ROW_COLUMNS else _numeric(raw)
            if value is not None:
                metrics.append(
                    Metric(
                        run=str(run), key=key, step=step, value=value,
                        timestamp=str(timestamp) if timestamp is not None else None,
                        source="trackio-export",
                    )
                )  # fmt: skip
    return metrics
