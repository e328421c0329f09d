"""A small challenge whose verdicts cover every outcome row of docs/design.md §3.

Rows are written through the store (the judge's own output is tested in tests/judge); what is
under test here is how verdicts aggregate. ``EXPECTED`` is derived by hand from the definitions.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit

__all__ = ["EXPECTED", "EXPECTED_CREDIT", "RAISED", "build_outcome_store", "raise_levels"]

# paper -> claims -> [(participant, verdict)]; "!" marks an older revision that must be ignored.
SCENARIO: dict[str, dict[str, list[tuple[str, str]]]] = {
    "P1-full": {"C1": [("alice", "verified")], "C2": [("alice", "verified")]},
    "P2-partial": {
        "C1": [("bob!", "falsified"), ("bob", "verified")],
        "C2": [("bob", "inconclusive")],
    },
    "P3-mixed": {"C1": [("alice", "verified")], "C2": [("bob", "falsified")]},
    "P4-allfalse": {"C1": [("carol", "falsified")], "C2": [("carol", "falsified")]},
    "P5-contested": {
        "C1": [("alice", "verified"), ("bob", "falsified")],
        "C2": [("alice", "inconclusive")],
    },
    "P6-toy": {"C1": [("carol", "toy")], "C2": []},
    "P7-nothing": {"C1": [("dave", "inconclusive")]},
    "P8-unattempted": {"C1": []},
    # dave and erin are one team: their disagreement is not independent, so not "contested"
    "P9-sameteam": {"C1": [("dave", "verified"), ("erin", "falsified")]},
    # the judge said falsified; an organizer override (kept with its provenance) says verified
    "P10-override": {"C1": [("alice", "falsified")]},
}

EXPECTED = {
    "examined": 9,
    "any_verified": 4,
    "fully_reproduced": 2,
    "partially_reproduced": 1,
    "mixed": 1,
    "falsified": 3,
    "all_falsified": 1,
    "contested": 1,
    "toy_only": 1,
    "nothing_established": 2,
}
EXPECTED_CREDIT = {"alice": 4, "bob": 2, "carol": 2, "dave": 0, "erin": 0}
TEAMS = {"dave": "t1", "erin": "t1"}


def build_outcome_store(ctx: ChallengeContext) -> dict[str, int]:
    """Fill the challenge; returns paper venue id -> paper id."""
    start = datetime(2026, 7, 1, tzinfo=UTC)
    ids: dict[str, int] = {}
    with ctx.store.session() as session:
        people = {
            handle: Participant(  # teams an organizer set up: confirmed
                challenge_id=ctx.challenge_id,
                handle=handle,
                team=TEAMS.get(handle),
                team_confirmed=handle in TEAMS,
            )
            for handle in ("alice", "bob", "carol", "dave", "erin", "frank")
        }
        session.add_all(people.values())
        session.flush()
        for n, (venue_id, claims) in enumerate(SCENARIO.items()):
            paper = Paper(
                challenge_id=ctx.challenge_id, venue_id=venue_id, title=f"Paper {venue_id}"
            )
            session.add(paper)
            session.flush()
            ids[venue_id] = paper.id
            rows = {}
            for key in claims:
                rows[key] = Claim(paper_id=paper.id, key=key, text=f"{venue_id} claim {key}",
                                  kind="result")  # fmt: skip
            removed = Claim(paper_id=paper.id, key="C9", text="a removed claim", kind="result",
                            status="removed")  # fmt: skip
            session.add_all([*rows.values(), removed])
            session.flush()
            books: dict[str, Logbook] = {}
            for key, verdicts in claims.items():
                for who, value in verdicts:
                    old = who.endswith("!")
                    handle = who.rstrip("!")
                    name = f"{handle}{'-old' if old else ''}"
                    if name not in books:
                        books[name] = Logbook(
                            paper_id=paper.id, participant_id=people[handle].id,
                            revision="r1" if old else "r2", format="bundle",
                            manifest={"format": "bundle", "format_version": "1",
                                      "paper_id": venue_id, "participant": handle,
                                      "title": f"{handle}'s attempt at {venue_id}"},
                            submitted_at=start + timedelta(days=n, hours=0 if old else 1),
                        )  # fmt: skip
                        session.add(books[name])
                        session.flush()
                    session.add(
                        Verdict(
                            logbook_id=books[name].id, claim_id=rows[key].id, verdict=value,
                            rationale=f"[R?] {value}", judge_config="cfg",
                            provenance="self-recorded",
                            created_at=start + timedelta(days=n, hours=2),
                        )
                    )  # fmt: skip
            # a verdict on the removed claim never counts
            if books:
                first = next(iter(books.values()))
                session.add(Verdict(logbook_id=first.id, claim_id=removed.id, verdict="falsified",
                                    judge_config="cfg", provenance="self-recorded"))  # fmt: skip
        session.flush()
        target = (
            session.query(Verdict)
            .join(Claim)
            .join(Paper)
            .filter(Paper.venue_id == "P10-override")
            .filter(Claim.key == "C1")
            .one()
        )
        session.add(VerdictEdit(verdict_id=target.id, old_value="falsified", new_value="verified",
                                editor="organizer", reason="re-derived by hand"))  # fmt: skip
    return ids


#: Verdicts raised above ``self-recorded`` by :func:`raise_levels`: (paper, claim) -> level.
#: P5-contested/C2 is an inconclusive: its level never makes a claim verified.
RAISED = {("P1-full", "C1"): "attested", ("P3-mixed", "C1"): "replayed",
          ("P5-contested", "C2"): "replayed"}  # fmt: skip


def raise_levels(ctx: ChallengeContext) -> None:
    """Give the verdicts of :data:`RAISED` their stronger provenance level."""
    with ctx.store.session() as session:
        for (venue_id, key), level in RAISED.items():
            for verdict in session.scalars(
                select(Verdict).join(Claim).join(Paper)
                .where(Paper.venue_id == venue_id, Claim.key == key)
            ):  # fmt: skip
                verdict.provenance = level
