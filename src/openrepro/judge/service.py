"""Running the judge over stored logbooks and recording verdicts.

Verdicts are idempotent per (logbook revision, claim, judge config): a logbook's verdicts are
written in one transaction once all its claims are judged, and a re-run skips claims that
already have a verdict under the same config, so an interrupted run resumes where it stopped.

Provenance: before judging a logbook, the runs it ties to compute jobs are attested
(:func:`openrepro.provenance.attest_logbook`, once), and the stored replays and attestations
give each run its level (:func:`openrepro.provenance.stored_levels`).

Checks: each claim is judged under its effective check for the logbook's participant
(:func:`openrepro.claims.proposals.effective_check`: an organizer's or a confirmed check, else
the participant's own proposal, provisional, else the drafted one). A verdict records the digest
of that check (revision and origin included).

A stored verdict that is **stale** (:func:`openrepro.judge.stale.stale`: its check changed, a
replay or attestation of its logbook or a review answer for its claim came after it) is judged
again and updated in place; the bulk pre-check (:func:`judged_already`) and the per-logbook
loop (:func:`judge_logbook`) ask that same function.
"""

from __future__ import annotations

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
from openrepro.errors import NotFoundError
from openrepro.evidence.checks import stored_levels
from openrepro.evidence.reviews import stored_reviews
from openrepro.identity.service import ensure_writable
from openrepro.judge.engine import JudgeCase, judge_claim
from openrepro.judge.judges import JUDGE_VERSION, PROMPT_VERSION, Judges
from openrepro.judge.stale import (
    StoredVerdict,
    VerdictInputs,
    check_digests,
    newest_answers,
    newest_replays,
    stale,
)
from openrepro.llm import Usage
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.logbooks.service import locator
from openrepro.provenance.attest import attest_if_cited
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit

__all__ = [
    "JudgeReport",
    "VerdictRow",
    "judge_logbook",
    "judge_logbooks",
    "judge_targets",
    "judged_already",
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
    ``config`` that is not stale (:func:`openrepro.judge.stale.stale`). One query for all of
    them (a resumed ``judge --all`` finds its remaining work without opening each logbook;
    batches of :data:`_BATCH` logbooks)."""
    if not logbook_ids:
        return {}
    wanted = list(logbook_ids)
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
                .where(Paper.challenge_id == ctx.challenge_id, Logbook.id.in_(batch))
                .order_by(Logbook.id, Claim.id)
            ).all()
        digests = check_digests(session, {(r[7], r[8]) for r in rows})
        replays = newest_replays(session, wanted)
        answers = newest_answers(session, wanted)
    done: dict[int, list[VerdictRow]] = {}
    pending: set[int] = set()
    seen: set[tuple[int, str]] = set()
    for (book, venue, key, handle, verdict, created, was_edited, claim_id, person,
         digest) in rows:  # fmt: skip
        if verdict is None or stale(
            StoredVerdict(digest, created, bool(was_edited)),
            VerdictInputs(digests[(claim_id, person)], replays.get(book),
                          answers.get((book, claim_id))),
        ):  # fmt: skip
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


def judge_logbook(
    ctx: ChallengeContext, logbook_id: int, judges: Judges | None = None, *, config: str = ""
) -> tuple[list[VerdictRow], Usage]:
    """Judge every active claim of one logbook and store the verdicts in one transaction;
    claims with a verdict under ``config`` (default: the judges') that is not stale
    (:func:`openrepro.judge.stale.stale`) are skipped. The work item of every engine: the
    local loop below, the judge queue's workers and the Ray tasks of :mod:`openrepro.engine`
    call this same function."""
    judges = judges if judges is not None else Judges()
    config = config or judges.config
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
        reviews = stored_reviews(session, book.id)
        answered = newest_answers(session, [book.id])
        locate = locator(ctx.settings.resolved_files_dir())
        replayed = newest_replays(session, [book.id]).get(book.id)
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
            view = claim_view(claim, paper.venue_id)
            old = existing.get(claim.id)
            inputs = VerdictInputs(digest, replayed, answered.get((book.id, claim.id)))
            if old is not None and stale(StoredVerdict.of(old), inputs) is None:
                rows.append(
                    VerdictRow(logbook_id=book.id, claim_id=view.id, participant=person.handle,
                               verdict="", rule="", path="none", flags=[], rationale="",
                               skipped=True)
                )  # fmt: skip
                continue
            started = time.perf_counter()
            case = JudgeCase(record=record, view=view, check=check, provisional=provisional,
                             participant=person.handle, levels=levels, locate=locate,
                             reviews=reviews.get(claim.id))  # fmt: skip
            judged = judge_claim(case, judges)
            usage.add(judged.usage)
            decision = judged.decision
            values = dict(
                verdict=decision.verdict,
                rationale=f"[{decision.rule}] {decision.rationale}",
                evidence=[p.model_dump(exclude_defaults=True) for p in judged.evidence],
                details=judged.details,
                flags=decision.flags, provenance=judged.provenance, judge_config=config,
                check_digest=digest, provisional=provisional,
                judge_model=judges.model if judged.path == "llm" else f"rules:{JUDGE_VERSION}",
                prompt_version=PROMPT_VERSION if judged.path == "llm" else "",
                tokens_in=judged.usage.prompt_tokens,
                tokens_out=judged.usage.completion_tokens,
                seconds=round(time.perf_counter() - started, 4),
            )  # fmt: skip
            if old is not None:  # stale: judged again in place
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


def judge_logbooks(
    ctx: ChallengeContext,
    judges: Judges | None = None,
    *,
    logbook_ids: list[int] | None = None,
    paper: str | None = None,
    progress: Callable[[list[VerdictRow]], None] | None = None,
    on_targets: Callable[[int], None] | None = None,
) -> JudgeReport:
    """Judge every active claim of the chosen logbooks (default: the newest revision of each
    participant's logbook per paper); one transaction per logbook. ``judges``: the judge
    model(s) (:class:`~openrepro.judge.judges.Judges`; None: none, a claim that needs a model
    is ``inconclusive``); a panel binds a quantity only to a pointer every judge chose.
    ``on_targets`` is told the number of logbooks before the first, ``progress`` each one's
    rows."""
    ensure_writable(ctx)
    judges = judges if judges is not None else Judges()
    started = time.perf_counter()
    report = JudgeReport(judge_config=judges.config)
    targets = judge_targets(ctx, logbook_ids, paper)
    if on_targets is not None:
        on_targets(len(targets))
    done = judged_already(ctx, targets, report.judge_config)
    for logbook_id in targets:
        if logbook_id in done:
            rows, usage = done[logbook_id], Usage()
        else:
            rows, usage = judge_logbook(ctx, logbook_id, judges, config=report.judge_config)
        report.verdicts += rows
        report.usage.add(usage)
        if progress is not None:
            progress(rows)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def count_verdicts(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return session.scalar(select(func.count(Verdict.id))) or 0
