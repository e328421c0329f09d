"""Curating claims: list, show, add, edit, remove. Every change keeps its history.

A claim is addressed as ``<paper venue id>/<key>`` (e.g. ``abc123XYZ/C3``); keys are never
reused, so an id a participant cited keeps meaning the same claim. Manually added or edited
quotes must be verbatim in the paper text, like extracted ones.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from openrepro.claims.checks import (
    TRUSTED_ORIGINS,
    Check,
    Origin,
    draft_for_claim,
    grounding_problems,
    require_grounded,
    require_meaningful,
)
from openrepro.claims.records import ClaimView, Quote
from openrepro.claims.text import locate
from openrepro.claims.values import Scale, parse_scale, parse_values
from openrepro.config import DEFAULT_CHECK_DRAFTING, CheckDrafting
from openrepro.errors import ClaimError, NotFoundError
from openrepro.identity.service import check_not_frozen
from openrepro.store import CLAIM_KINDS, Claim, ClaimEdit, Paper
from openrepro.store.judge_queue import enqueue
from openrepro.store.revisions import latest_logbook_ids

__all__ = [
    "add_claim",
    "claim_view",
    "derived_values",
    "edit_claim",
    "find_claim",
    "get_claim",
    "ground_quotes",
    "key_order",
    "list_claims",
    "redraft_checks",
    "remove_claim",
    "resolve_claim",
    "set_check",
    "split_claim_id",
]


def split_claim_id(claim_id: str) -> tuple[str, str]:
    """``"abc/C3"`` → ``("abc", "C3")`` (venue ids may themselves contain ``/``)."""
    paper, sep, key = claim_id.rpartition("/")
    if not sep or not paper or not key:
        raise ClaimError(f"invalid claim id {claim_id!r}: expected <paper id>/<key>, e.g. abc/C3")
    return paper, key


def claim_view(claim: Claim, venue_id: str) -> ClaimView:
    return ClaimView(
        id=f"{venue_id}/{claim.key}",
        paper_id=venue_id,
        key=claim.key,
        text=claim.text,
        kind=claim.kind,
        status=claim.status,
        origin=claim.origin,
        quotes=[Quote.model_validate(q) for q in claim.quotes],
        reported=claim.reported,
        scale=Scale.model_validate(claim.scale),
        provenance=claim.provenance,
        created_at=claim.created_at,
        check=Check.from_json(claim.check) if claim.check else None,
        edits=[
            {
                "field": e.field,
                "old": e.old_value,
                "new": e.new_value,
                "editor": e.editor,
                "reason": e.reason,
                "at": e.created_at.isoformat(),
            }
            for e in claim.edits
        ],
    )


def key_order(key: str) -> tuple[int, str]:
    return (int(key[1:]), key) if key[1:].isdigit() else (10**9, key)


def list_claims(
    session: Session,
    challenge_id: int,
    *,
    paper: str | None = None,
    kind: str | None = None,
    include_removed: bool = False,
) -> list[ClaimView]:
    query = (
        select(Claim, Paper.venue_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == challenge_id)
        .options(selectinload(Claim.edits))
    )
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if kind is not None:
        query = query.where(Claim.kind == kind)
    if not include_removed:
        query = query.where(Claim.status == "active")
    rows = session.execute(query).all()
    rows = sorted(rows, key=lambda r: (r[1], key_order(r[0].key)))
    return [claim_view(claim, venue_id) for claim, venue_id in rows]


def _paper(session: Session, challenge_id: int, venue_id: str) -> Paper:
    paper = session.scalar(
        select(Paper).where(Paper.challenge_id == challenge_id, Paper.venue_id == venue_id)
    )
    if paper is None:
        raise NotFoundError(f"no paper with id {venue_id!r}")
    return paper


def find_claim(
    session: Session, challenge_id: int, claim_id: str, *, paper: str | None = None
) -> tuple[Claim, Paper] | None:
    """The one reader of claim ids: the claim ``<paper id>/<key>`` of this challenge, or the
    claim ``<key>`` of ``paper`` when the id names no paper (``C3``); None when there is none.
    :class:`~openrepro.errors.ClaimError` for an id without a key."""
    if "/" not in claim_id and paper:
        claim_id = f"{paper}/{claim_id}"
    venue_id, key = split_claim_id(claim_id)
    row = session.execute(
        select(Claim, Paper)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == challenge_id, Paper.venue_id == venue_id, Claim.key == key)
    ).first()
    return (row[0], row[1]) if row is not None else None


def get_claim(session: Session, challenge_id: int, claim_id: str) -> tuple[Claim, Paper]:
    """:func:`find_claim`, or NotFoundError naming the paper or the claim that is missing."""
    found = find_claim(session, challenge_id, claim_id)
    if found is None:
        _paper(session, challenge_id, split_claim_id(claim_id)[0])  # no such paper: says so
        raise NotFoundError(f"no claim {claim_id!r}")
    return found


def resolve_claim(session: Session, challenge_id: int, claim: str) -> tuple[Claim, Paper]:
    """A claim of this challenge by its id ``<paper>/<key>`` or its numeric row id."""
    if claim.isdigit():
        row = session.get(Claim, int(claim))
        paper = session.get(Paper, row.paper_id) if row is not None else None
        if row is None or paper is None or paper.challenge_id != challenge_id:
            raise NotFoundError(f"no claim {claim}")
        return row, paper
    return get_claim(session, challenge_id, claim)


def ground_quotes(paper: Paper, quotes: list[str]) -> list[Quote]:
    """Locate each quote verbatim in the paper's full text (else its abstract); refuse if not."""
    grounded: list[Quote] = []
    for quote in quotes:
        for field in ("full_text", "abstract"):
            text = getattr(paper, field) or ""
            span = locate(quote, text)
            if span is not None:
                start, end = span
                grounded.append(Quote(text=text[start:end], start=start, end=end, field=field))
                break
        else:
            raise ClaimError(
                f"quote not found verbatim in {paper.venue_id}'s text: {quote[:80]!r} "
                "(quotes must be copied from the paper; at least 8 characters)"
            )
    return grounded


def _check_kind(kind: str) -> None:
    if kind not in CLAIM_KINDS:
        raise ClaimError(f"unknown kind {kind!r}: use one of {', '.join(CLAIM_KINDS)}")


def derived_values(
    paper: Paper, quotes: list[Quote]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The reported values and the scale a claim's quotes state (stored with the claim)."""
    reported = [v.model_dump(exclude_defaults=True) for q in quotes for v in parse_values(q.text)]
    scale = parse_scale(*(q.text for q in quotes), paper.full_text or paper.abstract or "")
    return reported, scale.model_dump(exclude_defaults=True)


def add_claim(
    session: Session,
    challenge_id: int,
    venue_id: str,
    *,
    text: str,
    kind: str,
    quotes: list[str],
    editor: str,
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
) -> ClaimView:
    """Add a curated claim; at least one quote, each verbatim in the paper. Its check is drafted
    by the rules under ``drafting`` (the challenge's setting ``check_drafting``)."""
    from openrepro.claims.extract import next_key

    _check_kind(kind)
    if not text.strip():
        raise ClaimError("a claim needs text")
    if not quotes:
        raise ClaimError("a claim needs at least one verbatim quote from the paper (--quote)")
    check_not_frozen(session, challenge_id)
    paper = _paper(session, challenge_id, venue_id)
    grounded = ground_quotes(paper, quotes)
    reported, scale = derived_values(paper, grounded)
    claim = Claim(
        paper_id=paper.id, key=f"C{next_key(session, paper.id)}", text=text.strip(), kind=kind,
        quotes=[q.model_dump() for q in grounded], reported=reported, scale=scale,
        origin="manual", provenance={"added_by": editor},
    )  # fmt: skip
    claim.edits.append(ClaimEdit(field="created", old_value=None, new_value=claim.key,
                                 editor=editor, reason="added by hand"))  # fmt: skip
    claim.check = draft_for_claim([q.text for q in grounded], f"{paper.venue_id}/{claim.key}",
                                  Scale.model_validate(scale), drafting=drafting)  # fmt: skip
    session.add(claim)
    session.flush()
    return claim_view(claim, paper.venue_id)


def edit_claim(
    session: Session,
    challenge_id: int,
    claim_id: str,
    *,
    editor: str,
    reason: str,
    text: str | None = None,
    kind: str | None = None,
    quotes: list[str] | None = None,
    tolerance: float | None = None,
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
) -> ClaimView:
    """Change text, kind, quotes and/or the relative tolerance the judge allows on the reported
    values; each changed field leaves an edit (old, new, who, why). New quotes redraft a check
    the rules wrote, under ``drafting``."""
    check_not_frozen(session, challenge_id)
    claim, paper = get_claim(session, challenge_id, claim_id)
    if claim.status != "active":
        raise ClaimError(f"claim {claim_id} is {claim.status}; it cannot be edited")
    changes: dict[str, Any] = {}
    if text is not None and text.strip() != claim.text:
        changes["text"] = text.strip()
    if kind is not None and kind != claim.kind:
        _check_kind(kind)
        changes["kind"] = kind
    if quotes:
        grounded = [q.model_dump() for q in ground_quotes(paper, quotes)]
        if grounded != claim.quotes:
            changes["quotes"] = grounded
    if tolerance is not None:
        if not 0 <= tolerance < 1:
            raise ClaimError(f"tolerance {tolerance} must be a fraction in [0, 1), e.g. 0.02")
        if "quotes" in changes:
            raise ClaimError("change the quotes and the tolerance in two edits")
        reported = [{**v, "rel_tol": tolerance} for v in claim.reported]
        if reported != claim.reported:
            changes["reported"] = reported
    if not changes:
        raise ClaimError("nothing to change (give --text, --kind, --quote or --tolerance)")
    for name, value in changes.items():
        claim.edits.append(ClaimEdit(field=name, old_value=getattr(claim, name), new_value=value,
                                     editor=editor, reason=reason))  # fmt: skip
        setattr(claim, name, value)
    if "quotes" in changes:
        claim.reported, claim.scale = derived_values(
            paper, [Quote.model_validate(q) for q in claim.quotes]
        )
        kept = _organizer_check_problems(claim)
        if kept is None:
            _redraft(claim, paper, editor, f"redrafted for the new quotes: {reason}", drafting)
        elif kept:
            _redraft(claim, paper, editor, "the organizer's check is not grounded in the new "
                     f"quotes ({'; '.join(kept)}), redrafted by the rules: {reason}",
                     drafting)  # fmt: skip
    session.flush()
    return claim_view(claim, paper.venue_id)


def _organizer_check_problems(claim: Claim) -> list[str] | None:
    """None when the claim has no organizer's check (the rules redraft it for new quotes), else
    what keeps the organizer's check from being grounded in the claim's current quotes (empty:
    it stays)."""
    if not claim.check or claim.check.get("origin") not in TRUSTED_ORIGINS:
        return None  # a confirmed participant's proposal is kept like an organizer's check
    return grounding_problems(
        Check.from_json(claim.check), " … ".join(q["text"] for q in claim.quotes)
    )


def _redraft(
    claim: Claim, paper: Paper, editor: str, reason: str, drafting: CheckDrafting
) -> dict[str, Any] | None:
    """Give ``claim`` the rules' check for its current quotes under ``drafting`` (recorded in its
    history when it changes); returns the check now stored."""
    drafted = draft_for_claim([q["text"] for q in claim.quotes], f"{paper.venue_id}/{claim.key}",
                              Scale.model_validate(claim.scale), drafting=drafting)  # fmt: skip
    if drafted != claim.check:
        claim.edits.append(ClaimEdit(field="check", old_value=claim.check, new_value=drafted,
                                     editor=editor, reason=reason))  # fmt: skip
        claim.check = drafted
    return drafted


def redraft_checks(
    session: Session,
    challenge_id: int,
    claim_ids: list[str] | None = None,
    *,
    editor: str,
    replace: bool = False,
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
    reason: str = "drafted by the rules",
) -> dict[str, bool]:
    """Draft (by the rules, under ``drafting``) the checks of the given claims, else of every
    active claim that has none; ``replace`` also redrafts checks the rules wrote before (never
    an organizer's). An organizer who reviewed the rules' reading of a claim the gate left
    without a check keeps it with ``drafting="rules"``. Returns claim id -> whether it now has
    a check; changes are in the claims' histories with ``reason``."""
    check_not_frozen(session, challenge_id)
    if claim_ids is not None:
        rows = [get_claim(session, challenge_id, c) for c in claim_ids]
    else:
        rows = list(
            session.execute(
                select(Claim, Paper)
                .join(Paper, Paper.id == Claim.paper_id)
                .where(Paper.challenge_id == challenge_id, Claim.status == "active")
                .order_by(Paper.id, Claim.id)
            ).tuples()
        )
    out: dict[str, bool] = {}
    for claim, paper in rows:
        name = f"{paper.venue_id}/{claim.key}"
        current = claim.check
        # an organizer's or a confirmed check, and a model's drafted one (waiting for an
        # independent drafter), are never replaced by the rules
        kept = current is not None and current.get("origin") in {*TRUSTED_ORIGINS, "llm"}
        keep = current is not None and (kept or not replace)
        if keep:
            out[name] = True
            continue
        out[name] = _redraft(claim, paper, editor, reason, drafting) is not None
    session.flush()
    return out


def set_check(
    session: Session,
    challenge_id: int,
    claim_id: str,
    check: Check | None,
    *,
    editor: str,
    reason: str,
    origin: Origin = Origin.organizer,
) -> ClaimView:
    """Replace a claim's check (``None`` removes it), kept in the claim's edit history. A check
    an organizer writes must still be grounded (every constant in the claim's quotes) and
    meaningful (some value fails it: :func:`~openrepro.claims.checks.require_meaningful`)."""
    check_not_frozen(session, challenge_id)
    claim, paper = get_claim(session, challenge_id, claim_id)
    if not reason.strip():
        raise ClaimError("say why the check changes (--reason)")
    new: dict[str, Any] | None = None
    if check is not None:
        quotes = " … ".join(q["text"] for q in claim.quotes)
        previous = claim.check.get("revision", 0) if claim.check else 0
        keyed = check.for_claim(f"{paper.venue_id}/{claim.key}").model_copy(
            update={"origin": origin, "revision": previous + 1, "quote": check.quote or quotes}
        )
        require_grounded(keyed, quotes)
        require_meaningful(keyed)
        new = keyed.model_dump(mode="json")
    if new == claim.check:
        raise ClaimError("nothing to change: the claim already has this check")
    claim.edits.append(ClaimEdit(field="check", old_value=claim.check, new_value=new,
                                 editor=editor, reason=reason))  # fmt: skip
    claim.check = new
    session.flush()
    # the verdicts under the old check are judged again by the queue's workers
    enqueue(session, latest_logbook_ids(session, challenge_id, paper=paper.venue_id),
            reason="check", claim_ids=[claim.id])  # fmt: skip
    return claim_view(claim, paper.venue_id)


def remove_claim(
    session: Session, challenge_id: int, claim_id: str, *, editor: str, reason: str
) -> ClaimView:
    """Mark a claim removed (the row, its key and its history stay)."""
    check_not_frozen(session, challenge_id)
    claim, paper = get_claim(session, challenge_id, claim_id)
    if claim.status == "removed":
        raise ClaimError(f"claim {claim_id} is already removed")
    claim.edits.append(ClaimEdit(field="status", old_value=claim.status, new_value="removed",
                                 editor=editor, reason=reason))  # fmt: skip
    claim.status = "removed"
    session.flush()
    return claim_view(claim, paper.venue_id)


def count_claims(session: Session, challenge_id: int) -> int:
    return (
        session.scalar(
            select(func.count(Claim.id))
            .join(Paper, Paper.id == Claim.paper_id)
            .where(Paper.challenge_id == challenge_id, Claim.status == "active")
        )
        or 0
    )
