"""The normalised record of one reproduction attempt, whatever it came from.

Readers (a Trackio logbook folder, a published logbook Space, an openrepro bundle) all produce a
:class:`LogbookRecord`. It separates **evidence** (runs with their exit codes and output, metrics
logged during runs, files with hashes) from **testimony** (the participant's or agent's prose,
which the judge never takes as evidence). Paths are relative to the logbook's root folder.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from openrepro.logbooks.manifest import EvidenceMap

__all__ = [
    "Artifact",
    "Cell",
    "FileRef",
    "LogbookRecord",
    "Metric",
    "Page",
    "PaperRef",
    "RowRange",
    "Run",
    "SideFile",
    "TableRef",
    "TableValue",
    "Testimony",
    "changed_after_run",
]

_ADDED_FIELDS = ("tags", "paper_refs", "tables", "side_files", "evidence_map")

CellType = Literal["markdown", "code", "figure", "artifact", "dashboard"]


class FileRef(BaseModel):
    """A file of the logbook, by content."""

    path: str  # relative, '/'-separated
    sha256: str
    size: int


class Cell(BaseModel):
    """One cell of a page, as written (``body`` is the Markdown after the cell marker)."""

    id: str
    type: CellType
    page: str
    title: str = ""
    body: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)  # the cell's JSON header


class Page(BaseModel):
    slug: str
    title: str
    cells: list[Cell] = Field(default_factory=list)


class Run(BaseModel):
    """A recorded command (a ``trackio logbook run`` cell, or a bundle's run entry)."""

    id: str
    page: str = ""
    title: str = ""
    command: list[str]
    exit_code: int | None = None
    duration_s: float | None = None
    output: str = ""
    scripts: dict[str, str] = Field(default_factory=dict)  # file name -> source shown in the cell
    produced: list[FileRef] = Field(default_factory=list)
    created_at: str | None = None


class Metric(BaseModel):
    """One logged value: ``claims/<paper>/<claim>/<name>`` keys tie it to a claim."""

    run: str  # the Trackio run name (or the bundle's run id)
    key: str
    step: int
    value: float
    timestamp: str | None = None
    source: Literal["trackio-db", "trackio-export", "bundle"] = "trackio-db"


class Artifact(BaseModel):
    """A file the logbook presents as a result (an artifact or figure cell, a bundle file)."""

    file: FileRef
    page: str = ""
    cell: str = ""
    kind: str = "file"


class Testimony(BaseModel):
    """Prose by the participant or the agent: shown to the judge only as untrusted text."""

    page: str
    cell: str
    text: str


class PaperRef(BaseModel):
    """One way the logbook names its paper, in the order linking tries them (see
    :mod:`openrepro.logbooks.linking`): a venue id (``paper`` as a string, or the paper object's
    ``openreview_id``/``venue_id``/``id``), a ``paper-<venue id>`` tag, an arXiv id."""

    kind: Literal["venue_id", "tag", "arxiv_id"]
    value: str
    source: str  # where it was written, e.g. "logbook.json paper.openreview_id"


TableSource = Literal["file", "cell", "output", "page"]


class RowRange(BaseModel):
    """The rows ``first..last`` of an appended table that one run wrote (``size``: the file's
    bytes once that run had appended them, as its artifact cell recorded)."""

    run: str
    first: int
    last: int
    size: int = 0


class TableRef(BaseModel):
    """A table the logbook holds: a file a run produced (CSV, TSV, JSON, JSONL, Parquet), the
    raw data of a figure cell, a table printed in a run's output (also its ``key=value`` result
    lines and printed JSON), or a Markdown table written in a page (``source`` ``page``:
    testimony). A file no run is known to have produced has ``run`` empty (testimony).

    Its cells are addressed by ``(table, row, column)``: ``table`` is the file's sha256, or
    ``<cell id>`` (``<run id>#<n>`` for the n-th table of a run's output); rows count from 1
    (the first data row), columns by header name. Code reads every value at its pointer
    (:mod:`openrepro.logbooks.tables`); only the shape is kept here.
    """

    table: str
    source: TableSource
    format: Literal["csv", "tsv", "json", "jsonl", "parquet", "text"]
    path: str = ""  # the file (source "file")
    page: str = ""
    cell: str = ""  # the figure cell, or the run cell (sources "cell", "output")
    run: str = ""  # the run that produced it ("" when none did)
    run_ok: bool = False  # that run exited 0
    columns: list[str] = Field(default_factory=list)
    rows: int = 0
    truncated: bool = False  # more rows than were counted (the size cap)
    #: a table several runs appended to (one row per seed run): which rows each run wrote
    segments: list[RowRange] = Field(default_factory=list)
    #: the step/epoch/iteration column of a training history (rows are steps, not seeds)
    series: str = ""

    def run_of_row(self, row: int) -> str:
        """The run that wrote ``row`` (the table's run unless the table was appended to)."""
        for part in self.segments:
            if part.first <= row <= part.last:
                return part.run
        return self.run


class TableValue(BaseModel):
    """One cell of a table, read by code at its pointer."""

    table: str
    row: int
    column: str
    text: str
    value: float | None = None  # the number it holds, if it is one


class SideFile(BaseModel):
    """A challenge side file found in the logbook's folder: a copy of the challenge's claims
    (testimony: shown, never trusted over the challenge's own claims), a status file with the
    event's verdict (testimony), a paper PDF (ignored for evidence)."""

    kind: Literal["claims-copy", "status", "paper-pdf"]
    path: str
    sha256: str = ""
    size: int = 0
    summary: str = ""  # e.g. "5 claims", the first line of a status file


class LogbookRecord(BaseModel):
    """One attempt, normalised."""

    format: Literal["trackio", "bundle"]
    format_version: str
    title: str = ""
    paper_id: str | None = None
    participant: str | None = None
    claims: list[str] = Field(default_factory=list)  # claim ids addressed, e.g. "abc/C2"
    pages: list[Page] = Field(default_factory=list)
    runs: list[Run] = Field(default_factory=list)
    metrics: list[Metric] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    traces: list[dict[str, Any]] = Field(default_factory=list)
    testimony: list[Testimony] = Field(default_factory=list)
    files: list[FileRef] = Field(default_factory=list)  # every file the record refers to
    source: str = ""  # where it was read from (folder, archive, Space id)
    tags: list[str] = Field(default_factory=list)
    paper_refs: list[PaperRef] = Field(default_factory=list)
    tables: list[TableRef] = Field(default_factory=list)
    side_files: list[SideFile] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # what the reader forgave, and how
    #: the participant's ``evidence_map.json`` (testimony: where to look, never a value)
    evidence_map: EvidenceMap | None = None
    #: when the logbook was last written, by its own clock (``updated_at`` of a Trackio
    #: ``logbook.json``; None: not recorded); checked against its runs' times
    #: (:func:`openrepro.logbooks.runs.run_time_problems`), not part of the revision
    updated_at: str | None = None
    # Files the reader made rather than found (images decoded from figure cells): path -> bytes.
    # Not part of the record's JSON; `submit` writes them into the file store with the rest.
    _embedded: dict[str, bytes] = PrivateAttr(default_factory=dict)

    def add_embedded(self, ref: FileRef, data: bytes) -> None:
        """Keep the bytes of a file the reader made (``ref`` must be in :attr:`files`)."""
        self._embedded[ref.path] = data

    def embedded(self, path: str) -> bytes | None:
        """The bytes of a file the reader made, or ``None`` for a file found on disk."""
        return self._embedded.get(path)

    def revision(self) -> str:
        """A content hash: the same attempt read twice gives the same revision (``source``,
        ``warnings`` and ``updated_at`` are left out; fields added since the first format only
        count when set, so a logbook stored before them keeps its revision)."""
        payload = self.model_dump(mode="json", exclude={"source", "warnings", "updated_at"})
        for key in _ADDED_FIELDS:
            if not payload.get(key):
                payload.pop(key, None)
        data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(data).hexdigest()[:20]


def changed_after_run(record: LogbookRecord) -> list[tuple[Artifact, int, Run | None]]:
    """Artifacts whose cell recorded a size other than the file's size now (the file changed
    after the run wrote it): ``(artifact, recorded size, the run that produced it or None)``."""
    cells = {cell.id: cell for page in record.pages for cell in page.cells}
    producers = {ref.path: run for run in record.runs for ref in run.produced}
    # a table several runs appended to: each run's cell recorded the size after its rows
    grown = {(t.path, part.size) for t in record.tables for part in t.segments}
    changed: list[tuple[Artifact, int, Run | None]] = []
    for artifact in record.artifacts:
        cell = cells.get(artifact.cell)
        size = cell.meta.get("size") if cell is not None else None
        if (artifact.file.path, size) in grown:
            continue  # grown by appended rows only (logbooks.tables: segments)
        if isinstance(size, int) and not isinstance(size, bool) and size != artifact.file.size:
            changed.append((artifact, size, producers.get(artifact.file.path)))
    return changed
