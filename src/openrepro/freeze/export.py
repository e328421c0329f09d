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

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import FreezeError
from openrepro.freeze.card import CardInfo, render_card
from openrepro.freeze.push import PushReport
from openrepro.freeze.reviews import review_rows
from openrepro.freeze.tables import TABLES, Column, TableSpec
from openrepro.identity import LOCAL_ORGANIZER, Actor, reopen, set_frozen
from openrepro.outcomes import author_responses, claim_consensus, compute_stats, paper_outcomes
from openrepro.outcomes.current import challenge_query
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
from openrepro.store.revisions import latest_logbook_ids

__all__ = [
    "CHECKSUMS",
    "PARQUET_OPTIONS",
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


def _normalize(spec: TableSpec, rows: Iterable[Mapping[str, Any]]) -> list[Row]:
    """Rows as tuples in the spec's column order, every value converted to its column's type.
    Each row is keyed by column name; a row whose keys differ from the spec's columns is a bug
    (a reader and the spec drifted apart) and raises :class:`FreezeError` naming the columns."""
    names = [c.name for c in spec.columns]
    expected = set(names)
    converters = [_converter(c) for c in spec.columns]
    out: list[Row] = []
    for row in rows:
        if row.keys() != expected:
            missing = sorted(expected - set(row))
            extra = sorted(set(row) - expected)
            raise FreezeError(
                f"table {spec.name}: the reader's columns differ from the table's "
                f"(missing: {', '.join(missing) or '-'}; unknown: {', '.join(extra) or '-'})"
            )
        out.append(
            tuple(
                None if row[n] is None else convert(row[n])
                for n, convert in zip(names, converters, strict=True)
            )
        )
    return out


# -- the tables, one SQL statement each; columns labelled with the table's column names ----------


def _rows(session: Session, stmt: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in session.execute(stmt)]


def _papers(session: Session, cid: int) -> list[dict[str, Any]]:
    p = Paper
    stmt = (
        select(
            p.id.label("paper_id"),
            p.venue_id.label("paper"),
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
            p.full_text.is_not(None).label("has_full_text"),
        )
        .where(p.challenge_id == cid)
        .order_by(p.id)
    )
    return _rows(session, stmt)


def _claims(session: Session, cid: int) -> list[dict[str, Any]]:
    c = Claim
    stmt = (
        select(
            c.id.label("claim_id"),
            c.paper_id,
            Paper.venue_id.label("paper"),
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
    return _rows(session, stmt)


def _logbooks(session: Session, cid: int) -> list[dict[str, Any]]:
    lb = Logbook
    current = set(latest_logbook_ids(session, cid))
    stmt = (
        select(
            lb.id.label("logbook_id"),
            lb.paper_id,
            Paper.venue_id.label("paper"),
            Participant.handle.label("participant"),
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
    return [{**r, "current": r["logbook_id"] in current} for r in _rows(session, stmt)]


def _verdict_edits(session: Session, cid: int) -> list[dict[str, Any]]:
    e = VerdictEdit
    stmt = (
        select(
            e.id.label("edit_id"),
            e.verdict_id,
            Paper.venue_id.label("paper"),
            Claim.key.label("claim"),
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
    return _rows(session, stmt)


def _claim_edits(session: Session, cid: int) -> list[dict[str, Any]]:
    e = ClaimEdit
    stmt = (
        select(
            e.id.label("edit_id"),
            e.claim_id,
            Paper.venue_id.label("paper"),
            Claim.key.label("claim"),
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
    return _rows(session, stmt)


def _verdicts(session: Session, ctx: ChallengeContext, edited: set[int]) -> list[dict[str, Any]]:
    cur = challenge_query(ctx, public=False)
    effective = {
        int(r.verdict_id): str(r.value) for r in session.execute(select(cur.verdict_id, cur.value))
    }
    v = Verdict
    stmt = (
        select(
            v.id.label("verdict_id"),
            v.logbook_id,
            v.claim_id,
            Paper.venue_id.label("paper"),
            Claim.key.label("claim"),
            Participant.handle.label("participant"),
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
    out: list[dict[str, Any]] = []
    for r in _rows(session, stmt):
        value = effective.get(r["verdict_id"])
        out.append(
            {**r, "current": value is not None, "effective": value,
             "edited": r["verdict_id"] in edited}
        )  # fmt: skip
    return out


def _participants(session: Session, cid: int) -> list[dict[str, Any]]:
    stmt = (
        select(Participant.handle.label("participant"), Participant.team)
        .where(Participant.challenge_id == cid)
        .order_by(Participant.handle)
    )
    return _rows(session, stmt)


def _consensus(ctx: ChallengeContext) -> list[dict[str, Any]]:
    rows = []
    for c in claim_consensus(ctx):
        row = c.model_dump()
        row["claim"] = row.pop("key")
        rows.append(row)
    return rows


def _outcomes(ctx: ChallengeContext) -> list[dict[str, Any]]:
    return [{**o.model_dump(), "status": o.status} for o in paper_outcomes(ctx)]


def _author_responses(ctx: ChallengeContext) -> list[dict[str, Any]]:
    return [r.model_dump() for r in author_responses(ctx)]


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
        raw: dict[str, list[dict[str, Any]]] = {
            "papers": _papers(session, cid),
            "claims": _claims(session, cid),
            "logbooks": _logbooks(session, cid),
            "verdicts": _verdicts(session, ctx, {int(e["verdict_id"]) for e in edits}),
            "verdict_edits": edits,
            "claim_edits": _claim_edits(session, cid),
            "participants": _participants(session, cid),
        }
        raw["review_tasks"], raw["review_answers"] = review_rows(session, cid)
    raw["claim_consensus"] = _consensus(ctx)
    raw["paper_outcomes"] = _outcomes(ctx)
    raw["author_responses"] = _author_responses(ctx)
    tables: list[Table] = [(spec, _normalize(spec, raw[spec.name])) for spec in TABLES]
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
