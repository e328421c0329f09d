"""The board's reading functions: current verdicts as cells, the paper lists and their filters
and orders, the re-check states, the home page's figures.

The same functions feed the live board (``openrepro serve``), its JSON API and the static export
(``openrepro site build``), so the three never disagree; the record pages' data is assembled
from them by :mod:`openrepro.board.assemble`. Everything here is public: verdicts of
papers inside their anti-herding window are left out (see :func:`outcomes.hidden_papers`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import aliased

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check
from openrepro.errors import CheckError, NotFoundError
from openrepro.jobs import jobs_cited_by
from openrepro.logbooks.records import LogbookRecord
from openrepro.outcomes import (
    PaperOutcome,
    Stats,
    compute_stats,
    paper_outcomes,
    verdicts_by_day,
)
from openrepro.outcomes.current import challenge_query
from openrepro.papers.service import search_papers
from openrepro.recheck import recheck_queue
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit
from openrepro.store.judge_queue import QueueStats, queue_stats

__all__ = [
    "OPEN_RECHECK",
    "PAPER_FILTERS",
    "PAPER_SORTS",
    "HomeData",
    "PaperRow",
    "VerdictCell",
    "cited_jobs",
    "home_data",
    "judge_queue",
    "paper_authors",
    "paper_row_id",
    "paper_rows",
    "paper_sort_key",
    "pending_recheck",
    "recheck_entries",
    "recheck_states",
    "rows_by_filter",
    "unsettled_papers",
    "verdict_cells",
    "verdict_key",
]

#: Filters of the paper list: key -> label (besides free-text search).
PAPER_FILTERS: dict[str, str] = {
    "all": "All papers",
    "unattempted": "Unattempted",
    "attempted": "Attempted",
    "contested": "Contested",
    "falsified": "≥ 1 falsified or contested",
    "needs-recheck": "Needs re-check",
    "fully-reproduced": "Fully reproduced",
    "toy-only": "Toy only",
    "has-claims": "Has claims",
}

#: Orders of the paper list: key -> label. Counts sort most first; ties by venue id.
PAPER_SORTS: dict[str, str] = {
    "id": "Paper id",
    "title": "Title",
    "claims": "Most claims",
    "logbooks": "Most logbooks",
    "verified": "Most verified",
    "falsified": "Most falsified",
}


def paper_sort_key(row: PaperRow, sort: str) -> tuple[str | int, ...]:
    """The key that sorts the paper list by ``sort`` (see :data:`PAPER_SORTS`), ending with
    the venue id, so it is unique (the list's keyset cursor)."""
    if sort == "title":
        return (row.title.casefold(), row.venue_id)
    if sort in ("claims", "logbooks", "verified", "falsified"):
        return (-int(getattr(row, sort)), row.venue_id)
    return (row.venue_id,)


class VerdictCell(BaseModel):
    """One current verdict as the board shows it."""

    verdict_id: int
    claim_id: int
    claim_key: str
    paper: str
    logbook_id: int
    participant: str
    team: str | None = None
    revision: str
    value: str  # effective: organizer edits and the provenance minimum applied
    judge_value: str  # what the judge said
    provenance: str
    flags: list[str] = Field(default_factory=list)
    rationale: str = ""
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    judge_model: str = ""
    edited_by: str | None = None
    edit_reason: str | None = None
    edit_source: str | None = None
    created_at: datetime | None = None
    #: how code decided, for a claim with a check: the judge's evaluation (see board.checks)
    details: dict[str, Any] = Field(default_factory=dict)
    #: the claim's check in words now ("" when the claim has no check)
    check_words: str = ""
    #: the claim's state on the re-check queue ("" when it is not queued; see openrepro.recheck)
    recheck: str = ""
    #: the judge's verified counts as inconclusive only because its provenance is below the
    #: challenge's min_provenance_verified (shown, not counted)
    below_minimum: bool = False


def verdict_key(cell: VerdictCell) -> tuple[str, int, str]:
    """The order and cursor key of the API's verdict list: paper, claim, participant (each
    has one current verdict)."""
    return (cell.paper, cell.claim_id, cell.participant)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def verdict_cells(
    ctx: ChallengeContext,
    *,
    paper_id: int | None = None,
    logbook_id: int | None = None,
    participant_id: int | None = None,
    public: bool = True,
) -> list[VerdictCell]:
    """Current verdicts, optionally of one paper, logbook or participant."""
    where: list[Any] = []
    restrict: list[Any] = []  # the same conditions, pushed down to the logbooks considered
    if paper_id is not None:
        restrict.append(Logbook.paper_id == paper_id)
    if logbook_id is not None:
        book = aliased(Logbook)
        restrict += [
            Logbook.paper_id
            == select(book.paper_id).where(book.id == logbook_id).scalar_subquery(),
            Logbook.participant_id
            == select(book.participant_id).where(book.id == logbook_id).scalar_subquery(),
        ]
    if participant_id is not None:
        restrict.append(Logbook.participant_id == participant_id)
    cur = challenge_query(ctx, public=public, where=restrict)
    if paper_id is not None:
        where.append(cur.paper_id == paper_id)
    if logbook_id is not None:
        where.append(cur.logbook_id == logbook_id)
    if participant_id is not None:
        where.append(cur.participant_id == participant_id)
    edit = aliased(VerdictEdit)
    query = (
        select(
            cur.verdict_id, cur.claim_id, Claim.key, Paper.venue_id, cur.logbook_id,
            Participant.handle, Participant.team, Logbook.revision, cur.value,
            Verdict.verdict, cur.provenance, Verdict.flags, Verdict.rationale, Verdict.evidence,
            Verdict.judge_model, edit.editor, edit.reason, edit.source, Verdict.created_at,
            Verdict.details, Claim.check, cur.below_minimum,
        )
        .select_from(cur.eff)
        .join(Verdict, Verdict.id == cur.verdict_id)
        .join(Claim, Claim.id == cur.claim_id)
        .join(Paper, Paper.id == cur.paper_id)
        .join(Logbook, Logbook.id == cur.logbook_id)
        .join(Participant, Participant.id == cur.participant_id)
        .outerjoin(cur.last_edit, cur.last_edit.c.verdict_id == cur.verdict_id)
        .outerjoin(edit, edit.id == cur.last_edit.c.id)
        .where(*where)
        .order_by(Paper.venue_id, Claim.id, Participant.handle)
    )  # fmt: skip
    with ctx.store.session() as session:
        rows = session.execute(query).all()
    words: dict[int, str] = {}  # claim id -> its check in words, each parsed once
    for r in rows:
        if r.claim_id not in words:
            words[r.claim_id] = _check_words(_json(r.check))
    return [
        VerdictCell(
            verdict_id=r.verdict_id,
            claim_id=r.claim_id,
            claim_key=r.key,
            paper=r.venue_id,
            logbook_id=r.logbook_id,
            participant=r.handle,
            team=r.team,
            revision=r.revision,
            value=r.value,
            judge_value=r.verdict,
            provenance=r.provenance,
            flags=_json(r.flags) or [],
            rationale=r.rationale or "",
            evidence=_json(r.evidence) or [],
            judge_model=r.judge_model or "",
            edited_by=r.editor,
            edit_reason=r.reason,
            edit_source=r.source,
            created_at=r.created_at,
            details=_json(r.details) or {},
            check_words=words[r.claim_id],
            below_minimum=bool(r.below_minimum),
        )
        for r in rows
    ]


def _check_words(stored: Any) -> str:
    """A stored check in words ("" for none, or for one this version cannot read)."""
    if not stored:
        return ""
    try:
        return Check.from_json(stored).describe()
    except CheckError:
        return ""


# -- papers ----------------------------------------------------------------------------------


class PaperRow(BaseModel):
    venue_id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    status: str
    claims: int
    logbooks: int
    verified: int
    falsified: int
    contested: int
    needs_recheck: bool = False


#: Queue statuses that still need an organizer.
OPEN_RECHECK = ("open", "checked", "needs-more-evidence")


def recheck_entries(
    ctx: ChallengeContext, status: str | None = None, reason: str | None = None
) -> list[Any]:
    """The re-check queue (see :mod:`openrepro.recheck`) as readers may see it."""
    return list(recheck_queue(ctx, status=status, reason=reason, public=True))


def _needs_recheck(outcome: PaperOutcome, pending: set[str] | None = None) -> bool:
    if pending is not None:
        return outcome.paper in pending
    return outcome.falsified_any


def _row(
    o: PaperOutcome, pending: set[str] | None = None, authors: dict[str, list[str]] | None = None
) -> PaperRow:
    return PaperRow(
        venue_id=o.paper, title=o.title, authors=(authors or {}).get(o.paper, []),
        status=o.status, claims=o.claims, logbooks=o.logbooks,
        verified=o.verified, falsified=o.falsified, contested=o.contested,
        needs_recheck=_needs_recheck(o, pending),
    )  # fmt: skip


def pending_recheck(ctx: ChallengeContext) -> set[str]:
    """Papers with a claim on the re-check queue (:func:`~openrepro.recheck.recheck_queue`, as
    readers see it) that no organizer has settled (confirmed or rejected) yet: the queue's own
    answer, read from its derived tables, so the paper lists and the queue page agree."""
    return unsettled_papers(recheck_entries(ctx))


def recheck_states(ctx: ChallengeContext) -> dict[int, str]:
    """Each queued claim's state on the re-check queue (as readers see it), by claim id."""
    return {e.claim_id: e.status for e in recheck_entries(ctx)}


def unsettled_papers(entries: Iterable[Any]) -> set[str]:
    """The papers of re-check queue ``entries`` that no organizer has settled yet."""
    return {e.paper for e in entries if e.status in OPEN_RECHECK}


def _filters(o: PaperOutcome, pending: set[str] | None = None) -> dict[str, bool]:
    """Which of :data:`PAPER_FILTERS` a paper's outcome row matches."""
    return {
        "all": True,
        "unattempted": o.logbooks == 0,
        "attempted": o.logbooks > 0,
        "contested": o.contested_any,
        "falsified": o.falsified_any,
        "needs-recheck": _needs_recheck(o, pending),
        "fully-reproduced": o.fully_reproduced,
        "toy-only": o.toy_only_paper,
        "has-claims": o.claims > 0,
    }


def paper_authors(ctx: ChallengeContext) -> dict[str, list[str]]:
    """Every paper's authors, by venue id."""
    with ctx.store.session() as session:
        rows = session.execute(
            select(Paper.venue_id, Paper.authors).where(Paper.challenge_id == ctx.challenge_id)
        ).all()
    return {venue_id: list(authors or []) for venue_id, authors in rows}


def _matches(o: PaperOutcome, key: str, pending: set[str] | None = None) -> bool:
    return _filters(o, pending).get(key, False)


def paper_rows(
    ctx: ChallengeContext,
    *,
    status: str = "all",
    query: str = "",
    outcomes: list[PaperOutcome] | None = None,
    pending: set[str] | None = None,
    author: str = "",
    authors: dict[str, list[str]] | None = None,
) -> list[PaperRow]:
    """Papers matching a filter (``PAPER_FILTERS``), a full-text query and an author (a part of
    an author's name, any case), in venue-id order (search hits in relevance order)."""
    if status not in PAPER_FILTERS:
        raise NotFoundError(f"unknown filter {status!r}; use one of {', '.join(PAPER_FILTERS)}")
    rows = outcomes if outcomes is not None else paper_outcomes(ctx, public=True)
    if pending is None:
        pending = pending_recheck(ctx)
    if authors is None:
        authors = paper_authors(ctx)
    chosen = [o for o in rows if _matches(o, status, pending)]
    wanted = author.strip().casefold()
    if wanted:
        chosen = [
            o for o in chosen if any(wanted in a.casefold() for a in authors.get(o.paper, []))
        ]
    if query.strip():
        with ctx.store.session() as session:
            hits = search_papers(session, ctx.challenge_id, query, limit=500, snippets=False)
        order = {hit.venue_id: i for i, hit in enumerate(hits)}
        chosen = sorted((o for o in chosen if o.paper in order), key=lambda o: order[o.paper])
    else:
        chosen.sort(key=lambda o: o.paper)
    return [_row(o, pending, authors) for o in chosen]


def rows_by_filter(
    outcomes: list[PaperOutcome],
    pending: set[str],
    authors: dict[str, list[str]] | None = None,
) -> dict[str, list[PaperRow]]:
    """Every filter's rows of :func:`paper_rows` (no search) at once, each row built once."""
    out: dict[str, list[PaperRow]] = {key: [] for key in PAPER_FILTERS}
    for o in sorted(outcomes, key=lambda o: o.paper):
        row = _row(o, pending, authors)
        for key, matched in _filters(o, pending).items():
            if matched:
                out[key].append(row)
    return out


def paper_row_id(ctx: ChallengeContext, venue_id: str) -> int:
    """The store id of a paper of this challenge, by venue id (NotFoundError if absent)."""
    with ctx.store.session() as session:
        found = session.scalar(
            select(Paper.id).where(
                Paper.challenge_id == ctx.challenge_id, Paper.venue_id == venue_id
            )
        )
    if found is None:
        raise NotFoundError(f"no paper with id {venue_id!r}")
    return found


def cited_jobs(
    record: LogbookRecord, lookup: Callable[[str], dict[str, Any] | None]
) -> list[dict[str, Any]]:
    """The compute jobs a logbook cites, as the logbook page shows them (``ref`` plus the job's
    fields; an id the platform does not know shows as ``unknown``)."""
    unknown: dict[str, Any] = {"status": "unknown", "cost_usd": None}
    return [{"ref": ref, **(lookup(ref) or unknown)} for ref in jobs_cited_by(record)]


# -- home ------------------------------------------------------------------------------------


class HomeData(BaseModel):
    stats: Stats
    statuses: dict[str, int]  # papers per status label
    verdicts_by_day: list[tuple[date, dict[str, int]]]


def home_data(
    ctx: ChallengeContext,
    outcomes: list[PaperOutcome] | None = None,
    stats: Stats | None = None,
) -> HomeData:
    """The home page's data; ``outcomes`` and ``stats`` when the caller has them already."""
    rows = outcomes if outcomes is not None else paper_outcomes(ctx, public=True)
    statuses = Counter(o.status for o in rows)
    return HomeData(
        stats=stats if stats is not None else compute_stats(ctx, public=True),
        statuses=dict(sorted(statuses.items(), key=lambda kv: (-kv[1], kv[0]))),
        verdicts_by_day=verdicts_by_day(ctx, public=True),
    )


def judge_queue(ctx: ChallengeContext) -> QueueStats:
    """The judge queue as the stats page shows it (see
    :func:`openrepro.store.judge_queue.queue_stats`)."""
    with ctx.store.session() as session:
        return queue_stats(session, ctx.challenge_id)
