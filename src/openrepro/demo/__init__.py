"""The bundled demo: a fresh mini-challenge of a fictional venue, run end to end on real
mini-reproductions, offline, on the embedded defaults (see :mod:`openrepro.demo.runner`)."""

from __future__ import annotations

from openrepro.demo.runner import (
    DEMO_MARKER,
    ClaimEditNote,
    DemoProgress,
    DemoReport,
    JudgedAttempt,
    RecheckNote,
    RunNote,
    run_demo,
)
from openrepro.demo.scenario import ATTEMPTS, CLAIMS, PARTICIPANTS, QUICK_PAPERS, Attempt

__all__ = [
    "ATTEMPTS",
    "CLAIMS",
    "DEMO_MARKER",
    "PARTICIPANTS",
    "QUICK_PAPERS",
    "Attempt",
    "ClaimEditNote",
    "DemoProgress",
    "DemoReport",
    "JudgedAttempt",
    "RecheckNote",
    "RunNote",
    "run_demo",
]
