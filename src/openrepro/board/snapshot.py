"""Every paper, logbook and participant page's data at once, read in a few bulk queries.

:mod:`openrepro.board.data` answers for one page (``paper_data``, ``logbook_data``,
``participant_data``): what the live board renders on demand, a few small queries each. A
:class:`Snapshot` answers the same questions for every page of the challenge from one read of
each table, through the same functions called without a filter (``list_claims``,
``list_logbooks``, ``verdict_cells``, ``claim_consensus``, ``paper_outcomes``,
``author_responses``, ``paper_details``, ``list_jobs``), grouped in memory. The static site
(:mod:`openrepro.board.site`) and the live board's building ahead (``built_ahead`` in
:mod:`openrepro.board.web`, through :meth:`openrepro.board.cache.PageCache.fill`) both use
it, so a page built ahead, a page built on demand and a page of the static site show the same
records (``tests/board/test_board_snapshot.py`` compares them page by page).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select

from openrepro.board import data as board_data
from openrepro.board.data import LogbookData, PaperData, ParticipantData, VerdictCell
from openrepro.challenge import ChallengeContext
from openrepro.claims.records import ClaimView
from openrepro.claims.service import list_claims
from openrepro.errors import NotFoundError, OpenReproError
from openrepro.jobs import get_job, list_jobs
from openrepro.logbooks.records import LogbookRecord
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
from openrepro.papers.service import paper_details
from openrepro.store import Logbook, Paper, Participant

__all__ = ["Snapshot"]


class Snapshot:
    """The board's per-page records for the whole challenge, as of one read (public view).

    ``stats`` and ``outcomes`` may be passed when the caller has them already (the live
    board's cached aggregates). Reading takes a few seconds at event scale (6,341 papers,
    6,816 logbooks, 33,421 verdicts), then each page's record is a dictionary look-up."""

    def __init__(
        self,
        ctx: ChallengeContext,
        *,
        stats: Stats | None = None,
        outcomes: list[PaperOutcome] | None = None,
    ) -> None:
        self.ctx = ctx
        self.stats = stats if stats is not None else compute_stats(ctx, public=True)
        self.outcomes = outcomes if outcomes is not None else paper_outcomes(ctx, public=True)
        self._outcome = {o.paper: o for o in self.outcomes}
        self._credit = {c.handle: c for c in self.stats.credit}
        cid = ctx.challenge_id
        with ctx.store.session() as session:
            self.details = paper_details(session, cid)
            claims = list_claims(session, cid)
            self.books = list_logbooks(session, cid)
            people = session.execute(
                select(Participant.id, Participant.handle, Participant.name, Participant.team,
                       Participant.role, Participant.team_confirmed)
                .where(Participant.challenge_id == cid)
                .order_by(Participant.handle)
            ).all()  # fmt: skip
        self.people = {row[1]: row for row in people}
        self._claims: dict[str, list[ClaimView]] = defaultdict(list)
        for claim in claims:
            self._claims[claim.paper_id].append(claim)
        self._consensus: dict[int, dict[str, ClaimConsensus]] = defaultdict(dict)
        for c in claim_consensus(ctx, public=True):
            self._consensus[c.paper_id][c.key] = c
        self._by_paper: dict[str, list[VerdictCell]] = defaultdict(list)
        self._by_logbook: dict[int, list[VerdictCell]] = defaultdict(list)
        self._by_person: dict[str, list[VerdictCell]] = defaultdict(list)
        for cell in board_data.verdict_cells(ctx):
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
        for answer in author_responses(ctx):
            self._responses[answer.paper].append(answer)
        self._jobs: dict[str, dict[str, Any]] = {}
        self._jobs_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for job in list_jobs(ctx):  # newest first, as list_jobs(participant=...) gives them
            shown = job.model_dump(mode="json")
            self._jobs[job.id] = shown
            if job.participant is not None:
                self._jobs_of[job.participant].append(shown)

    # -- the records of board.data, per page ---------------------------------------------------

    def paper(self, venue_id: str) -> PaperData:
        """What :func:`openrepro.board.data.paper_data` returns for ``venue_id``."""
        detail = self.details.get(venue_id)
        if detail is None:
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

    def responses(self, venue_id: str) -> list[AuthorResponseView]:
        """Author responses on a paper, as the paper page lists them."""
        return list(self._responses.get(venue_id, []))

    def logbook(self, logbook_id: int) -> LogbookData:
        """What :func:`openrepro.board.data.logbook_data` returns for ``logbook_id``."""
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
        try:  # another spelling of a job's id (``hf:<hub id>``, a bare number)
            return get_job(self.ctx, ref).model_dump(mode="json")
        except OpenReproError:
            return None

    def participant(self, handle: str) -> ParticipantData:
        """What :func:`openrepro.board.data.participant_data` returns for ``handle``."""
        row = self.people.get(handle)
        if row is None:
            raise NotFoundError(f"no participant {handle!r}")
        _pid, _, name, team, role, team_confirmed = row
        mine = self._credit.get(handle)
        return ParticipantData(
            handle=handle, name=name, team=team, role=role,
            logbooks=list(self._books_of_person.get(handle, [])),
            team_confirmed=bool(team and team_confirmed),
            verdicts=list(self._by_person.get(handle, [])),
            credit=mine.credit if mine else 0, verified=mine.verified if mine else 0,
            falsified=mine.falsified if mine else 0, jobs=list(self._jobs_of.get(handle, [])),
        )  # fmt: skip

    # -- ids, for iterating -------------------------------------------------------------------

    def venue_ids(self) -> list[str]:
        return sorted(self.details)

    def handles(self) -> list[str]:
        return list(self.people)

    def participant_id(self, handle: str) -> int:
        return int(self.people[handle][0])

    def paper_id(self, venue_id: str) -> int:
        return self._outcome[venue_id].paper_id

    def manifests(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """Every logbook's stored manifest (its record), in id order, read in batches."""
        query = (
            select(Logbook.id, Logbook.manifest)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == self.ctx.challenge_id)
            .order_by(Logbook.id)
            .execution_options(yield_per=500)
        )
        with self.ctx.store.session() as session:
            for logbook_id, manifest in session.execute(query):
                yield int(logbook_id), manifest
