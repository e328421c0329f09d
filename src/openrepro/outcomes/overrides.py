"""Organizer overrides of verdicts: the judge's value stays, the edit is kept beside it."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import ConfigError, NotFoundError
from openrepro.identity import LOCAL_ORGANIZER, Actor, ensure_writable, require_organizer
from openrepro.outcomes.current import accepted_levels, current_query, open_registration
from openrepro.store import Logbook, Paper, Verdict, VerdictEdit
from openrepro.vocabulary import VERDICTS

__all__ = ["OverrideResult", "override_verdict"]


class OverrideResult(BaseModel):
    verdict_id: int
    old_value: str
    new_value: str
    editor: str
    reason: str
    source: str


def _effective(session: Session, ctx: ChallengeContext, verdict_id: int) -> str:
    """The verdict's effective value now (what an override replaces), read from the
    current-verdict query (:func:`~openrepro.outcomes.current.current_query`, the one outcomes
    count), taken for this verdict alone."""
    cur = current_query(
        ctx.challenge_id,
        accepted=accepted_levels(ctx.settings.min_provenance_verified),
        open_registration=bool(open_registration(ctx)),
        verdict_ids=[verdict_id],
    )
    return str(session.scalar(select(cur.value).where(cur.verdict_id == verdict_id)))


def override_verdict(
    ctx: ChallengeContext,
    verdict_id: int,
    value: str,
    *,
    reason: str,
    actor: Actor = LOCAL_ORGANIZER,
    source: str = "override",
) -> OverrideResult:
    """Set a verdict's effective value (organizers only); outcomes use the newest edit."""
    require_organizer(actor, "override verdicts")
    if value not in VERDICTS:
        raise ConfigError(f"invalid verdict {value!r}; use one of {', '.join(VERDICTS)}")
    if not reason.strip():
        raise ConfigError("an override needs a reason")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        verdict = session.scalar(
            select(Verdict)
            .join(Logbook, Logbook.id == Verdict.logbook_id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Verdict.id == verdict_id, Paper.challenge_id == ctx.challenge_id)
        )
        if verdict is None:
            raise NotFoundError(f"no verdict {verdict_id}")
        old = _effective(session, ctx, verdict_id)
        session.add(
            VerdictEdit(verdict_id=verdict_id, old_value=old, new_value=value,
                        editor=actor.handle, reason=reason.strip(), source=source)
        )  # fmt: skip
    return OverrideResult(verdict_id=verdict_id, old_value=old, new_value=value,
                          editor=actor.handle, reason=reason.strip(), source=source)  # fmt: skip
