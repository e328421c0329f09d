"""The records a demo scenario is written in: the claims the organizers want (with their known
truth and, where the rules cannot draft it, the organizer's check) and the participants'
attempts (with the verdict a careful human gives each). A scenario module lists :class:`Case`
records; :mod:`openrepro.demo.scenario` gathers every module's cases."""

from __future__ import annotations

from dataclasses import dataclass, field

from openrepro.claims.checks import Check, Relation

__all__ = ["Attempt", "Case", "ExpectedClaim"]


@dataclass(frozen=True)
class ExpectedClaim:
    """A claim the organizers want checked: the scripted review makes the extraction match it.

    ``relation`` is the relation its check asserts. The rules draft the check from ``quote``
    when the claim is stored; where they cannot (or draft another relation), the organizer sets
    ``check`` (``claims check set``), giving ``check_reason``.
    """

    paper: str
    quote: str  # verbatim in the paper; code parses the reported value and drafts the check
    text: str
    kind: str
    truth: str  # what holds, in words (the demo's known truth about the claim itself)
    relation: Relation
    check: Check | None = None  # the organizer's check (None: the rules' draft is kept)
    check_reason: str = ""


@dataclass(frozen=True)
class Attempt:
    """One participant's logbook for one paper: the commands run, prose added, and the
    verdict a careful human gives it (the demo's known truth)."""

    handle: str
    paper: str
    script: str  # experiments/<script>.py
    args: tuple[str, ...]
    expected: str  # verified | falsified | toy | inconclusive
    scenario: str  # one line for the final screen
    rule: str = ""  # the judge rule that should decide it ("K:G2"); "" = any
    #: what an equality-only comparison (a logged value against the claim's number, which the
    #: judge never does) says, where the
    #: scenario shows it differs from the check's verdict
    equality: str = ""
    via_job: bool = False  # run through the local jobs backend and the credit ledger
    testimony: str = ""  # a markdown cell the participant adds (never evidence)
    hostile: bool = False  # an injected instruction: must never end up verified
    needs: tuple[str, ...] = field(default=())  # data files copied into the workspace


@dataclass(frozen=True)
class Case:
    """One paper's claim and every attempt at it; ``quick`` keeps it in ``--quick``."""

    claim: ExpectedClaim
    attempts: tuple[Attempt, ...]
    quick: bool = False
