"""The agents' JSON API (``/api/v1``), documented by FastAPI's OpenAPI at ``/api/docs``.

Reads are public (verdicts of papers inside their anti-herding window only for organizers);
writes need ``Authorization: Bearer <token>``. Participants act only as themselves; verdict
overrides, claim edits and freezing are for organizers. Errors are JSON:
``{"error": {"type": ..., "message": ...}}`` with a matching status code.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Query, Request, Response, UploadFile
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from openrepro import intake
from openrepro.board import data as board_data
from openrepro.board.assemble import logbook_data, paper_data
from openrepro.board.cache import AGGREGATE, Aggregates, PageCache
from openrepro.board.cursor import MAX_CURSOR_CHARS, is_page_boundary, keyset_page
from openrepro.board.guard import MAX_ROW_ID, RowId
from openrepro.board.status import participant_status
from openrepro.challenge import ChallengeContext
from openrepro.claims.drafts import mark_human
from openrepro.claims.proposals import ProposalView, list_proposals
from openrepro.claims.records import ClaimView
from openrepro.claims.service import edit_claim
from openrepro.errors import AuthError, ConfigError, LogbookError, NotFoundError
from openrepro.identity import (
    Actor,
    ParticipantView,
    Registration,
    approve,
    authenticate,
    confirm_team,
    create_invite,
    ensure_writable,
    get_participant,
    register,
    require_organizer,
    require_self_or_organizer,
    set_frozen,
)
from openrepro.intake import BoundSubmitReport, ParticipantStatus
from openrepro.judge.accept import AcceptedProposal, accept_checks
from openrepro.outcomes import OverrideResult, Stats, compute_stats, override_verdict
from openrepro.papers import MAX_QUERY_CHARS, search_terms
from openrepro.store.judge_queue import QueueStats, queue_stats
from openrepro.workspace import WorkspacePayload, workspace_payload

__all__ = ["accept_with_token", "api_router"]

_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")


class PaperList(BaseModel):
    total: int
    offset: int
    limit: int
    papers: list[board_data.PaperRow]
    next: str | None = Field(
        default=None,
        description="Cursor of the next page (pass it as `cursor`); null on the last page. "
        "It stays valid when papers are added before it.",
    )


class RegisterRequest(BaseModel):
    handle: str = Field(description="Your handle: your Hugging Face username where you have one.")
    name: str = ""
    team: str | None = None
    email: str | None = None
    role: Literal["participant", "organizer"] = "participant"
    invite: str | None = Field(default=None, description="Invite code (registration `invite`).")


class InviteRequest(BaseModel):
    uses: int = Field(default=1, ge=1, le=10_000)
    note: str = ""


class InviteResponse(BaseModel):
    code: str  # shown once; only its hash is stored


class OverrideRequest(BaseModel):
    value: Literal["verified", "falsified", "toy", "inconclusive"]
    reason: str = Field(min_length=1)


class ClaimEditRequest(BaseModel):
    reason: str = Field(min_length=1)
    text: str | None = None
    kind: str | None = None
    quotes: list[str] | None = None
    tolerance: float | None = None


class FreezeResponse(BaseModel):
    frozen_at: str


def _json(record: BaseModel) -> Response:
    return Response(_body(record), media_type="application/json")


def _body(record: BaseModel) -> bytes:
    return record.model_dump_json().encode()


#: Verdicts per page of ``GET /verdicts`` unless ``limit`` says otherwise, and at most.
PAPERS_PAGE = 100
VERDICTS_PAGE = 1000
MAX_VERDICTS_PAGE = 5000


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("use `Authorization: Bearer <token>`")
    return token.strip()


def _accept(ctx: ChallengeContext, proposal_id: int, who: Actor) -> tuple[AcceptedProposal, str]:
    require_organizer(who, "accept check proposals")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        [view] = accept_checks(session, ctx.challenge_id, proposals=[proposal_id],
                               editor=who.handle).proposals  # fmt: skip
    return view, view.claim.rpartition("/")[0]


def accept_with_token(ctx: ChallengeContext, proposal_id: int, token: str) -> str:
    """The board's accept button: ``token`` must be an organizer's; returns the paper's venue
    id (the page to go back to)."""
    return _accept(ctx, proposal_id, authenticate(ctx, token or None))[1]


def accept_draft_with_token(ctx: ChallengeContext, draft_id: int, token: str) -> str:
    """The check queue's "accept this draft" button: ``token`` must be an organizer's; returns
    the claim whose check it now is (its verdicts are judged again)."""
    who = authenticate(ctx, token or None)
    require_organizer(who, "accept drafted checks")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        [done] = accept_checks(session, ctx.challenge_id, drafts=[draft_id],
                               editor=who.handle).drafts  # fmt: skip
        return done.claim


def human_with_token(ctx: ChallengeContext, claim: str, token: str, reason: str) -> str:
    """The check queue's "mark human" button: an organizer marks ``claim`` for people to judge."""
    who = authenticate(ctx, token or None)
    require_organizer(who, "mark a claim human")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        return mark_human(session, ctx.challenge_id, claim, editor=who.handle,
                          reason=reason.strip() or "marked human from the check queue")  # fmt: skip


def api_router(ctx: ChallengeContext, cache: PageCache | None = None) -> APIRouter:
    router = APIRouter()
    data = Aggregates(ctx, cache) if cache is not None else None

    def actor(authorization: Annotated[str | None, Header()] = None) -> Actor:
        return authenticate(ctx, _bearer(authorization))

    who_dep = Depends(actor)

    @router.get("/papers", response_model=PaperList, tags=["papers"])
    async def list_papers(
        status: Annotated[
            str, Query(description="Filter: " + ", ".join(board_data.PAPER_FILTERS))
        ] = "all",
        q: Annotated[
            str,
            Query(
                max_length=MAX_QUERY_CHARS,
                description="Full-text search over title, abstract, text (words AND-ed)",
            ),
        ] = "",
        limit: Annotated[int, Query(ge=1, le=1000)] = PAPERS_PAGE,
        offset: Annotated[int, Query(ge=0, description="Skip this many (prefer `cursor`)")] = 0,
        cursor: Annotated[
            str,
            Query(max_length=MAX_CURSOR_CHARS, description="`next` of the previous page"),
        ] = "",
    ) -> Response:
        """Papers with their outcome status; filter to pick what to work on (e.g. unattempted).
        In venue-id order, paginated by cursor (``next``); a search is in relevance order."""
        if status not in board_data.PAPER_FILTERS:
            raise NotFoundError(f"unknown filter {status!r}; use one of "
                                f"{', '.join(board_data.PAPER_FILTERS)}")  # fmt: skip
        if cache is None or search_terms(q):
            rows = board_data.paper_rows(ctx, status=status, query=q)
            if offset and offset >= len(rows):
                raise ConfigError(f"offset {offset} is past the end of the list "
                                  f"({len(rows)} papers)")  # fmt: skip
            return _json(PaperList(total=len(rows), offset=offset, limit=limit,
                                   papers=rows[offset : offset + limit]))  # fmt: skip
        build = listing(status, limit, offset, cursor)
        if not await run_in_threadpool(canonical, status, limit, offset, cursor):
            # answered, not kept: crafted cursors and limit/offset pairs never fill the cache
            return Response(await run_in_threadpool(build, set()), media_type="application/json")
        key = f"api:papers?{status}&{cursor}"
        found = cache.peek(key)  # a fresh cached answer: no query, no serialisation
        if found is None:
            found = await run_in_threadpool(cache.value, key, build)
        return Response(found, media_type="application/json")

    def canonical(status: str, limit: int, offset: int, cursor: str) -> bool:
        """The URLs worth a cache entry: the default page size, no offset, and no cursor or one
        that names a row of the list (the ones the board hands out); about one entry per row
        at most, whatever a client sends."""
        if limit != PAPERS_PAGE or offset:
            return False
        assert data is not None
        return not cursor or is_page_boundary("papers", data.paper_keys(status), cursor)

    def listing(status: str, limit: int, offset: int, cursor: str) -> Callable[[set[str]], bytes]:
        def build(tags: set[str]) -> bytes:
            tags.add(AGGREGATE)
            assert data is not None
            rows = data.paper_rows(status)
            page = keyset_page("papers", data.paper_keys(status), cursor or None, limit, offset)
            return _body(PaperList(
                total=len(rows), offset=page.start, limit=limit,
                papers=rows[page.start : page.end], next=page.next,
            ))  # fmt: skip

        return build

    @router.get("/papers/{venue_id:path}/workspace", response_model=WorkspacePayload,
                tags=["papers"])  # fmt: skip
    def paper_workspace(venue_id: str) -> WorkspacePayload:
        """Everything `openrepro pull --server URL` writes: paper, full text, active claims."""
        return workspace_payload(ctx, venue_id)

    @router.get("/papers/{venue_id:path}", tags=["papers"])
    def paper(venue_id: str, who: Actor = who_dep) -> dict[str, Any]:
        """A paper with its claims, their consensus, its outcome record (verified claims per
        provenance level, and those verified only below ``min_provenance_verified``, not
        counted), its logbooks and current verdicts."""
        found = paper_data(ctx, venue_id, recheck=data.recheck() if data is not None else None)
        verdicts = [v.model_dump(mode="json") for c in found.cells.values() for v in c.values()]
        if who.is_organizer and not verdicts:
            paper_id = board_data.paper_row_id(ctx, venue_id)
            cells = board_data.verdict_cells(ctx, paper_id=paper_id, public=False)
            verdicts = [v.model_dump(mode="json") for v in cells]
        return {
            "paper": found.paper.model_dump(mode="json"),
            "outcome": found.outcome.status,
            "claims": [c.model_dump(mode="json") for c in found.claims],
            "consensus": {k: v.consensus for k, v in found.consensus.items()},
            # how strong each verified is: the paper's outcome record (with its verified claims
            # per provenance level and those verified only below the minimum, not counted)
            "outcome_record": found.outcome.model_dump(mode="json"),
            "min_provenance_verified": ctx.settings.min_provenance_verified,
            "levels": {
                k: {"level": v.level, "below_minimum": v.below_minimum}
                for k, v in found.consensus.items()
                if v.level or v.below_minimum
            },
            "logbooks": [b.model_dump(mode="json") for b in found.logbooks],
            "verdicts": verdicts,
        }

    @router.post("/participants", response_model=Registration, status_code=201,
                 tags=["participants"])  # fmt: skip
    def register_participant(body: RegisterRequest, who: Actor = who_dep) -> Registration:
        """Register a handle and get an API token (shown once; only its hash is stored)."""
        return register(ctx, body.handle, role=body.role, name=body.name, team=body.team,
                        email=body.email, actor=who, invite=body.invite)  # fmt: skip

    @router.post("/participants/{handle}/approve", response_model=ParticipantView,
                 tags=["organizers"])  # fmt: skip
    def approve_participant(handle: str, who: Actor = who_dep) -> ParticipantView:
        """Organizers: approve a pending registration (registration `approval`)."""
        return approve(ctx, handle, actor=who)

    @router.post("/participants/{handle}/confirm-team", response_model=ParticipantView,
                 tags=["participants"])  # fmt: skip
    def confirm_team_member(handle: str, who: Actor = who_dep) -> ParticipantView:
        """Confirm a participant's membership of the team they named: a confirmed member of
        that team or an organizer. Until then they count alone in consensus."""
        return confirm_team(ctx, handle, actor=who)

    @router.post("/invites", response_model=InviteResponse, status_code=201, tags=["organizers"])
    def invite(body: InviteRequest, who: Actor = who_dep) -> InviteResponse:
        """Organizers: a new invite code (registration `invite`), shown once."""
        return InviteResponse(code=create_invite(ctx, uses=body.uses, note=body.note, actor=who))

    @router.get("/participants/{handle}", response_model=ParticipantView, tags=["participants"])
    def participant(handle: str) -> ParticipantView:
        return get_participant(ctx, handle)

    @router.get("/me", response_model=Actor, tags=["participants"])
    def me(who: Actor = who_dep) -> Actor:
        """Who the token belongs to."""
        return who

    @router.get("/me/logbooks", response_model=ParticipantStatus, tags=["participants"])
    def my_logbooks(who: Actor = who_dep) -> ParticipantStatus:
        """The token's participant's newest logbook per paper, with each claim's current
        verdict, the rule it was decided by, its bindings and its re-check state (what
        ``openrepro status`` prints)."""
        if who.role == "anonymous":
            raise AuthError("an API token is required (`Authorization: Bearer <token>`)")
        return participant_status(ctx, who.handle)

    @router.post("/logbooks", response_model=BoundSubmitReport, status_code=201,
                 tags=["logbooks"])  # fmt: skip
    def submit(
        who: Actor = who_dep,
        file: Annotated[UploadFile | None, File(description="Logbook archive")] = None,
        space: Annotated[str | None, Form(description="A published logbook Space")] = None,
        as_handle: Annotated[str | None, Form(alias="as", description="Organizers only")] = None,
        paper: Annotated[
            str | None, Form(description="The paper's venue id, when the logbook does not name it")
        ] = None,
    ) -> BoundSubmitReport:
        """Submit a logbook: an archive (.tar.gz, .tgz, .tar, .zip) of a Trackio logbook or an
        openrepro bundle, or ``space=owner/name`` for a published logbook Space. The answer is
        ``openrepro submit``'s report: evidence, testimony, how each claim's quantities bind
        (the same service function) and the logbook's place in the judge queue. A participant
        with ``queue_max_per_participant`` claims waiting is answered 429."""
        handle = as_handle or who.handle
        require_self_or_organizer(who, handle)
        ensure_writable(ctx)
        if (file is None) == (space is None):
            raise ConfigError("send exactly one of `file` (an archive) or `space`")
        if space is not None:
            return intake.submit(ctx, f"space:{space.removeprefix('space:')}", handle,
                                 paper=paper)  # fmt: skip
        assert file is not None
        name = Path(file.filename or "logbook.tar.gz").name
        if len(name) > 200 or any(ord(c) < 32 for c in name):
            raise LogbookError(f"{name[:60]!r}...: an archive's name has at most 200 printable "
                               "characters")  # fmt: skip
        if not name.lower().endswith(_ARCHIVE_SUFFIXES):
            raise LogbookError(f"{name}: not an archive ({', '.join(_ARCHIVE_SUFFIXES)})")
        limit = ctx.settings.archive_max_bytes
        with tempfile.TemporaryDirectory(prefix="openrepro-upload-") as tmp:
            target = Path(tmp) / name
            with target.open("wb") as out:
                copied = 0
                while chunk := file.file.read(1 << 20):
                    copied += len(chunk)
                    if copied > limit:
                        raise LogbookError(f"{name}: larger than {limit} bytes")
                    out.write(chunk)
            return intake.submit(ctx, target, handle, paper=paper)

    @router.get("/logbooks/{logbook_id}", tags=["logbooks"])
    def logbook(logbook_id: RowId) -> dict[str, Any]:
        found = logbook_data(ctx, logbook_id, recheck=data.recheck() if data is not None else None)
        return found.model_dump(mode="json")

    @router.get("/verdicts", response_model=list[board_data.VerdictCell], tags=["verdicts"])
    def verdicts(
        request: Request,
        response: Response,
        who: Actor = who_dep,
        paper: str | None = None,
        participant: str | None = None,
        logbook: Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_VERDICTS_PAGE)] = VERDICTS_PAGE,
        cursor: Annotated[
            str,
            Query(max_length=MAX_CURSOR_CHARS, description="From the `Link` header's next URL"),
        ] = "",
    ) -> list[board_data.VerdictCell]:
        """Current verdicts (with evidence pointers, flags, provenance and edits), by paper,
        claim and participant, ``limit`` at a time: when more follow, the ``Link`` header
        gives the next page's URL (``rel="next"``, a cursor that stays valid as verdicts are
        added)."""
        paper_id = board_data.paper_row_id(ctx, paper) if paper else None
        person = get_participant(ctx, participant).id if participant else None
        public = not who.is_organizer
        if data is not None and public and paper_id is None and person is None and logbook is None:
            cells, keys = data.verdicts()  # the whole challenge's, cached like the paper list
        else:
            cells = sorted(board_data.verdict_cells(ctx, paper_id=paper_id, participant_id=person,
                                                    logbook_id=logbook, public=public),
                           key=board_data.verdict_key)  # fmt: skip
            keys = [board_data.verdict_key(c) for c in cells]
        page = keyset_page("verdicts", keys, cursor or None, limit)
        if page.next:
            following = request.url.include_query_params(cursor=page.next)
            response.headers["Link"] = f'<{following}>; rel="next"'
        return cells[page.start : page.end]

    @router.post("/verdicts/{verdict_id}/override", response_model=OverrideResult,
                 tags=["organizers"])  # fmt: skip
    def override(verdict_id: RowId, body: OverrideRequest, who: Actor = who_dep) -> OverrideResult:
        """Organizers: set a verdict's value with a reason (the judge's value is kept)."""
        return override_verdict(ctx, verdict_id, body.value, reason=body.reason, actor=who)

    @router.post("/claims/{claim_id:path}/edit", response_model=ClaimView, tags=["organizers"])
    def claim_edit(claim_id: str, body: ClaimEditRequest, who: Actor = who_dep) -> ClaimView:
        """Organizers: edit a claim (``<venue id>/<key>``); every change leaves an edit."""
        require_organizer(who, "edit claims")
        with ctx.store.session() as session:
            ensure_writable(ctx, session)
            return edit_claim(session, ctx.challenge_id, claim_id, editor=who.handle,
                              reason=body.reason, text=body.text, kind=body.kind,
                              quotes=body.quotes, tolerance=body.tolerance,
                              drafting=ctx.settings.check_drafting)  # fmt: skip

    @router.get("/claims/{claim_id:path}/proposals", response_model=list[ProposalView],
                tags=["claims"])  # fmt: skip
    def claim_proposals(claim_id: str) -> list[ProposalView]:
        """The checks participants proposed for a claim (``<venue id>/<key>``), with their
        status: proposed, confirmed (the claim's check, unless an organizer's stands)."""
        with ctx.store.session() as session:
            return list_proposals(session, ctx.challenge_id, claim=claim_id)

    @router.post("/proposals/{proposal_id}/accept", response_model=AcceptedProposal,
                 tags=["organizers"])  # fmt: skip
    def accept_check_proposal(proposal_id: RowId, who: Actor = who_dep) -> AcceptedProposal:
        """Organizers: confirm a participant's proposed check; it becomes the claim's check
        (kept in its history) and the judge workers decide the claim again under it: ``stale``
        lists the verdicts it made stale, the ones they judge again."""
        return _accept(ctx, proposal_id, who)[0]

    @router.post("/freeze", response_model=FreezeResponse, tags=["organizers"])
    def freeze(who: Actor = who_dep) -> FreezeResponse:
        """Organizers: make the challenge read-only (export it with `openrepro freeze OUT`)."""
        return FreezeResponse(frozen_at=set_frozen(ctx, actor=who).isoformat())

    @router.get("/queue", response_model=QueueStats, tags=["organizers"])
    def judge_queue(who: Actor = who_dep) -> QueueStats:
        """Organizers: the judge queue: items queued and being judged, the oldest waiting,
        throughput over the last minutes and the latest failures with their reasons (what
        ``openrepro status --queue`` prints)."""
        require_organizer(who, "see the judge queue")
        with ctx.store.session() as session:
            return queue_stats(session, ctx.challenge_id)

    @router.get("/stats", response_model=Stats, tags=["outcomes"])
    def stats(who: Actor = who_dep) -> Stats:
        """The outcome table, totals, consensus counts and per-participant credit."""
        return compute_stats(ctx, public=not who.is_organizer)

    return router
