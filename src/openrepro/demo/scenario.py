"""The demo's scenario and its known truth: papers, the claims an organizer wants, the
participants' attempts and what a careful human says each attempt shows.

The scenario is the union of its modules' :class:`~openrepro.demo.records.Case` records
(:data:`MODULES`); a new kind of claim is one more module listing its cases (and, for a new
participant, a line in :data:`PARTICIPANTS`). The venue (``venue.json``) is fictional, written
for the demo; every number in it comes from the small, real experiments in
:mod:`openrepro.demo.experiments`.
"""

from __future__ import annotations

from openrepro.demo import relational
from openrepro.demo.records import Attempt, Case, ExpectedClaim
from openrepro.vocabulary import VERDICTS

__all__ = [
    "ATTEMPTS",
    "CASES",
    "CLAIMS",
    "PARTICIPANTS",
    "QUICK_PAPERS",
    "Attempt",
    "Case",
    "ExpectedClaim",
]

MODULES = (relational,)  # each lists its CASES

CASES: tuple[Case, ...] = tuple(case for module in MODULES for case in module.CASES)
CLAIMS: tuple[ExpectedClaim, ...] = tuple(case.claim for case in CASES)
ATTEMPTS: tuple[Attempt, ...] = tuple(a for case in CASES for a in case.attempts)
# --quick: the cases marked quick (every participant and every stage, fewer papers)
QUICK_PAPERS: tuple[str, ...] = tuple(case.claim.paper for case in CASES if case.quick)

PARTICIPANTS: tuple[tuple[str, str], ...] = (
    ("ada", "careful: runs on the platform's jobs, reproduces"),
    ("bob", "sceptic: sweeps and seeds"),
    ("cai", "on a budget: small runs, one crash"),
    ("dee", "hasty: a normalisation mistake and an injected instruction"),
)

assert all(a.expected in VERDICTS for a in ATTEMPTS)
assert all(a.paper == case.claim.paper for case in CASES for a in case.attempts)
assert len({c.paper for c in CLAIMS}) == len(CLAIMS), "the demo keeps one claim per paper"
assert {a.handle for a in ATTEMPTS} <= {h for h, _ in PARTICIPANTS}
