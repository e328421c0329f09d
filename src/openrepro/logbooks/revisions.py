"""The newest revision of each participant's logbook for a paper: the one that counts.

A participant may submit several revisions of their logbook for one paper; only the newest (the
highest logbook id of that (paper, participant)) is judged, counted in consensus and outcomes,
shown as current on the board and marked ``current`` in the frozen dataset. This module is the
one definition of "newest": :data:`LATEST_LOGBOOK_SQL` for statements written in SQL (the
current-verdict query of :mod:`openrepro.outcomes.current`) and :func:`latest_logbook_ids` for
everything else. Both group by (paper, participant) and keep the maximum id.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.store import Logbook, Paper, Participant

__all__ = ["LATEST_LOGBOOK_SQL", "latest_logbook_ids", "latest_logbook_sql"]

#: ``SELECT MAX(l.id) AS id ...`` of the newest revisions of challenge ``:challenge``; ``{where}``
#: adds conditions on ``l`` (logbooks) and ``p`` (papers), each starting with ``AND``. A condition
#: must keep or drop whole (paper, participant) groups (e.g. a paper, or hidden papers), never
#: single revisions, so the newest revision stays the newest.
LATEST_LOGBOOK_SQL = """SELECT MAX(l.id) AS id
        FROM logbooks l JOIN papers p ON p.id = l.paper_id
        WHERE p.challenge_id = :challenge {where}
        GROUP BY l.paper_id, l.participant_id"""


def latest_logbook_sql(where: str = "") -> str:
    """:data:`LATEST_LOGBOOK_SQL` with the extra conditions ``where`` (see there)."""
    return LATEST_LOGBOOK_SQL.format(where=where)


def latest_logbook_ids(
    session: Session,
    challenge_id: int,
    *,
    paper: str | None = None,
    participant: str | None = None,
) -> list[int]:
    """Ids of the newest revision per (paper, participant), ascending; of one paper (venue id)
    and/or one participant (handle) when given."""
    query = (
        select(func.max(Logbook.id))
        .join(Paper, Paper.id == Logbook.paper_id)
        .where(Paper.challenge_id == challenge_id)
        .group_by(Logbook.paper_id, Logbook.participant_id)
    )
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if participant is not None:
        query = query.join(Participant, Participant.id == Logbook.participant_id).where(
            Participant.handle == participant
        )
    return sorted(int(i) for i in session.scalars(query))
