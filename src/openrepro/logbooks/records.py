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

from pydantic import BaseModel, Field

__all__ = [
    "Artifact",
    "Cell",
    "FileRef",
    "LogbookRecord",
    "Metric",
    "Page",
    "Run",
    "Testimony",
]

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

    def revision(self) -> str:
        """A content hash: the same attempt read twice gives the same revision."""
        payload = self.model_dump(mode="json", exclude={"source"})
        data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(data).hexdigest()[:20]
