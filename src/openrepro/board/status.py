"""``openrepro status`` on the board's side: one participant's newest logbook per paper, with
each claim's current verdict, rule, bindings and re-check state (:mod:`openrepro.intake.records`).
A participant sees their own verdicts here, also inside a paper's anti-herding window."""

from __future__ import annotations

from sqlalchemy import select

from openrepro.board.data import verdict_cells
from openrepro.challenge import ChallengeContext
from openrepro.identity import get_participant
from openrepro.intake import ClaimStatus, LogbookStatus, ParticipantStatus, logbook_bindings
from openrepro.outcomes.current import open_registration
from openrepro.recheck import recheck_queue
from openrepro.store import Claim, Logbook, Paper
from openrepro.store.judge_queue import claim_states, queue_position

__all__ = ["participant_status"]


def participant_status(ctx: ChallengeContext, handle: str) -> ParticipantStatus:
    person = get_participant(ctx, handle)
    with ctx.store.session() as session:
        rows = session.execute(
            select(Logbook.id, Logbook.paper_id, Logbook.revision, Logbook.title,
                   Logbook.submitted_at, Paper.venue_id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Logbook.participant_id == person.id)
            .order_by(Logbook.id)
        ).all()  # fmt: skip
    newest = {row.paper_id: row for row in rows}  # by id: the newest revision wins
    cells = {
        (cell.logbook_id, f"{cell.paper}/{cell.claim_key}"): cell
        for cell in verdict_cells(ctx, participant_id=person.id, public=False)
    }
    queued = {entry.claim: entry.status for entry in recheck_queue(ctx)} if cells else {}
    out = ParticipantStatus(
        handle=person.handle, min_provenance_verified=ctx.settings.min_provenance_verified
    )
    if open_registration(ctx) and not person.identity_source and not person.team_confirmed:
        out.counted = False
        out.note = ("self-registered under open registration: your verdicts are shown but "
                    "count only once an organizer confirms your team")  # fmt: skip
    with ctx.store.session() as session:
        states = claim_states(session, [row.id for row in newest.values()])
        positions = {row.id: queue_position(session, row.id) for row in newest.values()}
        keys = {
            claim_id: f"{venue}/{key}"
            for claim_id, venue, key in session.execute(
                select(Claim.id, Paper.venue_id, Claim.key)
                .join(Paper, Paper.id == Claim.paper_id)
                .where(Claim.paper_id.in_(list(newest)))
            )
        }
    queue = {(book, keys[claim]): state for (book, claim), state in states.items()}
    for row in sorted(newest.values(), key=lambda r: r.venue_id):
        bindings, _ = logbook_bindings(ctx, row.id)
        claims = []
        for bound in bindings:
            cell = cells.get((row.id, bound.claim))
            state, error = queue.get((row.id, bound.claim), ("", ""))
            if state == "done" or (state == "" and cell is not None):
                state = "judged"
            claims.append(ClaimStatus(
                claim=bound.claim, rule=bound.check, bindings=bound.quantities,
                verdict=cell.value if cell else None,
                judge_value=cell.judge_value if cell else None,
                provenance=cell.provenance if cell else "",
                flags=cell.flags if cell else [], rationale=cell.rationale if cell else "",
                recheck=queued.get(bound.claim),
                below_minimum=cell.below_minimum if cell else False,
                queue=state, queue_error=error, judged_at=cell.created_at if cell else None,
            ))  # fmt: skip
        out.logbooks.append(LogbookStatus(
            logbook_id=row.id, paper=row.venue_id, title=row.title, revision=row.revision,
            submitted_at=row.submitted_at, claims=claims, queue_position=positions[row.id],
        ))  # fmt: skip
    return out
