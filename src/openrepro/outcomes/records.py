"""Typed records of claim consensus, paper outcomes and the challenge's statistics."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from openrepro.vocabulary import PROVENANCE_LEVELS

__all__ = [
    "CONSENSUS",
    "OUTCOME_ROWS",
    "ClaimConsensus",
    "Consensus",
    "OutcomeRow",
    "PaperOutcome",
    "ParticipantCredit",
    "Stats",
    "Totals",
    "describe_levels",
    "level_counts",
]

Consensus = Literal["verified", "falsified", "contested", "toy-only", "inconclusive", "unattempted"]
CONSENSUS: tuple[Consensus, ...] = (
    "verified",
    "falsified",
    "contested",
    "toy-only",
    "inconclusive",
    "unattempted",
)

#: The seeds' table, in order: (key, label). Every row but `examined` is a share of `examined`.
OUTCOME_ROWS: tuple[tuple[str, str], ...] = (
    ("examined", "Papers examined (≥ 1 judged logbook)"),
    ("any_verified", "≥ 1 claim verified"),
    ("fully_reproduced", "Fully reproduced (every claim verified)"),
    ("partially_reproduced", "Partially reproduced (≥ 1 verified, none falsified or contested)"),
    ("mixed", "Mixed (≥ 1 verified and ≥ 1 falsified or contested)"),
    ("falsified", "≥ 1 claim falsified or contested"),
    ("all_falsified", "All claims falsified, none verified"),
    ("contested", "Contested (independent teams reached opposite verdicts on a claim)"),
    ("toy_only", "Toy-only evidence"),
    ("nothing_established", "Nothing established (only inconclusive)"),
)


class ClaimConsensus(BaseModel):
    """The verdict of the whole challenge on one claim, from every independent logbook."""

    claim_id: int
    paper_id: int
    paper: str  # venue id
    key: str  # C1, C2, ...
    consensus: Consensus
    logbooks: int = 0  # logbooks with a verdict on this claim
    verified: int = 0  # independent groups (participants or teams) per verdict
    falsified: int = 0
    toy: int = 0
    inconclusive: int = 0
    overridden: int = 0  # verdicts whose value an organizer edit or a re-check changed
    # verified: the strongest provenance level among the verified verdicts that count it
    level: str | None = None
    # not verified: the strongest level of its verdicts the judge found verified on evidence
    # below min_provenance_verified (counted as inconclusive: shown, not counted)
    below_minimum: str | None = None


class PaperOutcome(BaseModel):
    """One paper's row flags (docs/design.md §3, paper outcome) and its claim consensus counts."""

    paper_id: int
    paper: str
    title: str
    claims: int
    logbooks: int
    verified: int = 0
    falsified: int = 0
    contested: int = 0
    toy_only: int = 0
    inconclusive: int = 0
    unattempted: int = 0
    examined: bool = False
    any_verified: bool = False
    fully_reproduced: bool = False
    partially_reproduced: bool = False
    mixed: bool = False
    falsified_any: bool = False
    all_falsified: bool = False
    contested_any: bool = False
    toy_only_paper: bool = False
    nothing_established: bool = False
    # verified claims per provenance level of their strongest counted evidence, strongest first
    verified_levels: dict[str, int] = Field(default_factory=dict)
    # claims not counted verified whose verified verdicts all rest on evidence below
    # min_provenance_verified, per the strongest such level, strongest first
    below_minimum: dict[str, int] = Field(default_factory=dict)

    def describe_levels(self, minimum: str) -> str:
        """How strong its verified claims are (see :func:`describe_levels`)."""
        return describe_levels(self.verified, self.verified_levels, self.below_minimum, minimum)

    @property
    def status(self) -> str:
        """One label for lists and filters, the most telling row first."""
        if not self.logbooks:
            return "unattempted"
        if not self.examined:
            return "awaiting judge"
        for flag, label in (
            (self.fully_reproduced, "fully reproduced"),
            (self.all_falsified, "all falsified"),
            (self.mixed, "mixed"),
            (self.partially_reproduced, "partially reproduced"),
            (self.falsified_any, "falsified"),
            (self.toy_only_paper, "toy only"),
        ):
            if flag:
                return label
        return "nothing established"


class OutcomeRow(BaseModel):
    key: str
    label: str
    count: int
    percent: float  # of examined papers (examined itself: of attempted papers)


class Totals(BaseModel):
    papers: int  # in the venue
    papers_attempted: int  # with ≥ 1 logbook
    share_attempted: float  # percent of the venue
    participants: int
    participants_active: int  # with ≥ 1 logbook
    logbooks: int  # newest revisions
    claims: int  # active claims of the venue
    claims_judged: int  # claims with ≥ 1 verdict
    verdicts: int  # current verdicts (newest per logbook revision and claim)
    jobs: int


class ParticipantCredit(BaseModel):
    handle: str
    team: str | None = None
    team_confirmed: bool = False  # an unconfirmed team does not count for independence
    logbooks: int = 0
    verdicts: int = 0
    verified: int = 0  # their verified verdicts on claims whose consensus is verified
    falsified: int = 0  # their falsified verdicts on claims whose consensus is falsified
    credit: int = 0  # verified + falsified, each resting on evidence (not testimony)


class Stats(BaseModel):
    challenge: str
    rows: list[OutcomeRow]
    totals: Totals
    consensus: dict[str, int]  # claims per consensus value
    verdicts: dict[str, int]  # current verdicts per value
    provenance: dict[str, int]  # current verdicts per provenance level
    author_responses: dict[str, int] = Field(default_factory=dict)
    credit: list[ParticipantCredit] = Field(default_factory=list)
    # the setting min_provenance_verified: the weakest level at which a verified counts
    min_provenance_verified: str = "self-recorded"
    # verified claims per provenance level of their strongest counted evidence, strongest first
    verified_levels: dict[str, int] = Field(default_factory=dict)
    # claims not counted verified whose verified verdicts are all below the minimum, per level
    below_minimum: dict[str, int] = Field(default_factory=dict)

    def describe_levels(self) -> str:
        """How strong the challenge's verified claims are (see :func:`describe_levels`)."""
        return describe_levels(self.consensus.get("verified", 0), self.verified_levels,
                               self.below_minimum, self.min_provenance_verified)  # fmt: skip


def level_counts(counts: dict[str, int]) -> dict[str, int]:
    """The non-zero counts per provenance level, strongest level first."""
    if not counts:
        return {}
    return {lv: counts[lv] for lv in reversed(PROVENANCE_LEVELS) if counts.get(lv)}


def describe_levels(
    verified: int, levels: dict[str, int], below: dict[str, int], minimum: str
) -> str:
    """One line for readers: "4 verified: 1 attested, 1 replayed, 2 self-recorded; 3 verified
    only below the minimum (replayed), not counted: 3 self-recorded"."""
    parts = ", ".join(f"{n} {lv}" for lv, n in level_counts(levels).items())
    text = f"{verified} verified" + (f": {parts}" if parts else "")
    if below:
        shown = ", ".join(f"{n} {lv}" for lv, n in level_counts(below).items())
        text += (f"; {sum(below.values())} verified only below the minimum ({minimum}), "
                 f"not counted: {shown}")  # fmt: skip
    return text
