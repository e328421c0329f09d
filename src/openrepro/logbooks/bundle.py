"""The openrepro bundle: a logbook for people who do not use Trackio.

A bundle is a folder (or a ``.tar.gz``/``.zip`` of one) holding ``manifest.json`` and the files
it names. The manifest's schema is :class:`BundleManifest`, shipped as JSON Schema in
``bundle.schema.json`` beside this module (version 1)::

    {
      "openrepro_bundle": 1,
      "paper": "abc123XYZ",
      "participant": "ada",                       # optional; `submit --as` wins
      "title": "Reproducing abc123XYZ",
      "claims": ["abc123XYZ/C1"],
      "writeup": "README.md",                     # the participant's account: testimony
      "runs": [{"id": "seed0", "command": ["python", "train.py", "--seed", "0"],
                "exit_code": 0, "duration_s": 812.4, "log": "logs/seed0.txt",
                "scripts": ["train.py"], "produced": ["results/seed0.json"]}],
      "metrics": [{"run": "seed0", "key": "claims/abc123XYZ/C1/accuracy", "step": 0,
                   "value": 0.873}],
      "artifacts": [{"path": "figures/accuracy.png", "kind": "figure"}]
    }

Every path is relative to the manifest's folder and must name a regular file inside it. Unlike
a Trackio run cell, which ``trackio logbook run`` writes as the command ends, a bundle's run
entry is the manifest's own word: no tool recorded it (no cell, no times, its metrics typed into
the manifest). The judge takes its measurements as ``testimony`` (flag ``run_self_declared``)
until a matched replay or attestation lifts the run (docs/provenance.md).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from openrepro.errors import LogbookError
from openrepro.logbooks.limits import Budget
from openrepro.logbooks.linking import paper_refs
from openrepro.logbooks.manifest import (
    MAX_JSON_BYTES,
    check_json_size,
    json_limit_problem,
    read_json_object,
    validation_problems,
)
from openrepro.logbooks.records import (
    Artifact,
    FileRef,
    LogbookRecord,
    Metric,
    Run,
    Testimony,
)
from openrepro.logbooks.tables import index_tables

__all__ = [
    "BUNDLE_VERSION",
    "MANIFEST",
    "MAX_JSON_BYTES",
    "BundleManifest",
    "check_json_size",
    "file_ref",
    "json_limit_problem",
    "read_bundle",
]

BUNDLE_VERSION = 1
MANIFEST = "manifest.json"
MAX_TEXT_BYTES = 5 * 1024 * 1024  # logs, scripts and write-ups read into the record


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BundleRun(_Strict):
    id: str = Field(min_length=1, max_length=200)
    command: list[str] = Field(min_length=1)
    exit_code: int | None = None
    duration_s: float | None = Field(default=None, ge=0)
    log: str | None = Field(default=None, description="file with the run's output")
    scripts: list[str] = Field(default_factory=list, description="files with the code it ran")
    produced: list[str] = Field(default_factory=list, description="files the run wrote")


class BundleMetric(_Strict):
    run: str
    key: str = Field(min_length=1, max_length=500)
    step: int = 0
    value: float

    @field_validator("value")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value


class BundleArtifact(_Strict):
    path: str
    kind: Literal["figure", "file", "table", "model", "data"] = "file"


class BundleManifest(_Strict):
    """``manifest.json`` of an openrepro bundle, version 1."""

    openrepro_bundle: Literal[1]
    paper: str = Field(min_length=1, max_length=300)
    participant: str | None = Field(default=None, max_length=200)
    title: str = ""
    claims: list[str] = Field(default_factory=list)
    writeup: str | None = None
    runs: list[BundleRun] = Field(default_factory=list)
    metrics: list[BundleMetric] = Field(default_factory=list)
    artifacts: list[BundleArtifact] = Field(default_factory=list)


def file_ref(root: Path, relative: str, where: str) -> FileRef:
    """Hash a file named by the logbook; it must be a regular file inside ``root``."""
    pure = PurePosixPath(relative)
    if (
        pure.is_absolute()
        or ".." in pure.parts
        or not relative.strip()
        or "\\" in relative
        or "\x00" in relative
    ):
        raise LogbookError(f"{where}: path {relative!r} must be relative and stay in the logbook")
    path = root / pure
    if path.is_symlink() or not path.is_file():
        raise LogbookError(f"{where}: file {relative!r} is missing (or not a regular file)")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    hashed = _HASHED.get(key)
    if hashed is None:  # each file is hashed once, however many cells name it
        digest = hashlib.sha256()
        size = 0
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
                size += len(chunk)
        hashed = (digest.hexdigest(), size)
        if len(_HASHED) >= _HASHED_MAX:
            _HASHED.pop(next(iter(_HASHED)))
        _HASHED[key] = hashed
    return FileRef(path=pure.as_posix(), sha256=hashed[0], size=hashed[1])


#: Files hashed lately, by (path, device, inode, size, mtime): a logbook whose 600 artifact
#: cells name one 64 MiB file hashes it once; a changed file has another key.
_HASHED: dict[tuple[str, int, int, int, int], tuple[str, int]] = {}
_HASHED_MAX = 4096


def _text(root: Path, ref: FileRef, where: str) -> str:
    if ref.size > MAX_TEXT_BYTES:
        raise LogbookError(f"{where}: {ref.path} is larger than {MAX_TEXT_BYTES} bytes")
    try:
        return (root / ref.path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogbookError(f"{where}: {ref.path} is not valid UTF-8 ({exc.reason})") from exc


def _manifest(root: Path) -> BundleManifest:
    path = root / MANIFEST
    if not path.is_file():
        raise LogbookError(f"{root}: no {MANIFEST} (not an openrepro bundle)")
    data = read_json_object(path, MANIFEST)
    try:
        return BundleManifest.model_validate(data)
    except ValidationError as exc:
        raise LogbookError(f"{MANIFEST}: {validation_problems(exc)}") from exc


def read_bundle(root: Path) -> LogbookRecord:
    """Read the bundle in ``root`` into a :class:`LogbookRecord` (files hashed, paths checked)."""
    manifest = _manifest(root)
    files: dict[str, FileRef] = {}

    def ref(relative: str, where: str) -> FileRef:
        found = file_ref(root, relative, where)
        files[found.path] = found
        return found

    budget = Budget(MANIFEST)  # caps: openrepro.logbooks.limits
    budget.runs(len(manifest.runs))
    budget.metrics(len(manifest.metrics))
    runs: list[Run] = []
    for i, entry in enumerate(manifest.runs):
        where = f"{MANIFEST}: runs[{i}] ({entry.id})"
        log = ref(entry.log, where) if entry.log else None
        scripts = {s: budget.text(_text(root, ref(s, where), where)) for s in entry.scripts}
        runs.append(
            Run(
                id=entry.id, title=" ".join(entry.command), command=entry.command,
                exit_code=entry.exit_code, duration_s=entry.duration_s,
                output=budget.text(_text(root, log, where)) if log else "", scripts=scripts,
                produced=[ref(p, where) for p in entry.produced],
            )
        )  # fmt: skip
    run_ids = {r.id for r in runs}
    for i, metric in enumerate(manifest.metrics):
        if metric.run not in run_ids:
            raise LogbookError(f"{MANIFEST}: metrics[{i}] names unknown run {metric.run!r}")
    artifacts = [
        Artifact(file=ref(a.path, f"{MANIFEST}: artifacts[{i}]"), kind=a.kind)
        for i, a in enumerate(manifest.artifacts)
    ]
    testimony = []
    if manifest.writeup:
        where = f"{MANIFEST}: writeup"
        testimony.append(
            Testimony(
                page="writeup",
                cell="",
                text=budget.text(_text(root, ref(manifest.writeup, where), where)),
            )
        )
    tables, problems = index_tables(root, runs, [], [(a.file, "", "") for a in artifacts])
    return LogbookRecord(
        format="bundle",
        format_version=str(BUNDLE_VERSION),
        title=manifest.title,
        paper_id=manifest.paper,
        participant=manifest.participant,
        claims=sorted(set(manifest.claims)),
        runs=runs,
        metrics=[
            Metric(run=m.run, key=m.key, step=m.step, value=m.value, source="bundle")
            for m in manifest.metrics
        ],
        artifacts=artifacts,
        testimony=testimony,
        files=sorted(files.values(), key=lambda f: f.path),
        source=str(root),
        paper_refs=paper_refs(manifest.paper, [], MANIFEST),
        tables=tables,
        warnings=problems,
    )


def json_schema() -> str:
    """The manifest's JSON Schema as shipped in ``bundle.schema.json``."""
    schema = BundleManifest.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
