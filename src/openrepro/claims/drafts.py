"""Checks at event scale: a model drafts every claim's check, independent drafters confirm each
other, organizers resolve only the disagreements.

**Bulk drafting** (:func:`draft_all`, ``openrepro claims check draft --all``): every active
claim without a trusted check (:data:`~openrepro.claims.checks.TRUSTED_ORIGINS`) is drafted by
each configured model through the model path of
:func:`~openrepro.claims.checks.llm_draft.draft_check_llm` (the constrained schema, validated,
grounded and audited by code), calls in flight at once up to the client's concurrency (several
endpoints with ``llm_urls``), replies cached in the store. Each result is stored as it arrives,
one short transaction per claim, as a :class:`~openrepro.store.tables_checks.CheckDraft` (the
model's name, family and prompt version, its tokens and seconds; or why it drafted none): an
interrupted run resumes where it stopped (a claim already drafted by that model under that
prompt is not asked again). A claim with no check gets the draft as its **drafted** check
(origin ``llm``): verdicts under it are provisional (shown, counted nowhere), like a
participant's own unconfirmed proposal.

**Confirmation by agreement**: a draft becomes the claim's check (origin ``confirmed``) when an
independent drafter drafts an equivalent check (:func:`~openrepro.claims.proposals.
equivalence_form`, by role, never by position): a participant of a confirmed team whose
proposal matches it (:func:`agree_with_drafts`), or a model of another family
(:func:`model_family`; a panel of two endpoints). Two confirmed teams' proposals confirm each
other in :mod:`openrepro.claims.proposals`. The earliest of the agreeing drafts is installed,
with who agreed in its note and in the drafts' ``confirmed_by``; a check an organizer set or
accepted, or one already confirmed, is never replaced by agreement.

**The organizer's queue** (:func:`organizer_queue`): the claims whose drafts disagree or that
nobody drafted, with every draft in words (and its tolerances); :func:`accept_draft`,
:func:`~openrepro.claims.proposals.accept_proposal`, ``claims check set`` and
:func:`mark_human` resolve one. Each returns the claims whose verdicts must be judged again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.claims.checks import (
    Check,
    Draft,
    Origin,
    Relation,
    draft_check_llm,
)
from openrepro.claims.checks.llm_draft import PROMPT_VERSION
from openrepro.claims.proposals import (
    accept_proposal,
    agree_with_drafts,
    agreeing_proposal,
    confirm_agreement,
    confirmed_team,
    equivalence_form,
    trusted,
)
from openrepro.claims.service import get_claim, set_check
from openrepro.errors import CheckError, ClaimError, LLMError, NotFoundError
from openrepro.identity.service import check_not_frozen
from openrepro.llm import LLMClient, Usage
from openrepro.store import Claim, Paper, Participant, Store
from openrepro.store.tables_checks import CheckDraft, CheckProposal

__all__ = [
    "DraftOutcome",
    "DraftReport",
    "QueueDraft",
    "QueueItem",
    "accept_draft",
    "accept_from_queue",
    "agree_with_drafts",
    "draft_all",
    "drafter_name",
    "mark_human",
    "model_family",
    "organizer_queue",
    "pending_claims",
    "store_draft",
]

_BATCH = 5000


class DraftOutcome(BaseModel):
    """What one drafter made of one claim."""

    claim: str
    drafter: str
    status: Literal["drafted", "none", "confirmed"]
    draft_id: int | None = None
    check: str = ""  # the check in words
    reason: str = ""
    confirmed_by: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False


class DraftReport(BaseModel):
    """A bulk drafting run: per claim and drafter, and the totals (tokens and seconds per
    claim are the figures docs/scale.md extrapolates from)."""

    outcomes: list[DraftOutcome] = Field(default_factory=list)
    pending: int = 0  # (claim, drafter) pairs there were to draft when the run began
    drafted: int = 0
    none: int = 0
    confirmed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # wall-clock seconds of the run
    model_seconds: float = 0.0  # seconds spent in model calls, summed over claims
    #: claims an endpoint failed on ("<claim> (<drafter>): <error>"): nothing stored for them,
    #: a later run asks again
    failed: list[str] = Field(default_factory=list)

    def add(self, outcome: DraftOutcome) -> None:
        self.outcomes.append(outcome)
        if outcome.status == "none":
            self.none += 1
        else:
            self.drafted += 1
        self.confirmed += outcome.status == "confirmed"
        self.prompt_tokens += outcome.prompt_tokens
        self.completion_tokens += outcome.completion_tokens
        self.model_seconds = round(self.model_seconds + outcome.seconds, 4)


def model_family(model: str) -> str:
    """The family of a model by its name: the leading letters of its last path part
    (``Qwen/Qwen2.5-7B-Instruct`` -> ``qwen``, ``meta-llama/Llama-3.1-8B`` -> ``llama``,
    ``gpt-4o`` -> ``gpt``). Two drafts of one family are not independent."""
    last = model.strip().lower().rsplit("/", 1)[-1]
    match = re.match(r"[a-z]+", last)
    return match.group(0) if match else last or "model"


def drafter_name(client: LLMClient) -> str:
    """``model:<name>`` of the model behind ``client`` (its backend's name when unnamed)."""
    return f"model:{client.backend.model or client.backend.name}"


def _quotes(claim: Claim) -> str:
    return " … ".join(q["text"] for q in claim.quotes)


def pending_claims(
    session: Session,
    challenge_id: int,
    drafter: str,
    *,
    prompt_version: str = PROMPT_VERSION,
    papers: Sequence[str] | None = None,
) -> list[tuple[int, str, str]]:
    """(claim row id, claim id, its quotes) of every active claim without a trusted check that
    ``drafter`` has not drafted under ``prompt_version`` yet, in paper and key order."""
    query = (
        select(Claim, Paper.venue_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == challenge_id, Claim.status == "active")
        .order_by(Paper.id, Claim.id)
    )
    if papers is not None:
        query = query.where(Paper.venue_id.in_(list(papers)))
    done = set(
        session.scalars(
            select(CheckDraft.claim_id).where(
                CheckDraft.drafter == drafter, CheckDraft.prompt_version == prompt_version
            )
        )
    )
    return [
        (claim.id, f"{venue}/{claim.key}", _quotes(claim))
        for claim, venue in session.execute(query).all()
        if claim.id not in done and not trusted(claim)
    ]


def store_draft(
    session: Session,
    challenge_id: int,
    claim_ref: str,
    drafter: str,
    draft: Draft,
    *,
    prompt_version: str = PROMPT_VERSION,
    usage: Usage | None = None,
    editor: str = "drafter",
) -> DraftOutcome:
    """Store ``drafter``'s ``draft`` for one claim: the claim's drafted check when it has none,
    confirmed (and installed) where an independent drafter agrees."""
    check_not_frozen(session, challenge_id)
    claim, paper = get_claim(session, challenge_id, claim_ref)
    used = usage or Usage()
    check = draft.check.for_claim(claim_ref) if draft.check is not None else None
    row = CheckDraft(
        claim_id=claim.id, drafter=drafter[:200], family=model_family(drafter.split(":", 1)[-1]),
        prompt_version=prompt_version, reason=draft.reason[:500],
        check=check.model_dump(mode="json") if check is not None else None,
        form=equivalence_form(check) if check is not None else "",
        status="drafted" if check is not None else "none",
        prompt_tokens=used.prompt_tokens, completion_tokens=used.completion_tokens,
        seconds=round(used.seconds, 4),
    )  # fmt: skip
    session.add(row)
    session.flush()
    outcome = DraftOutcome(
        claim=claim_ref, drafter=row.drafter, status="none" if check is None else "drafted",
        draft_id=row.id, check=check.describe() if check is not None else "",
        reason=row.reason, prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens, seconds=row.seconds, cached=used.cached > 0,
    )  # fmt: skip
    if check is None or trusted(claim):
        return outcome
    if claim.check is None:  # the claim's drafted check: provisional until someone agrees
        set_check(session, challenge_id, claim_ref, check, editor=editor,
                  reason=f"drafted by {row.drafter} ({prompt_version})",
                  origin=Origin.llm)  # fmt: skip
    twin = session.scalars(
        select(CheckDraft)
        .where(
            CheckDraft.claim_id == claim.id,
            CheckDraft.form == row.form,
            CheckDraft.id != row.id,
            CheckDraft.status.in_(("drafted", "confirmed")),
            CheckDraft.family != row.family,
        )
        .order_by(CheckDraft.id)
    ).first()
    if twin is not None:
        outcome.confirmed_by = confirm_agreement(session, challenge_id, claim, paper, draft=row,
                                             other=twin, who="", editor=editor)  # fmt: skip
    else:
        found = agreeing_proposal(session, claim.id, row.form)
        if found is not None:
            proposal, person = found
            who = f"{person.handle}, team {person.team}"
            outcome.confirmed_by = confirm_agreement(session, challenge_id, claim, paper, draft=row,
                                                 other=proposal, who=who,
                                                 editor=editor)  # fmt: skip
    if outcome.confirmed_by:
        outcome.status = "confirmed"
    session.flush()
    return outcome


Drafted = tuple[str, Draft | None, Usage, str]


def _ask(client: LLMClient, claim_id: int, name: str, quotes: str) -> Drafted:
    """One claim drafted by the model behind ``client``, with what it cost (a client of its own
    that shares the backend and the store's reply cache accounts this claim's usage alone);
    an endpoint that fails (unreachable, refusing) is the error's text and no draft."""
    own = LLMClient(client.backend, store=client.store, max_tokens=client.max_tokens,
                    seed=client.seed)  # fmt: skip
    started = time.perf_counter()
    try:
        draft: Draft | None = draft_check_llm(quotes, own, claim_id=name)
        error = ""
    except LLMError as exc:  # not a reply: nothing is stored, a later run asks again
        draft, error = None, str(exc)
    usage = own.usage.model_copy()
    if usage.calls and not usage.seconds:
        usage.seconds = round(time.perf_counter() - started, 6)
    client._account(own.usage)  # the caller's totals, as one client would have counted
    return name, draft, usage, error


def draft_all(
    store: Store,
    challenge_id: int,
    clients: Sequence[LLMClient],
    *,
    papers: Sequence[str] | None = None,
    editor: str = "drafter",
    limit: int = 0,
    progress: Callable[[DraftOutcome], None] | None = None,
    on_pending: Callable[[int], None] | None = None,
) -> DraftReport:
    """Draft every claim without a trusted check (of ``papers``, else of the challenge) with
    each model of ``clients`` (a panel: one client per endpoint and model), storing each draft
    as it arrives (:func:`store_draft`); ``limit`` caps the claims per model (0: all)."""
    report = DraftReport()
    started = time.perf_counter()
    work: list[tuple[LLMClient, str, list[tuple[int, str, str]]]] = []
    with store.session() as session:
        for client in clients:
            name = drafter_name(client)
            todo = pending_claims(session, challenge_id, name, papers=papers)
            work.append((client, name, todo[:limit] if limit else todo))
    report.pending = sum(len(todo) for _, _, todo in work)
    if on_pending is not None:
        on_pending(report.pending)
    for client, name, todo in work:
        workers = max(1, client.concurrency)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="draft") as pool:
            queue = iter(todo)
            inflight: set[Future[Drafted]] = set()
            while True:
                while len(inflight) < workers:
                    item = next(queue, None)
                    if item is None:
                        break
                    inflight.add(pool.submit(_ask, client, *item))
                if not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for future in done:
                    inflight.discard(future)
                    claim_ref, draft, usage, error = future.result()
                    if draft is None:
                        report.failed.append(f"{claim_ref} ({name}): {error}")
                        continue
                    try:
                        with store.session() as session:
                            outcome = store_draft(session, challenge_id, claim_ref, name, draft,
                                                  usage=usage, editor=editor)  # fmt: skip
                    except (CheckError, ClaimError, NotFoundError) as exc:
                        # the claim changed under the run (removed, frozen, its quotes edited):
                        # nothing stored for it, the run goes on
                        report.failed.append(f"{claim_ref} ({name}): {exc}")
                        continue
                    report.add(outcome)
                    if progress is not None:
                        progress(outcome)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- the organizer's queue ---------------------------------------------------------------


class QueueDraft(BaseModel):
    """One draft of a claim in the queue: a model's (``draft``) or a participant's
    (``proposal``), in words with every tolerance."""

    source: Literal["draft", "proposal"]
    id: int
    by: str  # "model:<name>" or "<handle> (team <team>)"
    status: str
    description: str
    check: Check


class QueueItem(BaseModel):
    """A claim the organizers resolve: its drafts disagree, or nobody drafted a check."""

    claim: str
    text: str
    quotes: str
    reason: str
    current: str = ""  # the claim's check now, in words ("" for none)
    current_origin: str = ""
    drafts: list[QueueDraft] = Field(default_factory=list)
    #: drafters that drafted no check, and why ("model:x: the model finds no check: ...")
    abstained: list[str] = Field(default_factory=list)


def organizer_queue(
    session: Session, challenge_id: int, *, paper: str | None = None
) -> list[QueueItem]:
    """Every active claim without a trusted check whose drafts (the models' and the
    participants' open proposals) disagree, or that has no check and no draft at all."""
    query = (
        select(Claim, Paper.venue_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == challenge_id, Claim.status == "active")
        .order_by(Paper.id, Claim.id)
    )
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    claims = [(c, v) for c, v in session.execute(query).all() if not trusted(c)]
    ids = [c.id for c, _ in claims]
    drafts: dict[int, list[CheckDraft]] = {}
    proposals: dict[int, list[tuple[CheckProposal, Participant]]] = {}
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start : start + _BATCH]
        for d in session.scalars(
            select(CheckDraft).where(CheckDraft.claim_id.in_(chunk)).order_by(CheckDraft.id)
        ):
            drafts.setdefault(d.claim_id, []).append(d)
        for p, person in session.execute(
            select(CheckProposal, Participant)
            .join(Participant, Participant.id == CheckProposal.participant_id)
            .where(CheckProposal.claim_id.in_(chunk), CheckProposal.status == "proposed")
            .order_by(CheckProposal.id)
        ).all():
            proposals.setdefault(p.claim_id, []).append((p, person))
    out: list[QueueItem] = []
    for claim, venue in claims:
        shown: list[QueueDraft] = []
        forms: set[str] = set()
        for d in drafts.get(claim.id, []):
            if d.check is not None:
                check = Check.from_json(d.check)
                forms.add(d.form)
                shown.append(QueueDraft(source="draft", id=d.id, by=d.drafter, status=d.status,
                                        description=check.describe(), check=check))  # fmt: skip
        for p, person in proposals.get(claim.id, []):
            check = Check.from_json(p.check)
            forms.add(p.form)
            team = confirmed_team(person)
            by = person.handle + (f" (team {team})" if team else "")
            shown.append(QueueDraft(source="proposal", id=p.id, by=by, status=p.status,
                                    description=check.describe(), check=check))  # fmt: skip
        if len(forms) >= 2:
            reason = f"{len(forms)} drafts disagree"
        elif not forms and claim.check is None:
            reason = "nobody drafted a check"
        else:
            continue
        current = Check.from_json(claim.check) if claim.check else None
        out.append(QueueItem(
            claim=f"{venue}/{claim.key}", text=claim.text, quotes=_quotes(claim), reason=reason,
            current=current.describe() if current is not None else "",
            current_origin=current.origin.value if current is not None else "",
            drafts=shown,
            abstained=[f"{d.drafter}: {d.reason}" for d in drafts.get(claim.id, [])
                       if d.check is None],
        ))  # fmt: skip
    return out


def accept_draft(session: Session, challenge_id: int, draft_id: int, *, editor: str) -> str:
    """An organizer accepts a model's draft: it becomes its claim's check (origin
    ``organizer``, noted "accepted by organizer X (draft N by M)"), replacing any earlier one
    (kept in the claim's history). Returns the claim id whose verdicts are to be judged
    again."""
    check_not_frozen(session, challenge_id)
    found = session.execute(
        select(CheckDraft, Claim, Paper)
        .join(Claim, Claim.id == CheckDraft.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(CheckDraft.id == draft_id, Paper.challenge_id == challenge_id)
    ).first()
    if found is None:
        raise NotFoundError(f"no check draft {draft_id}")
    row, claim, paper = found
    if row.check is None:
        raise CheckError(f"draft {draft_id} holds no check ({row.reason})")
    name = f"{paper.venue_id}/{claim.key}"
    accepted = Check.from_json(row.check).model_copy(
        update={"note": f"accepted by organizer {editor} (draft {row.id} by {row.drafter})"}
    )
    row.status, row.confirmed_by = "confirmed", f"organizer:{editor}"
    row.confirmed_at = datetime.now(UTC)
    if claim.check != accepted.model_dump(mode="json"):
        set_check(session, challenge_id, name, accepted, editor=editor,
                  reason=f"draft {row.id} accepted (organizer:{editor})",
                  origin=Origin.organizer)  # fmt: skip
    session.flush()
    return name


def accept_from_queue(
    session: Session, challenge_id: int, source: Literal["draft", "proposal"], item_id: int,
    *, editor: str,
) -> str:  # fmt: skip
    """Accept one draft (``draft``) or one participant's proposal (``proposal``) of the queue;
    returns the claim id whose verdicts are to be judged again."""
    if source == "draft":
        return accept_draft(session, challenge_id, item_id, editor=editor)
    return accept_proposal(session, challenge_id, item_id, editor=editor).claim


def mark_human(
    session: Session, challenge_id: int, claim_id: str, *, editor: str, reason: str,
    question: str = "",
) -> str:  # fmt: skip
    """An organizer marks a claim ``human``: only people judge it (review tasks); returns the
    claim id whose verdicts are to be judged again."""
    data: dict[str, object] = {"relation": Relation.human.value, "rule": "organizer"}
    if question.strip():
        data["human"] = {"question": question.strip()}
    set_check(session, challenge_id, claim_id, Check.model_validate(data), editor=editor,
              reason=reason or "marked human from the queue")  # fmt: skip
    return claim_id
