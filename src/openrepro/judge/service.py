"""Running the judge over stored logbooks and recording verdicts.

Verdicts are idempotent per (logbook revision, claim, judge config): a logbook's verdicts are
written in one transaction once all its claims are judged, and a re-run skips claims that
already have a verdict under the same config, so an interrupted run resumes where it stopped.

Provenance: before judging a logbook, the runs it ties to compute jobs are attested
(:func:`openrepro.provenance.attest_logbook`, once), and the stored replays and attestations
give each run its level (:func:`openrepro.provenance.stored_levels`). A verdict stored before a
newer replay or attestation of its logbook is judged again and updated in place (unless an
organizer edited it), so it records the new level.

Checks: each claim is judged under its effective check for the logbook's participant
(:func:`openrepro.claims.proposals.effective_check`: an organizer's or a confirmed check, else
the participant's own proposal, provisional, else the drafted one). A verdict records the digest
of that check (revision and origin included); a verdict whose check has changed since (``claims
check set``, an accepted proposal, a new proposal) is stale and judged again in place.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from openrepro.challenge import ChallengeContext
from openrepro.claims.proposals import check_digest, effective_check, open_proposals
from openrepro.claims.service import claim_view
from openrepro.errors import LLMError, LogbookError, NotFoundError, StoreError
from openrepro.evidence.checks import stored_levels
from openrepro.evidence.reviews import answered_since, newest_answers, stored_reviews
from openrepro.identity.service import ensure_writable
from openrepro.judge.engine import (
    JUDGE_VERSION,
    PROMPT_VERSION,
    judge_claim,
    judge_config,
    judge_error_claim,
    unreadable_claim,
)
from openrepro.llm import LLMClient, Usage
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.logbooks.service import locator
from openrepro.provenance.attest import attest_if_cited
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit
from openrepro.store.tables_provenance import Replay

_log = logging.getLogger(__name__)

__all__ = [
    "JudgeReport",
    "VerdictRow",
    "judge_logbook",
    "judge_logbooks",
    "judge_targets",
    "judged_already",
    "panel_model",
]


class VerdictRow(BaseModel):
    logbook_id: int
    claim_id: str
    participant: str
    verdict: str
    rule: str
    path: Literal["deterministic", "llm", "none"]
    flags: list[str]
    rationale: str
    provenance: str = "testimony"
    skipped: bool = False  # a verdict under this config existed already


class JudgeReport(BaseModel):
    judge_config: str
    verdicts: list[VerdictRow] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0

    @property
    def judged(self) -> int:
        return sum(not v.skipped for v in self.verdicts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_errors(self) -> int:
        """Claims on which the judge's own code failed this run (flag ``judge_error``)."""
        return sum(not v.skipped and "judge_error" in v.flags for v in self.verdicts)


def judge_targets(
    ctx: ChallengeContext, logbook_ids: list[int] | None, paper: str | None
) -> list[int]:
    """The logbooks to judge: the given ids (NotFoundError for one not in this challenge), else
    the newest revision of each participant's logbook (of one paper, by venue id)."""
    with ctx.store.session() as session:
        if logbook_ids:
            found = set(
                session.scalars(
                    select(Logbook.id)
                    .join(Paper, Paper.id == Logbook.paper_id)
                    .where(Paper.challenge_id == ctx.challenge_id, Logbook.id.in_(logbook_ids))
                )
            )
            missing = sorted(set(logbook_ids) - found)
            if missing:
                raise NotFoundError(f"no logbook {', '.join(map(str, missing))}")
            return sorted(found)
        return latest_logbook_ids(session, ctx.challenge_id, paper=paper)


_BATCH = 5000


def judged_already(
    ctx: ChallengeContext, logbook_ids: Sequence[int], config: str
) -> dict[int, list[VerdictRow]]:
    """Of ``logbook_ids``, those with nothing left to judge under ``config``, with the skipped
    rows a report lists for them: every active claim of the paper has a verdict under
    ``config`` that no later replay or attestation made stale. One query for all of them (a
    resumed ``judge --all`` finds its remaining work without opening each logbook; batches of
    :data:`_BATCH` logbooks)."""
    if not logbook_ids:
        return {}
    wanted = list(logbook_ids)
    newest_replay = (
        select(Replay.logbook_id, func.max(Replay.created_at).label("at"))
        .group_by(Replay.logbook_id)
        .subquery()
    )
    edited = select(VerdictEdit.verdict_id)
    rows: list[Any] = []
    with ctx.store.session() as session:
        for start in range(0, len(wanted), _BATCH):  # bounded IN lists (SQLite's variable cap)
            batch = wanted[start : start + _BATCH]
            rows += session.execute(
                select(
                    Logbook.id,
                    Paper.venue_id,
                    Claim.key,
                    Participant.handle,
                    Verdict.id,
                    Verdict.created_at,
                    newest_replay.c.at,
                    Verdict.id.in_(edited),
                    Claim.id,
                    Logbook.participant_id,
                    Verdict.check_digest,
                )
                .join(Paper, Paper.id == Logbook.paper_id)
                .join(Participant, Participant.id == Logbook.participant_id)
                .join(Claim, (Claim.paper_id == Paper.id) & (Claim.status == "active"))
                .outerjoin(
                    Verdict,
                    (Verdict.logbook_id == Logbook.id)
                    & (Verdict.claim_id == Claim.id)
                    & (Verdict.judge_config == config),
                )
                .outerjoin(newest_replay, newest_replay.c.logbook_id == Logbook.id)
                .where(Paper.challenge_id == ctx.challenge_id, Logbook.id.in_(batch))
                .order_by(Logbook.id, Claim.id)
            ).all()
    digests = _check_digests(ctx, {(r[8], r[9]) for r in rows})
    done: dict[int, list[VerdictRow]] = {}
    pending: set[int] = set()
    seen: set[tuple[int, str]] = set()
    for (book, venue, key, handle, verdict, created, replayed, was_edited, claim_id, person,
         digest) in rows:  # fmt: skip
        stale = (
            verdict is not None
            and replayed is not None
            and not was_edited
            and _naive_utc(created) < _naive_utc(replayed)
        ) or (verdict is not None and digest != digests[(claim_id, person)])
        if verdict is None or stale:
            pending.add(book)
            continue
        if (book, key) in seen:  # two verdicts under one config: report the claim once
            continue
        seen.add((book, key))
        done.setdefault(book, []).append(
            VerdictRow(logbook_id=book, claim_id=f"{venue}/{key}", participant=handle,
                       verdict="", rule="", path="none", flags=[], rationale="", skipped=True)
        )  # fmt: skip
    return {book: got for book, got in done.items() if book not in pending}


def _check_digests(
    ctx: ChallengeContext, pairs: set[tuple[int, int]]
) -> dict[tuple[int, int], str]:
    """(claim id, participant id) -> the digest of the check that judges that claim in that
    participant's logbooks now (:func:`openrepro.claims.proposals.check_digest`)."""
    claim_ids = {c for c, _ in pairs}
    out: dict[tuple[int, int], str] = {}
    with ctx.store.session() as session:
        claims = {
            c.id: c
            for start in range(0, len(claim_ids), _BATCH)
            for c in session.scalars(
                select(Claim).where(Claim.id.in_(sorted(claim_ids)[start : start + _BATCH]))
            )
        }
        own = open_proposals(session, claim_ids, {p for _, p in pairs})
        shared: dict[int, str] = {}  # the claim's digest for everyone without a proposal
        for claim_id, person in pairs:
            mine = own.get((claim_id, person))
            if mine is None and claim_id in shared:
                out[(claim_id, person)] = shared[claim_id]
                continue
            check, provisional = effective_check(claims[claim_id], mine)
            out[(claim_id, person)] = check_digest(check, provisional)
            if mine is None:
                shared[claim_id] = out[(claim_id, person)]
    return out


def _naive_utc(moment: datetime) -> datetime:
    """SQLite gives back naive UTC times, PostgreSQL aware ones: compare them as naive UTC."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _judge_one(ctx: ChallengeContext, logbook_id: int, clients: list[LLMClient],
               config: str, model: str) -> tuple[list[VerdictRow], Usage]:  # fmt: skip
    usage = Usage()
    rows: list[VerdictRow] = []
    attest_if_cited(ctx, logbook_id)
    # No autoflush: the verdicts are written at commit only, so that the LLM cache's own short
    # transactions (on the LLM path) never wait on this one's write lock (SQLite).
    with ctx.store.session() as session, session.no_autoflush:
        book = session.get(Logbook, logbook_id)
        assert book is not None
        paper = session.get(Paper, book.paper_id)
        person = session.get(Participant, book.participant_id)
        assert paper is not None and person is not None
        record = LogbookRecord.model_validate(book.manifest)
        claims = session.scalars(
            select(Claim)
            .where(Claim.paper_id == paper.id, Claim.status == "active")
            .options(selectinload(Claim.edits))  # claim_view shows them: one query, not one each
        ).all()
        levels = stored_levels(session, book.id)
        reviews, answered = stored_reviews(session, book.id), newest_answers(session, book.id)
        locate = locator(ctx.settings.resolved_files_dir())
        newest = session.scalar(
            select(func.max(Replay.created_at)).where(Replay.logbook_id == book.id)
        )
        existing = {
            v.claim_id: v
            for v in session.scalars(
                select(Verdict).where(Verdict.logbook_id == book.id, Verdict.judge_config == config)
            )
        }
        own = open_proposals(session, [c.id for c in claims], [person.id])
        for claim in claims:
            check, provisional = effective_check(claim, own.get((claim.id, person.id)))
            digest = check_digest(check, provisional)
            view = claim_view(claim, paper.venue_id).model_copy(update={"check": check})
            old = existing.get(claim.id)
            stale = (
                (old is not None and old.check_digest != digest)
                or (
                    old is not None
                    and newest is not None
                    and not old.edits
                    and _naive_utc(old.created_at) < _naive_utc(newest)
                )
                or (  # a human check with answers newer than its verdict
                    old is not None
                    and claim.id in answered
                    and _naive_utc(old.created_at) < answered[claim.id]
                )
            )
            if old is not None and not stale:
                rows.append(
                    VerdictRow(logbook_id=book.id, claim_id=view.id, participant=person.handle,
                               verdict="", rule="", path="none", flags=[], rationale="",
                               skipped=True)
                )  # fmt: skip
                continue
            started = time.perf_counter()
            try:
                judged = judge_claim(record, view, clients=clients, levels=levels, locate=locate,
                                     reviews=reviews.get(claim.id))  # fmt: skip
            except (LLMError, StoreError):
                raise
            except LogbookError as exc:  # a reader's refusal: one bad logbook never stops it
                judged = unreadable_claim(view.id, exc)
            except Exception as exc:  # the judge's own fault: logged, counted, named so
                _log.exception("judge error on claim %s of logbook %s", view.id, book.id)
                judged = judge_error_claim(view.id, exc)
            usage.add(judged.usage)
            decision = judged.decision
            if provisional:  # an unconfirmed proposal or draft: shown, not counted
                decision.flags = list(dict.fromkeys([*decision.flags, "provisional"]))
                under = ("a model's drafted check, not yet confirmed"
                         if check is not None and check.origin.value == "llm"
                         else f"{person.handle}'s unconfirmed check proposal")  # fmt: skip
                decision.rationale = f"provisional (under {under}): {decision.rationale}"
            values = dict(
                verdict=decision.verdict,
                rationale=f"[{decision.rule}] {decision.rationale}",
                evidence=[p.model_dump(exclude_defaults=True) for p in judged.evidence],
                details=judged.details,
                flags=decision.flags, provenance=judged.provenance, judge_config=config,
                check_digest=digest, provisional=provisional,
                judge_model=model if judged.path == "llm" else f"rules:{JUDGE_VERSION}",
                prompt_version=PROMPT_VERSION if judged.path == "llm" else "",
                tokens_in=judged.usage.prompt_tokens,
                tokens_out=judged.usage.completion_tokens,
                seconds=round(time.perf_counter() - started, 4),
            )  # fmt: skip
            if old is not None:  # stale: a replay or attestation came after it
                for name, value in values.items():
                    setattr(old, name, value)
                old.created_at = datetime.now(UTC)
            else:
                session.add(Verdict(logbook_id=book.id, claim_id=claim.id, **values))
            rows.append(
                VerdictRow(logbook_id=book.id, claim_id=view.id, participant=person.handle,
                           verdict=decision.verdict, rule=decision.rule, path=judged.path,
                           flags=list(decision.flags), rationale=decision.rationale,
                           provenance=judged.provenance)
            )  # fmt: skip
    return rows, usage


def judge_logbook(
    ctx: ChallengeContext, logbook_id: int, clients: Sequence[LLMClient], *, config: str, model: str
) -> tuple[list[VerdictRow], Usage]:
    """Judge every active claim of one logbook and store the verdicts in one transaction; claims
    already judged under ``config`` are skipped. The work item of every engine: the local loop
    below and the Ray tasks of :mod:`openrepro.engine` call this same function."""
    return _judge_one(ctx, logbook_id, list(clients), config, model)


def panel_model(clients: Sequence[LLMClient]) -> str:
    """The model name a panel of judges records (``a+b``), the input of its judge config."""
    return "+".join(c.backend.model for c in clients)


def judge_logbooks(
    ctx: ChallengeContext,
    client: LLMClient | None,
    *,
    logbook_ids: list[int] | None = None,
    paper: str | None = None,
    progress: Callable[[list[VerdictRow]], None] | None = None,
    panel: Sequence[LLMClient] = (),
) -> JudgeReport:
    """Judge every active claim of the chosen logbooks (default: the newest revision of each
    participant's logbook per paper); one transaction per logbook. ``panel`` adds judges: on
    the LLM path their verdicts must agree, else the claim is ``inconclusive``."""
    ensure_writable(ctx)
    started = time.perf_counter()
    clients = [*([client] if client is not None else []), *panel]
    model = panel_model(clients)
    report = JudgeReport(judge_config=judge_config(model))
    targets = judge_targets(ctx, logbook_ids, paper)
    done = judged_already(ctx, targets, report.judge_config)
    with ctx.store.session() as session:  # new review answers make a logbook's verdicts stale
        for book in answered_since(session, done, report.judge_config):
            done.pop(book)
    for logbook_id in targets:
        if logbook_id in done:
            rows, usage = done[logbook_id], Usage()
        else:
            rows, usage = judge_logbook(ctx, logbook_id, clients, config=report.judge_config,
                                        model=model)  # fmt: skip
        report.verdicts += rows
        report.usage.add(usage)
        if progress is not None:
            progress(rows)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def count_verdicts(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return session.scalar(select(func.count(Verdict.id))) or 0
