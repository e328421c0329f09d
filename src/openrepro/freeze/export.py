"""Freeze: the whole record of a challenge as Parquet + JSON Lines, a dataset card and checksums.

Layout of the output folder (see ``docs/freeze.md``)::

    README.md              dataset card (YAML front matter: one `datasets` config per table)
    SHA256SUMS             sha256sum format, sorted by path, covering every other file
    data/<table>.parquet   one Parquet file per table
    json/<table>.jsonl     the same rows as JSON Lines

Determinism: the same store gives the same bytes. Every table is read with SQL (SQLAlchemy Core
selects, no per-row ORM loading) and sorted by its stable id; JSON values are written canonical
(sorted keys, compact separators); timestamps are those stored (UTC, microseconds) and the only
"when" of the freeze itself is the challenge's ``frozen_at`` in the store; Parquet is written with
fixed options (:data:`PARQUET_OPTIONS`) by one pyarrow version. Freezing a frozen challenge again
keeps its ``frozen_at``, so it re-exports the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import OpenReproError
from openrepro.freeze.card import CardInfo, render_card
from openrepro.freeze.push import PushReport
from openrepro.freeze.tables import AUTHOR_RESPONSES_FALLBACK, TABLES, Column, TableSpec
from openrepro.identity import LOCAL_ORGANIZER, Actor, reopen, set_frozen
from openrepro.outcomes import claim_consensus, compute_stats, paper_outcomes
from openrepro.outcomes.compute import run_sql
from openrepro.store import (
    Challenge,
    Claim,
    ClaimEdit,
    Logbook,
    Paper,
    Participant,
    Verdict,
    VerdictEdit,
)

__all__ = [
    "CHECKSUMS",
    "PARQUET_OPTIONS",
    "FreezeError",
    "FreezeReport",
    "FrozenFile",
    "export_dataset",
    "freeze_dataset",
]

CHECKSUMS = "SHA256SUMS"
DEFAULT_LICENSE = "cc-by-4.0"
#: Fixed options of ``pyarrow.parquet.write_table`` (part of what makes the bytes reproducible).
PARQUET_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "data_page_version": "1.0",
    "row_group_size": 128 * 1024,
    "store_schema": True,
    "write_page_index": False,
    "write_page_checksum": False,
}


class FreezeError(OpenReproError):
    """The dataset cannot be written (e.g. the output folder holds something else)."""


class FrozenFile(BaseModel):
    path: str  # relative to the output folder, with '/'
    bytes: int
    sha256: str


class FreezeReport(BaseModel):
    """What a freeze wrote: files, rows per table, size and time."""

    challenge: str
    out: str
    frozen_at: datetime
    files: list[FrozenFile]
    rows: dict[str, int]
    bytes: int
    seconds: float
    author_responses: bool = Field(
        description="Whether author responses came from openrepro.outreach (else: empty table)."
    )
    pushed: PushReport | None = None  # set by the CLI after --push


Row = tuple[Any, ...]
Table = tuple[TableSpec, list[Row]]


def _utc(value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise TypeError(f"expected a datetime, got {value!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _canonical_json(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _converter(column: Column) -> Callable[[Any], Any]:
    """How one column's stored values become exported ones (chosen once per column)."""
    t = column.type
    if column.json:
        return _canonical_json
    if pa.types.is_timestamp(t):
        return _utc
    if pa.types.is_boolean(t):
        return bool
    if pa.types.is_integer(t):
        return int
    if pa.types.is_floating(t):
        return float
    if pa.types.is_list(t):
        return lambda value: [str(item) for item in value]
    return str


def _normalize(spec: TableSpec, rows: Iterable[Sequence[Any]]) -> list[Row]:
    """Rows with every value converted to its column's type, column by column."""
    rows = list(rows)
    if not rows:
        return []
    converted = []
    for column, values in zip(spec.columns, zip(*rows, strict=True), strict=True):
        convert = _converter(column)
        converted.append([None if v is None else convert(v) for v in values])
    return list(zip(*converted, strict=True))


# -- the tables, one SQL statement each ------------------------------------------------------------


def _papers(session: Session, cid: int) -> list[Sequence[Any]]:
    p = Paper
    stmt = (
        select(
            p.id,
            p.venue_id,
            p.title,
            p.authors,
            p.abstract,
            p.status,
            p.track,
            p.decision,
            p.site_url,
            p.pdf_url,
            p.arxiv_id,
            p.keywords,
            p.source,
            p.licence,
            p.full_text.is_not(None),
        )
        .where(p.challenge_id == cid)
        .order_by(p.id)
    )
    return list(session.execute(stmt).all())


def _claims(session: Session, cid: int) -> list[Sequence[Any]]:
    c = Claim
    stmt = (
        select(
            c.id,
            c.paper_id,
            Paper.venue_id,
            c.key,
            c.text,
            c.kind,
            c.status,
            c.origin,
            c.quotes,
            c.reported,
            c.scale,
            c.provenance,
            c.created_at,
        )
        .join(Paper, Paper.id == c.paper_id)
        .where(Paper.challenge_id == cid)
        .order_by(c.id)
    )
    return list(session.execute(stmt).all())


def _logbooks(session: Session, cid: int) -> list[Sequence[Any]]:
    lb = Logbook
    current = set(
        session.scalars(
            select(func.max(Logbook.id))
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == cid)
            .group_by(Logbook.paper_id, Logbook.participant_id)
        )
    )
    stmt = (
        select(
            lb.id,
            lb.paper_id,
            Paper.venue_id,
            Participant.handle,
            Participant.team,
            lb.revision,
            lb.title,
            lb.source_url,
            lb.format,
            lb.submitted_at,
        )
        .join(Paper, Paper.id == lb.paper_id)
        .join(Participant, Participant.id == lb.participant_id)
        .where(Paper.challenge_id == cid)
        .order_by(lb.id)
    )
    return [(*r[:6], r[0] in current, *r[6:]) for r in session.execute(stmt).all()]


def _verdict_edits(session: Session, cid: int) -> list[Sequence[Any]]:
    e = VerdictEdit
    stmt = (
        select(
            e.id,
            e.verdict_id,
            Paper.venue_id,
            Claim.key,
            e.old_value,
            e.new_value,
            e.editor,
            e.reason,
            e.source,
            e.created_at,
        )
        .join(Verdict, Verdict.id == e.verdict_id)
        .join(Claim, Claim.id == Verdict.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == cid)
        .order_by(e.id)
    )
    return list(session.execute(stmt).all())


def _claim_edits(session: Session, cid: int) -> list[Sequence[Any]]:
    e = ClaimEdit
    stmt = (
        select(
            e.id,
            e.claim_id,
            Paper.venue_id,
            Claim.key,
            e.field,
            e.old_value,
            e.new_value,
            e.editor,
            e.reason,
            e.created_at,
        )
        .join(Claim, Claim.id == e.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == cid)
        .order_by(e.id)
    )
    return list(session.execute(stmt).all())


def _verdicts(session: Session, ctx: ChallengeContext, edited: set[int]) -> list[Sequence[Any]]:
    effective = dict(
        (int(vid), str(value))
        for vid, value in run_sql(session, ctx, " SELECT verdict_id, value FROM eff", False, None)
    )
    v = Verdict
    stmt = (
        select(
            v.id,
            v.logbook_id,
            v.claim_id,
            Paper.venue_id,
            Claim.key,
            Participant.handle,
            Participant.team,
            v.verdict,
            v.provenance,
            v.rationale,
            v.evidence,
            v.flags,
            v.judge_config,
            v.judge_model,
            v.prompt_version,
            v.tokens_in,
            v.tokens_out,
            v.seconds,
            v.created_at,
        )
        .join(Claim, Claim.id == v.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .join(Logbook, Logbook.id == v.logbook_id)
        .join(Participant, Participant.id == Logbook.participant_id)
        .where(Paper.challenge_id == ctx.challenge_id)
        .order_by(v.id)
    )
    out: list[Sequence[Any]] = []
    for r in session.execute(stmt).all():
        vid = r[0]
        value = effective.get(vid)
        out.append((*r[:8], value is not None, value, vid in edited, *r[8:]))
    return out


def _participants(session: Session, cid: int) -> list[Sequence[Any]]:
    stmt = (
        select(Participant.handle, Participant.team)
        .where(Participant.challenge_id == cid)
        .order_by(Participant.handle)
    )
    return list(session.execute(stmt).all())


def _consensus(ctx: ChallengeContext) -> list[Sequence[Any]]:
    return [
        (
            c.claim_id,
            c.paper_id,
            c.paper,
            c.key,
            c.consensus,
            c.logbooks,
            c.verified,
            c.falsified,
            c.toy,
            c.inconclusive,
            c.overridden,
        )
        for c in claim_consensus(ctx)
    ]


def _outcomes(ctx: ChallengeContext) -> list[Sequence[Any]]:
    return [
        (
            o.paper_id,
            o.paper,
            o.title,
            o.status,
            o.claims,
            o.logbooks,
            o.verified,
            o.falsified,
            o.contested,
            o.toy_only,
            o.inconclusive,
            o.unattempted,
            o.examined,
            o.any_verified,
            o.fully_reproduced,
            o.partially_reproduced,
            o.mixed,
            o.falsified_any,
            o.all_falsified,
            o.contested_any,
            o.toy_only_paper,
            o.nothing_established,
        )
        for o in paper_outcomes(ctx)
    ]


# -- author responses (from the organizer-workflows package, when there is one) -------------------


def _plain_record(item: Any) -> dict[str, Any]:
    if isinstance(item, BaseModel):
        return dict(item.model_dump())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return dataclasses.asdict(item)
    if isinstance(item, Mapping):
        return dict(item)
    raise FreezeError(f"author_responses: cannot export a {type(item).__name__}")


def _infer(name: str, values: list[Any]) -> Column:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return Column(name, pa.bool_(), "")
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return Column(name, pa.int64(), "")
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return Column(name, pa.float64(), "")
    if present and all(isinstance(v, datetime) for v in present):
        return Column(name, pa.timestamp("us", tz="UTC"), "")
    if all(isinstance(v, str) for v in present):
        return Column(name, pa.string(), "")
    return Column(name, pa.string(), "JSON value.", json=True)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def _author_responses(ctx: ChallengeContext) -> tuple[Table, bool]:
    """``openrepro.outreach.author_responses(ctx)`` as a table when that package exists, else
    the empty fallback table."""
    try:
        module = importlib.import_module("openrepro.outreach")
    except ImportError:
        return (AUTHOR_RESPONSES_FALLBACK, []), False
    source: Callable[[ChallengeContext], Iterable[Any]] | None = getattr(
        module, "author_responses", None
    )
    if source is None:
        return (AUTHOR_RESPONSES_FALLBACK, []), False
    records = [_plain_record(item) for item in source(ctx)]
    if not records:
        return (AUTHOR_RESPONSES_FALLBACK, []), True
    names: list[str] = []
    for record in records:
        names.extend(k for k in record if k not in names)
    known = {c.name: c for c in AUTHOR_RESPONSES_FALLBACK.columns}
    columns = tuple(known.get(n) or _infer(n, [r.get(n) for r in records]) for n in names)
    for column in columns:
        if column.json:  # json.dumps must not fail on dates or other objects nested inside
            for r in records:
                if r.get(column.name) is not None:
                    r[column.name] = json.loads(json.dumps(r[column.name], default=_json_default))
    spec = dataclasses.replace(AUTHOR_RESPONSES_FALLBACK, columns=columns, order="all columns")
    rows = _normalize(spec, ([r.get(n) for n in names] for r in records))
    rows.sort(key=lambda row: json.dumps(row, default=_json_default, ensure_ascii=False))
    return (spec, rows), True


# -- writing ---------------------------------------------------------------------------------


def _fragments(column: Column, values: Sequence[Any]) -> list[str]:
    """The JSON text of each value of one column (what ``json.dumps`` would give)."""
    t = column.type
    if column.json:
        return [v if v is not None else "null" for v in values]
    if pa.types.is_timestamp(t):
        return [
            '"' + v.isoformat(timespec="microseconds").replace("+00:00", "Z") + '"'
            if v is not None
            else "null"
            for v in values
        ]
    if pa.types.is_boolean(t):
        return ["null" if v is None else "true" if v else "false" for v in values]
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return ["null" if v is None else json.dumps(v) for v in values]
    if pa.types.is_string(t):
        return ["null" if v is None else encode_basestring(v) for v in values]
    return [json.dumps(v, ensure_ascii=False) for v in values]


def _write_jsonl(spec: TableSpec, rows: list[Row], path: Path) -> None:
    template = (
        "{" + ",".join(json.dumps(c.name).replace("%", "%%") + ":%s" for c in spec.columns) + "}\n"
    )
    if not rows:
        path.write_bytes(b"")
        return
    columns = list(zip(*rows, strict=True))
    fragments = [_fragments(c, v) for c, v in zip(spec.columns, columns, strict=True)]
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.writelines(template % parts for parts in zip(*fragments, strict=True))


def _write_parquet(spec: TableSpec, rows: list[Row], path: Path) -> None:
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in spec.columns]
    arrays = [
        pa.array(list(values), type=c.type) for c, values in zip(spec.columns, columns, strict=True)
    ]
    table = pa.Table.from_arrays(arrays, schema=spec.schema)
    pq.write_table(table, path, **PARQUET_OPTIONS)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _files(folder: Path) -> list[Path]:
    return sorted(
        (p for p in folder.rglob("*") if p.is_file()),
        key=lambda p: p.relative_to(folder).as_posix(),
    )


def _replaceable(out: Path) -> bool:
    """``out`` may be (re)written: missing, empty, or an earlier freeze (it has SHA256SUMS)."""
    if not out.exists():
        return True
    if not out.is_dir():
        return False
    return not any(out.iterdir()) or (out / CHECKSUMS).is_file()


def export_dataset(
    ctx: ChallengeContext, out: Path, *, license: str = DEFAULT_LICENSE
) -> FreezeReport:
    """Write the record to ``out`` (replacing an earlier freeze there) without changing the
    challenge's state. :func:`freeze_dataset` freezes the challenge first."""
    started = time.perf_counter()
    out = out.resolve()
    if not _replaceable(out):
        raise FreezeError(
            f"{out}: exists and is not an earlier freeze (no {CHECKSUMS}); "
            "give an empty or new folder"
        )
    cid = ctx.challenge_id
    with ctx.store.session() as session:
        info = session.execute(
            select(Challenge.name, Challenge.venue, Challenge.title, Challenge.frozen_at).where(
                Challenge.id == cid
            )
        ).one()
        edits = _verdict_edits(session, cid)
        raw: dict[str, list[Sequence[Any]]] = {
            "papers": _papers(session, cid),
            "claims": _claims(session, cid),
            "logbooks": _logbooks(session, cid),
            "verdicts": _verdicts(session, ctx, {int(e[1]) for e in edits}),
            "verdict_edits": edits,
            "claim_edits": _claim_edits(session, cid),
            "participants": _participants(session, cid),
        }
    raw["claim_consensus"] = _consensus(ctx)
    raw["paper_outcomes"] = _outcomes(ctx)
    tables: list[Table] = [(spec, _normalize(spec, raw[spec.name])) for spec in TABLES]
    responses, has_responses = _author_responses(ctx)
    tables.append(responses)
    stats = compute_stats(ctx)
    frozen_at = _utc(info.frozen_at)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        os.chmod(tmp, 0o755)
        (tmp / "data").mkdir()
        (tmp / "json").mkdir()
        sizes: dict[str, int] = {}
        for spec, rows in tables:
            _write_parquet(spec, rows, tmp / "data" / f"{spec.name}.parquet")
            _write_jsonl(spec, rows, tmp / "json" / f"{spec.name}.jsonl")
            sizes[spec.name] = (tmp / "data" / f"{spec.name}.parquet").stat().st_size
        card = CardInfo(
            name=info.name,
            venue=info.venue,
            title=info.title,
            frozen_at=frozen_at,
            license=license,
            tables=[(spec, len(rows), sizes[spec.name]) for spec, rows in tables],
            stats=stats,
            public_url=ctx.settings.public_url,
            author_responses=has_responses,
        )
        (tmp / "README.md").write_text(render_card(card), encoding="utf-8", newline="\n")
        files = [
            FrozenFile(
                path=p.relative_to(tmp).as_posix(), bytes=p.stat().st_size, sha256=_sha256(p)
            )
            for p in _files(tmp)
        ]
        sums = "".join(f"{f.sha256}  {f.path}\n" for f in files)
        (tmp / CHECKSUMS).write_text(sums, encoding="utf-8", newline="\n")
        files.append(
            FrozenFile(path=CHECKSUMS, bytes=len(sums.encode()), sha256=_sha256(tmp / CHECKSUMS))
        )
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return FreezeReport(
        challenge=info.name,
        out=str(out),
        frozen_at=frozen_at or datetime(1970, 1, 1, tzinfo=UTC),
        files=sorted(files, key=lambda f: f.path),
        rows={spec.name: len(rows) for spec, rows in tables},
        bytes=sum(f.bytes for f in files),
        seconds=round(time.perf_counter() - started, 3),
        author_responses=has_responses,
    )


def freeze_dataset(
    ctx: ChallengeContext,
    out: Path,
    *,
    actor: Actor = LOCAL_ORGANIZER,
    license: str = DEFAULT_LICENSE,
) -> FreezeReport:
    """Freeze the challenge (read-only from now on; an organizer may :func:`reopen` it) and write
    its record to ``out``. A frozen challenge keeps its freeze time, so freezing it again writes
    the same bytes. If writing fails, a challenge that was open is reopened."""
    with ctx.store.session() as session:
        was_frozen = (
            session.scalar(select(Challenge.frozen_at).where(Challenge.id == ctx.challenge_id))
            is not None
        )
    set_frozen(ctx, actor=actor)
    try:
        return export_dataset(ctx, out, license=license)
    except BaseException:
        if not was_frozen:
            reopen(ctx, actor=actor)
        raise
