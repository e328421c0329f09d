"""When a stored verdict no longer answers its inputs: one rule, :func:`stale`, for every caller.

A verdict is stored per (logbook revision, claim, judge config) and skipped on a re-run while
it stands. It is **stale**, and judged again in place, when one of the inputs it was judged
from has changed since (:func:`stale` names the first that did, in words):

1. the check that judges the claim for the logbook's participant is not the one it was judged
   under (its digest, :func:`openrepro.claims.proposals.check_digest`: ``claims check set``, an
   accepted or confirmed proposal or draft, a new proposal of the participant);
2. a replay or an attestation of the logbook is newer than the verdict (unless an organizer
   edited the verdict: the edit stands);
3. a review answer for the claim on the logbook is newer than the verdict (a ``human`` check).

A verdict under another judge config is not stale: it is another verdict (the config is part
of its key), and a new judge version queues everything again
(:func:`openrepro.judge.worker.register_version`).

Callers: the bulk pre-check of a run (:func:`openrepro.judge.service.judged_already`, one query
for every logbook), the per-logbook loop (:func:`openrepro.judge.service.judge_logbook`, which
the judge queue's workers and the Ray engine run), and accepting a check
(:func:`stale_verdicts`, :mod:`openrepro.judge.accept`), which reports the verdicts it made
stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.claims.proposals import check_digest, effective_check, open_proposals
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit
from openrepro.store.tables_provenance import Replay
from openrepro.store.tables_review import ReviewAnswerRow, ReviewTaskRow

__all__ = [
    "StaleVerdict",
    "StoredVerdict",
    "VerdictInputs",
    "check_digests",
    "naive_utc",
    "newest_answers",
    "newest_replays",
    "stale",
    "stale_verdicts",
]

_BATCH = 5000


@dataclass(frozen=True)
class StoredVerdict:
    """What :func:`stale` reads of a stored verdict: the digest of the check it was judged
    under, when it was judged, and whether an organizer edited it."""

    check_digest: str
    created_at: datetime
    edited: bool = False

    @classmethod
    def of(cls, row: Verdict) -> StoredVerdict:
        return cls(row.check_digest, row.created_at, bool(row.edits))


@dataclass(frozen=True)
class VerdictInputs:
    """A verdict's inputs as they stand now: the digest of the check that judges its claim for
    its logbook's participant, the newest replay or attestation of its logbook and the newest
    review answer for its claim on its logbook (None: none)."""

    check_digest: str
    replayed_at: datetime | None = None
    answered_at: datetime | None = None


def naive_utc(moment: datetime) -> datetime:
    """SQLite gives back naive UTC times, PostgreSQL aware ones: compare them as naive UTC."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def stale(verdict: StoredVerdict, inputs: VerdictInputs) -> str | None:
    """Why ``verdict`` no longer answers ``inputs`` (the first reason of the module docstring
    that holds), or None when it stands."""
    if verdict.check_digest != inputs.check_digest:
        return "its check changed"
    judged = naive_utc(verdict.created_at)
    if (
        inputs.replayed_at is not None
        and not verdict.edited
        and judged < naive_utc(inputs.replayed_at)
    ):
        return "a replay or attestation of its logbook came after it"
    if inputs.answered_at is not None and judged < naive_utc(inputs.answered_at):
        return "a review answer for its claim came after it"
    return None


def check_digests(session: Session, pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """(claim id, participant id) -> the digest of the check that judges that claim in that
    participant's logbooks now (:func:`openrepro.claims.proposals.check_digest`)."""
    wanted = set(pairs)
    claim_ids = sorted({c for c, _ in wanted})
    claims = {
        c.id: c
        for start in range(0, len(claim_ids), _BATCH)
        for c in session.scalars(
            select(Claim).where(Claim.id.in_(claim_ids[start : start + _BATCH]))
        )
    }
    own = open_proposals(session, claim_ids, {p for _, p in wanted})
    out: dict[tuple[int, int], str] = {}
    shared: dict[int, str] = {}  # the claim's digest for everyone without a proposal
    for claim_id, person in wanted:
        mine = own.get((claim_id, person))
        if mine is None and claim_id in shared:
            out[(claim_id, person)] = shared[claim_id]
            continue
        check, provisional = effective_check(claims[claim_id], mine)
        out[(claim_id, person)] = check_digest(check, provisional)
        if mine is None:
            shared[claim_id] = out[(claim_id, person)]
    return out


def newest_replays(session: Session, logbook_ids: Iterable[int]) -> dict[int, datetime]:
    """Logbook id -> when it was last replayed or attested."""
    books = sorted(set(logbook_ids))
    out: dict[int, datetime] = {}
    for start in range(0, len(books), _BATCH):
        out.update(
            session.execute(
                select(Replay.logbook_id, func.max(Replay.created_at))
                .where(Replay.logbook_id.in_(books[start : start + _BATCH]))
                .group_by(Replay.logbook_id)
            ).all()
        )
    return out


def newest_answers(session: Session, logbook_ids: Iterable[int]) -> dict[tuple[int, int], datetime]:
    """(logbook id, claim id) -> when its review tasks last got an answer."""
    books = sorted(set(logbook_ids))
    out: dict[tuple[int, int], datetime] = {}
    for start in range(0, len(books), _BATCH):
        rows = session.execute(
            select(ReviewTaskRow.logbook_id, ReviewTaskRow.claim_id,
                   func.max(ReviewAnswerRow.answered_at))
            .join(ReviewAnswerRow, ReviewAnswerRow.task_id == ReviewTaskRow.id)
            .where(ReviewTaskRow.logbook_id.in_(books[start : start + _BATCH]))
            .group_by(ReviewTaskRow.logbook_id, ReviewTaskRow.claim_id)
        ).all()  # fmt: skip
        out.update({(book, claim): at for book, claim, at in rows})
    return out


class StaleVerdict(BaseModel):
    """A stored verdict that no longer answers its inputs, and why (:func:`stale`)."""

    verdict_id: int
    logbook_id: int
    claim: str  # <paper>/<key>
    participant: str
    verdict: str
    judge_config: str
    reason: str


def stale_verdicts(
    session: Session, challenge_id: int, claim_ids: Iterable[int]
) -> list[StaleVerdict]:
    """The stale verdicts of these claims (row ids) in the newest revision of each
    participant's logbook of their papers: what the judge queue's workers, or ``openrepro
    judge``, judge again. Ordered by logbook, claim and verdict id."""
    wanted = sorted(set(claim_ids))
    if not wanted:
        return []
    papers = {
        venue
        for venue in session.scalars(
            select(Paper.venue_id)
            .join(Claim, Claim.paper_id == Paper.id)
            .where(Claim.id.in_(wanted), Paper.challenge_id == challenge_id)
            .distinct()
        )
    }
    books = [b for venue in sorted(papers)
             for b in latest_logbook_ids(session, challenge_id, paper=venue)]  # fmt: skip
    if not books:
        return []
    edited = select(VerdictEdit.verdict_id)
    rows = session.execute(
        select(Verdict, Verdict.id.in_(edited), Logbook.participant_id, Participant.handle,
               Paper.venue_id, Claim.key)
        .join(Logbook, Logbook.id == Verdict.logbook_id)
        .join(Participant, Participant.id == Logbook.participant_id)
        .join(Claim, Claim.id == Verdict.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Verdict.logbook_id.in_(books), Verdict.claim_id.in_(wanted))
        .order_by(Verdict.logbook_id, Verdict.claim_id, Verdict.id)
    ).all()  # fmt: skip
    digests = check_digests(session, {(v.claim_id, person) for v, _, person, *_ in rows})
    replays = newest_replays(session, books)
    answers = newest_answers(session, books)
    out: list[StaleVerdict] = []
    for verdict, was_edited, person, handle, venue, key in rows:
        inputs = VerdictInputs(digests[(verdict.claim_id, person)],
                               replays.get(verdict.logbook_id),
                               answers.get((verdict.logbook_id, verdict.claim_id)))  # fmt: skip
        why = stale(StoredVerdict(verdict.check_digest, verdict.created_at, bool(was_edited)),
                    inputs)  # fmt: skip
        if why is not None:
            out.append(StaleVerdict(verdict_id=verdict.id, logbook_id=verdict.logbook_id,
                                    claim=f"{venue}/{key}", participant=handle,
                                    verdict=verdict.verdict, judge_config=verdict.judge_config,
                                    reason=why))  # fmt: skip
    return out
