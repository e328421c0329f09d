"""Writing and querying the paper index.

Imports are idempotent and batch-transactional: papers are upserted on (challenge, venue id)
with one ``INSERT .. ON CONFLICT DO UPDATE`` per batch, each batch in its own transaction. A field a
source does not know (``None``) never overwrites a stored value.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from typing import Any, Literal

from sqlalchemy import Select, func, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from openrepro.errors import ConfigError, NotFoundError
from openrepro.identity.service import check_not_frozen
from openrepro.papers.records import (
    ImportReport,
    PaperDetail,
    PaperRecord,
    PaperSummary,
    SearchHit,
    SkippedItem,
    StoredText,
)
from openrepro.store import Claim, Paper, Store
from openrepro.store.db import deadline, deadline_remaining, finer_deadline_checks
from openrepro.store.models import utcnow

__all__ = [
    "MAX_QUERY_CHARS",
    "get_paper",
    "import_papers",
    "list_papers",
    "paper_details",
    "search_papers",
    "search_terms",
    "stored_text",
    "upsert_batch",
]

Progress = Callable[[int], None]


def _fields(record: PaperRecord) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(fields the record knows, of which guesses): rows alike share one statement."""
    return tuple(sorted(record.model_dump(exclude_none=True))), tuple(sorted(record.guessed))


def upsert_batch(session: Session, challenge_id: int, records: Sequence[PaperRecord]) -> int:
    """Upsert ``records`` (unique venue ids); returns how many were new."""
    if not records:
        return 0
    ids = [r.venue_id for r in records]
    existing = set(
        session.scalars(
            select(Paper.venue_id).where(
                Paper.challenge_id == challenge_id, Paper.venue_id.in_(ids)
            )
        )
    )
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    # Rows from one source share their set of known fields; one statement per such set.
    for (fields, guessed), group in groupby(sorted(records, key=_fields), key=_fields):
        rows = [
            {
                **r.model_dump(exclude_none=True),
                "challenge_id": challenge_id,
                "created_at": now,
                "updated_at": now,
            }
            for r in group
        ]
        stmt = insert(Paper).values(rows)
        update = {name: stmt.excluded[name] for name in fields if name not in guessed}
        update["updated_at"] = stmt.excluded.updated_at
        session.execute(
            stmt.on_conflict_do_update(index_elements=["challenge_id", "venue_id"], set_=update)
        )
    return len(ids) - len(existing)


def _batches(
    items: Iterable[PaperRecord | SkippedItem], size: int, report: ImportReport
) -> Iterator[list[PaperRecord]]:
    """Batches of unique records; skipped items and repeated ids go to ``report``."""
    seen: dict[str, str] = {}
    batch: list[PaperRecord] = []
    for item in items:
        if isinstance(item, SkippedItem):
            report.skipped.append(item)
            continue
        first = seen.get(item.venue_id)
        if first is not None:
            report.skipped.append(
                SkippedItem(
                    location=item.origin or item.venue_id,
                    reason=f"duplicate id {item.venue_id!r} (first at {first})",
                )
            )
            continue
        seen[item.venue_id] = item.origin or item.venue_id
        batch.append(item if item.source else item.model_copy(update={"source": report.source}))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def import_papers(
    store: Store,
    challenge_id: int,
    items: Iterable[PaperRecord | SkippedItem],
    *,
    source: str,
    batch_size: int = 500,
    progress: Progress | None = None,
) -> ImportReport:
    """Import a stream of records; each batch commits on its own, skipped items are reported."""
    started = time.perf_counter()
    report = ImportReport(source=source)
    with store.session() as session:
        check_not_frozen(session, challenge_id)
    for batch in _batches(items, batch_size, report):
        with store.session() as session:
            created = upsert_batch(session, challenge_id, batch)
        report.created += created
        report.updated += len(batch) - created
        if progress is not None:
            progress(len(batch))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _claim_counts() -> Any:
    return (
        select(Claim.paper_id, func.count(Claim.id).label("n")).group_by(Claim.paper_id).subquery()
    )


def _summary_query(challenge_id: int) -> tuple[Select[Any], Any]:
    counts = _claim_counts()
    query = (
        select(
            Paper.venue_id,
            Paper.title,
            Paper.authors,
            Paper.status,
            Paper.track,
            func.coalesce(counts.c.n, 0).label("claims"),
            Paper.full_text.is_not(None).label("has_full_text"),
        )
        .outerjoin(counts, counts.c.paper_id == Paper.id)
        .where(Paper.challenge_id == challenge_id)
    )
    return query, counts


def list_papers(
    session: Session,
    challenge_id: int,
    *,
    status: str | None = None,
    track: str | None = None,
    has_claims: bool | None = None,
    limit: int | None = 50,
    offset: int = 0,
) -> tuple[list[PaperSummary], int]:
    """One page of papers (ordered by venue id) and the total matching the filters."""
    query, counts = _summary_query(challenge_id)
    if status is not None:
        query = query.where(func.lower(Paper.status) == status.lower())
    if track is not None:
        query = query.where(func.lower(Paper.track) == track.lower())
    if has_claims is True:
        query = query.where(counts.c.n > 0)
    elif has_claims is False:
        query = query.where(counts.c.n.is_(None))
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    query = query.order_by(Paper.venue_id).offset(offset)
    if limit is not None:
        query = query.limit(limit)
    rows = session.execute(query).mappings().all()
    return [PaperSummary.model_validate(dict(row)) for row in rows], total


def get_paper(session: Session, challenge_id: int, venue_id: str) -> PaperDetail:
    found = paper_details(session, challenge_id, [venue_id]).get(venue_id)
    if found is None:
        raise NotFoundError(f"no paper with id {venue_id!r}")
    return found


def stored_text(session: Session, challenge_id: int, venue_id: str) -> StoredText:
    """The paper's stored full text, else its abstract (``papers text``)."""
    row = session.execute(
        select(Paper.full_text, Paper.abstract).where(
            Paper.challenge_id == challenge_id, Paper.venue_id == venue_id
        )
    ).first()
    if row is None:
        raise NotFoundError(f"no paper with id {venue_id!r}")
    full, abstract = row
    field: Literal["full_text", "abstract"] = "full_text" if full else "abstract"
    body = full or abstract or ""
    return StoredText(paper_id=venue_id, field=field, chars=len(body), text=body)


def paper_details(
    session: Session, challenge_id: int, venue_ids: Sequence[str] | None = None
) -> dict[str, PaperDetail]:
    """Papers' details by venue id, every paper of the challenge or those of ``venue_ids``, in
    one query (the full text's length is counted by the database, the text is not read)."""
    claims = (
        select(Claim.paper_id, func.count(Claim.id).label("n"))
        .where(Claim.status == "active")
        .group_by(Claim.paper_id)
        .subquery()
    )
    query = (
        select(
            Paper.venue_id, Paper.title, Paper.authors, Paper.status, Paper.track,
            func.coalesce(claims.c.n, 0).label("claims"),
            Paper.full_text.is_not(None).label("has_full_text"), Paper.abstract,
            Paper.decision, Paper.site_url, Paper.pdf_url, Paper.arxiv_id, Paper.keywords,
            Paper.source, Paper.licence,
            func.coalesce(func.length(Paper.full_text), 0).label("full_text_chars"),
            Paper.created_at, Paper.updated_at,
        )
        .outerjoin(claims, claims.c.paper_id == Paper.id)
        .where(Paper.challenge_id == challenge_id)
    )  # fmt: skip
    if venue_ids is not None:
        query = query.where(Paper.venue_id.in_(list(venue_ids)))
    rows = session.execute(query).mappings().all()
    return {r["venue_id"]: PaperDetail.model_validate(dict(r)) for r in rows}


#: Search bounds: a query is cut to its first ``MAX_QUERY_CHARS`` characters and its first
#: ``MAX_QUERY_TERMS`` distinct words (each at most ``MAX_TERM_CHARS`` long); one search may use
#: the database for ``SEARCH_SECONDS`` at most. Repeating a word cost FTS5's snippet() (and
#: PostgreSQL's ts_headline) time quadratic in the repetitions; distinct words bound it.
MAX_QUERY_CHARS = 2_000
MAX_QUERY_TERMS = 8
MAX_TERM_CHARS = 64
SEARCH_SECONDS = 2.0


def search_terms(query: str) -> list[str]:
    """The words a search uses: distinct (case-insensitively), bounded in number and length."""
    cut = query[:MAX_QUERY_CHARS]
    if len(query) > MAX_QUERY_CHARS and query[MAX_QUERY_CHARS].isalnum():
        cut = cut.rstrip("".join(c for c in set(cut) if c.isalnum()))  # no half word at the end
    words = "".join(c if c.isalnum() else " " for c in cut).split()
    seen: dict[str, str] = {}
    for word in words:
        word = word[:MAX_TERM_CHARS]
        seen.setdefault(word.casefold(), word)
        if len(seen) == MAX_QUERY_TERMS:
            break
    return list(seen.values())


def _fts5_query(terms: list[str]) -> str:
    """Each word as a quoted FTS5 string, AND-ed: user text can never be FTS5 syntax."""
    return " ".join('"' + w + '"' for w in terms)


@contextmanager
def _time_limit(session: Session, seconds: float) -> Iterator[None]:
    """Abort the statements run inside after ``seconds`` (the store's deadline: SQLite's
    progress handler interrupts; PostgreSQL: ``statement_timeout`` for the transaction)."""
    with deadline(seconds):
        if session.get_bind().dialect.name != "sqlite":
            left = deadline_remaining() or 0.0
            session.execute(text(f"SET LOCAL statement_timeout = {max(1, round(left * 1000))}"))
            yield
            return
        with finer_deadline_checks(session.connection().connection.driver_connection):
            yield


def search_papers(
    session: Session, challenge_id: int, query: str, *, limit: int = 20, snippets: bool = True
) -> list[SearchHit]:
    """Full-text search over title, abstract and full text, best matches first.

    The query is bounded (:func:`search_terms`) and so is its time (``SEARCH_SECONDS``: a
    :class:`~openrepro.errors.ConfigError` past it). ``snippets=False`` skips the highlighted
    excerpts, the costly part, for lists that do not show them.
    """
    terms = search_terms(query)
    if not terms:
        return []
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        snippet = "snippet(papers_fts, -1, '[', ']', ' … ', 12)" if snippets else "''"
        sql = text(
            f"""
            SELECT p.venue_id, p.title, p.status,
                   -bm25(papers_fts, 10.0, 3.0, 1.0) AS score,
                   {snippet} AS snippet
            FROM papers_fts JOIN papers p ON p.id = papers_fts.rowid
            WHERE papers_fts MATCH :match AND p.challenge_id = :challenge
            ORDER BY bm25(papers_fts, 10.0, 3.0, 1.0), p.venue_id
            LIMIT :limit
            """
        )
        params: dict[str, Any] = {
            "match": _fts5_query(terms), "challenge": challenge_id, "limit": limit
        }  # fmt: skip
    else:
        snippet = (
            "ts_headline('english', coalesce(p.abstract, p.title), q, "
            "'StartSel=[,StopSel=],MaxWords=24,MinWords=8')"
            if snippets
            else "''"
        )
        sql = text(
            f"""
            SELECT p.venue_id, p.title, p.status,
                   ts_rank_cd(p.search_vector, q) AS score,
                   {snippet} AS snippet
            FROM papers p, plainto_tsquery('english', :query) q
            WHERE p.search_vector @@ q AND p.challenge_id = :challenge
            ORDER BY score DESC, p.venue_id
            LIMIT :limit
            """
        )
        params = {"query": " ".join(terms), "challenge": challenge_id, "limit": limit}
    try:
        with _time_limit(session, SEARCH_SECONDS):
            rows = session.execute(sql, params).mappings().all()
    except OperationalError as exc:
        raise ConfigError(
            f"the search took longer than {SEARCH_SECONDS:g} s and was stopped: "
            "use fewer or more specific words"
        ) from exc
    return [
        SearchHit(
            venue_id=row["venue_id"],
            title=row["title"],
            status=row["status"],
            score=round(float(row["score"]), 6),
            snippet=row["snippet"] or "",
        )
        for row in rows
    ]
