"""The bundled demo: a fresh mini-challenge of a fictional venue, run end to end on real
mini-reproductions, offline, on the embedded defaults (see :mod:`openrepro.demo.runner`)."""

from __future__ import annotations

from openrepro.demo.records import Attempt, Case, ExpectedClaim
from openrepro.demo.runner import (
    DEMO_MARKER,
    CheckNote,
    ClaimEditNote,
    DemoProgress,
    DemoReport,
    JudgedAttempt,
    RecheckNote,
    RunNote,
    run_demo,
)
from openrepro.demo.scenario import ATTEMPTS, CASES, CLAIMS, PARTICIPANTS, QUICK_PAPERS

__all__ = [
    "ATTEMPTS",
    "CASES",
    "CLAIMS",
    "DEMO_MARKER",
    "PARTICIPANTS",
    "QUICK_PAPERS",
    "Attempt",
    "Case",
    "CheckNote",
    "ClaimEditNote",
    "DemoProgress",
    "DemoReport",
    "ExpectedClaim",
    "JudgedAttempt",
    "RecheckNote",
    "RunNote",
    "run_demo",
]
