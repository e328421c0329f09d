"""The board's one page assembler: every record page's data (paper, logbook, logbook content,
participant), for the live board, the pages it builds ahead and the static site alike.

:class:`Records` reads what those pages show, either for the whole challenge in a few bulk
queries (building ahead, the static site) or for one record in a few small ones (a live page
built on demand): the same reading functions (``list_claims``, ``list_logbooks``,
``verdict_cells``, ``claim_consensus``, ``paper_outcomes``, ``author_responses``,
``paper_details``, ``list_jobs``), called with or without a filter, grouped in memory by the
same code. :class:`Assembler` renders a page from them with a set of links (the live board's
routes or the static site's files, see :mod:`openrepro.board.pages`): a live page and the static
page of the same record differ only in their links (``tests/board/test_board_assemble.py``).
Which pages exist, where, and what they depend on is :mod:`openrepro.board.catalogue`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.board import data as board_data
from openrepro.board.data import VerdictCell
from openrepro.board.pages import Renderer, UrlFor
from openrepro.challenge import ChallengeContext
from openrepro.claims.proposals import list_proposals
from openrepro.claims.records import ClaimView
from openrepro.claims.service import list_claims
from openrepro.errors import NotFoundError, OpenReproError
from openrepro.jobs import get_job, list_jobs
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.render import render_logbook
from openrepro.logbooks.service import LogbookSummary, list_logbooks
from openrepro.outcomes import (
    AuthorResponseView,
    ClaimConsensus,
    PaperOutcome,
    Stats,
    author_responses,
    claim_consensus,
    compute_stats,
    paper_outcomes,
)
from openrepro.papers.records import PaperDetail
from openrepro.papers.service import paper_details
from openrepro.store import Claim, Logbook, Paper, Participant
from openrepro.store.judge_queue import awaiting_rejudging

__all__ = [
    "Assembler",
    "LogbookData",
    "PaperData",
    "ParticipantData",
    "Records",
    "logbook_data",
    "paper_data",
]


class PaperData(BaseModel):
    paper: PaperDetail
    outcome: PaperOutcome
    claims: list[ClaimView]
    consensus: dict[str, ClaimConsensus]  # by claim key
    logbooks: list[LogbookSummary]
    cells: dict[str, dict[int, VerdictCell]]  # claim key -> logbook id -> verdict


class LogbookData(BaseModel):
    summary: LogbookSummary
    paper_title: str
    verdicts: list[VerdictCell]
    older_revisions: list[int] = Field(default_factory=list)
    newer_revision: int | None = None


class ParticipantData(BaseModel):
    handle: str
    name: str
    team: str | None
    role: str
    logbooks: list[LogbookSummary]
    team_confirmed: bool = False
    verdicts: list[VerdictCell]
    credit: int = 0
    verified: int = 0
    falsified: int = 0
    jobs: list[dict[str, Any]] = Field(default_factory=list)


def _one(rows: Sequence[Any], what: str) -> Any:
    if not rows:
        raise NotFoundError(what)
    return rows[0]


class Records:
    """What the record pages show, as of one read (public view): of the whole challenge
    (no argument), or of one ``paper`` (venue id), ``logbook`` (id) or ``participant``
    (handle). ``stats``, ``outcomes`` and ``recheck`` (the claims' re-check states) may be
    passed when the caller has them already (the live board's cached aggregates)."""

    def __init__(
        self,
        ctx: ChallengeContext,
        *,
        paper: str | None = None,
        logbook: int | None = None,
        participant: str | None = None,
        stats: Stats | None = None,
        outcomes: list[PaperOutcome] | None = None,
        recheck: dict[int, str] | None = None,
    ) -> None:
        self.ctx = ctx
        cid = ctx.challenge_id
        self._stats = stats
        paper_ids: list[int] | None = None
        venue_ids: list[str] | None = None
        cells_filter: dict[str, Any] = {}
        people_filter: list[str] | None = None
        self._logbook_scope = logbook
        with ctx.store.session() as session:
            if logbook is not None:
                row = _one(session.execute(
                    select(Paper.id, Paper.venue_id, Participant.handle)
                    .join(Logbook, Logbook.paper_id == Paper.id)
                    .join(Participant, Participant.id == Logbook.participant_id)
                    .where(Logbook.id == logbook, Paper.challenge_id == cid)
                ).all(), f"no logbook {logbook}")  # fmt: skip
                paper_ids, venue_ids, people_filter = [row[0]], [row[1]], [row[2]]
                cells_filter = {"logbook_id": logbook}
            elif paper is not None:
                found = _one(list(session.scalars(select(Paper.id).where(
                    Paper.challenge_id == cid, Paper.venue_id == paper))),
                    f"no paper with id {paper!r}")  # fmt: skip
                paper_ids, venue_ids, people_filter = [found], [paper], []
                cells_filter = {"paper_id": found}
            elif participant is not None:
                people_filter = [participant]
                venue_ids = []
            self.details = paper_details(session, cid, venue_ids)
            claims = (
                list_claims(session, cid, paper=paper)
                if paper is not None or venue_ids is None
                else []  # a logbook's or a participant's page shows no claim list
            )
            if logbook is not None:
                assert venue_ids and people_filter
                self.books = list_logbooks(
                    session, cid, paper=venue_ids[0], participant=people_filter[0]
                )
            else:
                self.books = list_logbooks(session, cid, paper=paper, participant=participant)
            query = select(
                Participant.id, Participant.handle, Participant.name, Participant.team,
                Participant.role, Participant.team_confirmed,
            ).where(Participant.challenge_id == cid).order_by(Participant.handle)  # fmt: skip
            if people_filter is not None:
                query = query.where(Participant.handle.in_(people_filter))
            people = session.execute(query).all()
            # what the pages' tags name (see openrepro.board.catalogue.record_tags): the ids
            # of the papers shown and the participants who proposed checks on them
            venues = {b.paper_id for b in self.books} | set(self.details)
            ids = select(Paper.venue_id, Paper.id).where(Paper.challenge_id == cid)
            if venue_ids is not None:
                ids = ids.where(Paper.venue_id.in_(venues))
            self._paper_ids = {str(v): int(i) for v, i in session.execute(ids)}
            self._proposers: dict[str, set[str]] = defaultdict(set)
            if participant is None and logbook is None:
                for proposal in list_proposals(session, cid, paper=paper):
                    self._proposers[proposal.claim.rsplit("/", 1)[0]].add(proposal.participant)
        self.people = {row[1]: row for row in people}
        if participant is not None and participant not in self.people:
            raise NotFoundError(f"no participant {participant!r}")
        if participant is not None:
            cells_filter = {"participant_id": int(self.people[participant][0])}
        if outcomes is None and paper_ids is not None:
            outcomes = paper_outcomes(ctx, paper_ids=paper_ids, public=True)
        if outcomes is None and participant is None:
            outcomes = paper_outcomes(ctx, public=True)
        self.outcomes = outcomes or []
        self._outcome = {o.paper: o for o in self.outcomes}
        self._claims: dict[str, list[ClaimView]] = defaultdict(list)
        for claim in (c for c in claims if c.status == "active"):
            self._claims[claim.paper_id].append(claim)
        self._consensus: dict[int, dict[str, ClaimConsensus]] = defaultdict(dict)
        if participant is None and logbook is None:
            for c in claim_consensus(ctx, paper_ids=paper_ids, public=True):
                self._consensus[c.paper_id][c.key] = c
        self._by_paper: dict[str, list[VerdictCell]] = defaultdict(list)
        self._by_logbook: dict[int, list[VerdictCell]] = defaultdict(list)
        self._by_person: dict[str, list[VerdictCell]] = defaultdict(list)
        states = board_data.recheck_states(ctx) if recheck is None else recheck
        for cell in board_data.verdict_cells(ctx, **cells_filter):
            cell.recheck = states.get(cell.claim_id, "")
            self._by_paper[cell.paper].append(cell)
            self._by_logbook[cell.logbook_id].append(cell)
            self._by_person[cell.participant].append(cell)
        self._book: dict[int, LogbookSummary] = {b.id: b for b in self.books}
        self._books_of_paper: dict[str, list[LogbookSummary]] = defaultdict(list)
        self._books_of_person: dict[str, list[LogbookSummary]] = defaultdict(list)
        self._siblings: dict[tuple[str, str], list[int]] = defaultdict(list)
        for book in self.books:  # in id order
            self._books_of_person[book.participant].append(book)
            self._siblings[(book.paper_id, book.participant)].append(book.id)
            if book.current:
                self._books_of_paper[book.paper_id].append(book)
        self._responses: dict[str, list[AuthorResponseView]] = defaultdict(list)
        if participant is None and logbook is None:
            for answer in author_responses(ctx, paper_ids=paper_ids):
                self._responses[answer.paper].append(answer)
        self._jobs: dict[str, dict[str, Any]] = {}
        self._jobs_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
        if paper is None and logbook is None:
            # newest first, as list_jobs(participant=...) gives them
            for job in list_jobs(ctx, participant=participant):
                shown = job.model_dump(mode="json")
                self._jobs[job.id] = shown
                if job.participant is not None:
                    self._jobs_of[job.participant].append(shown)

    @property
    def stats(self) -> Stats:
        if self._stats is None:
            self._stats = compute_stats(self.ctx, public=True)
        return self._stats

    # -- each record page's data ---------------------------------------------------------------

    def paper(self, venue_id: str) -> PaperData:
        detail = self.details.get(venue_id)
        if detail is None or venue_id not in self._outcome:
            raise NotFoundError(f"no paper with id {venue_id!r}")
        outcome = self._outcome[venue_id]
        cells: dict[str, dict[int, VerdictCell]] = {}
        for cell in self._by_paper.get(venue_id, []):
            cells.setdefault(cell.claim_key, {})[cell.logbook_id] = cell
        return PaperData(
            paper=detail, outcome=outcome, claims=list(self._claims.get(venue_id, [])),
            consensus=dict(self._consensus.get(outcome.paper_id, {})),
            logbooks=list(self._books_of_paper.get(venue_id, [])), cells=cells,
        )  # fmt: skip

    def awaiting_rejudging(self, venue_id: str) -> set[str]:
        """Keys of the paper's claims whose check changed and whose verdicts still wait in the
        judge queue (:func:`openrepro.store.judge_queue.awaiting_rejudging`)."""
        with self.ctx.store.session() as session:
            keys = {
                claim_id: key
                for claim_id, key in session.execute(
                    select(Claim.id, Claim.key)
                    .join(Paper, Paper.id == Claim.paper_id)
                    .where(Paper.challenge_id == self.ctx.challenge_id, Paper.venue_id == venue_id)
                )
            }
            return {keys[c] for c in awaiting_rejudging(session, keys)}

    def responses(self, venue_id: str) -> list[AuthorResponseView]:
        """Author responses on a paper, as the paper page lists them."""
        return list(self._responses.get(venue_id, []))

    def logbook(self, logbook_id: int) -> LogbookData:
        book = self._book.get(logbook_id)
        if book is None:
            raise NotFoundError(f"no logbook {logbook_id}")
        siblings = self._siblings[(book.paper_id, book.participant)]
        later = [i for i in siblings if i > logbook_id]
        return LogbookData(
            summary=book, paper_title=self.details[book.paper_id].title,
            verdicts=list(self._by_logbook.get(logbook_id, [])),
            older_revisions=[i for i in siblings if i < logbook_id],
            newer_revision=later[-1] if later else None,
        )  # fmt: skip

    def cited_jobs(self, record: LogbookRecord) -> list[dict[str, Any]]:
        """The compute jobs ``record`` cites, as the logbook page shows them."""
        return board_data.cited_jobs(record, self._job)

    def _job(self, ref: str) -> dict[str, Any] | None:
        found = self._jobs.get(ref)
        if found is not None:
            return found
        try:  # a job of a page read alone, or another spelling of its id (``hf:<id>``)
            return get_job(self.ctx, ref).model_dump(mode="json")
        except OpenReproError:
            return None

    def participant(self, handle: str) -> ParticipantData:
        row = self.people.get(handle)
        if row is None:
            raise NotFoundError(f"no participant {handle!r}")
        _pid, _, name, team, role, team_confirmed = row
        mine = next((c for c in self.stats.credit if c.handle == handle), None)
        return ParticipantData(
            handle=handle, name=name, team=team, role=role,
            logbooks=list(self._books_of_person.get(handle, [])),
            team_confirmed=bool(team and team_confirmed),
            verdicts=list(self._by_person.get(handle, [])),
            credit=mine.credit if mine else 0, verified=mine.verified if mine else 0,
            falsified=mine.falsified if mine else 0, jobs=list(self._jobs_of.get(handle, [])),
        )  # fmt: skip

    # -- ids, for iterating and tagging -----------------------------------------------------------

    def venue_ids(self) -> list[str]:
        return sorted(self.details)

    def handles(self) -> list[str]:
        return list(self.people)

    def participant_id(self, handle: str) -> int:
        return int(self.people[handle][0])

    def paper_id(self, venue_id: str) -> int:
        return self._paper_ids[venue_id]

    def proposers(self, venue_id: str) -> set[str]:
        """The handles of the participants whose check proposals a paper's page shows."""
        return set(self._proposers.get(venue_id, ()))

    def manifests(self) -> Iterator[tuple[int, LogbookRecord]]:
        """The stored record of every logbook read (all, or the one of a logbook's page), in
        id order, read in batches."""
        query = (
            select(Logbook.id, Logbook.manifest)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == self.ctx.challenge_id)
            .order_by(Logbook.id)
            .execution_options(yield_per=500)
        )
        if self._logbook_scope is not None:
            query = query.where(Logbook.id == self._logbook_scope)
        with self.ctx.store.session() as session:
            for logbook_id, manifest in session.execute(query):
                yield int(logbook_id), LogbookRecord.model_validate(manifest)


def paper_data(
    ctx: ChallengeContext, venue_id: str, recheck: dict[int, str] | None = None
) -> PaperData:
    """One paper's page data (read alone)."""
    return Records(ctx, paper=venue_id, recheck=recheck).paper(venue_id)


def logbook_data(
    ctx: ChallengeContext, logbook_id: int, recheck: dict[int, str] | None = None
) -> LogbookData:
    """One logbook's page data (read alone)."""
    return Records(ctx, logbook=logbook_id, recheck=recheck).logbook(logbook_id)


class Assembler:
    """Renders the record pages from :class:`Records`, with the links ``url`` makes."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer

    def paper(self, records: Records, venue_id: str, url: UrlFor, *, static: bool) -> str:
        return self.renderer.render("paper.html", url, static=static,
                                    data=records.paper(venue_id),
                                    responses=records.responses(venue_id),
                                    awaiting=records.awaiting_rejudging(venue_id))  # fmt: skip

    def logbook(
        self, records: Records, logbook_id: int, record: LogbookRecord, url: UrlFor, *, static: bool
    ) -> str:
        return self.renderer.render("logbook.html", url, static=static,
                                    data=records.logbook(logbook_id),
                                    jobs=records.cited_jobs(record))  # fmt: skip

    @staticmethod
    def content(
        record: LogbookRecord, handle: str, file_url: Callable[[FileRef], str | None]
    ) -> str:
        """The participant's own document (sanitised, see :mod:`openrepro.logbooks.render`)."""
        return render_logbook(record, file_url=file_url, participant=handle)

    def participant(self, records: Records, handle: str, url: UrlFor, *, static: bool) -> str:
        return self.renderer.render("participant.html", url, static=static,
                                    data=records.participant(handle))  # fmt: skip
