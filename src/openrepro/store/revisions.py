"""The newest revision of each participant's logbook for a paper: the one that counts.

A participant may submit several revisions of their logbook for one paper; only the newest (the
highest logbook id of that (paper, participant)) is judged, counted in consensus and outcomes,
shown as current on the board and marked ``current`` in the frozen dataset. This module is the
one definition of "newest": :func:`latest_logbook_select`, a SQLAlchemy Core statement (the
current-verdict query of :mod:`openrepro.outcomes.current` builds on it), and
:func:`latest_logbook_ids`, its ids. It groups by (paper, participant) and keeps the maximum id.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session

from openrepro.store import Logbook, Paper, Participant

__all__ = ["latest_logbook_ids", "latest_logbook_select"]


def latest_logbook_select(challenge_id: int, *where: ColumnElement[bool]) -> Select[Any]:
    """``SELECT MAX(logbooks.id) AS id`` of the newest revisions of the challenge's logbooks;
    ``where`` adds conditions on :class:`Logbook` and :class:`Paper`. A condition must keep or
    drop whole (paper, participant) groups (e.g. a paper, or hidden papers), never single
    revisions, so the newest revision stays the newest."""
    return (
        select(func.max(Logbook.id).label("id"))
        .join(Paper, Paper.id == Logbook.paper_id)
        .where(Paper.challenge_id == challenge_id, *where)
        .group_by(Logbook.paper_id, Logbook.participant_id)
    )


def latest_logbook_ids(
    session: Session,
    challenge_id: int,
    *,
    paper: str | None = None,
    participant: str | None = None,
) -> list[int]:
    """Ids of the newest revision per (paper, participant), ascending; of one paper (venue id)
    and/or one participant (handle) when given."""
    query = latest_logbook_select(challenge_id)
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if participant is not None:
        query = query.join(Participant, Participant.id == Logbook.participant_id).where(
            Participant.handle == participant
        )
    return sorted(int(i) for i in session.scalars(query))
