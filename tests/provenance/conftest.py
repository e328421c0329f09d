"""Make the judge tests' helpers (``cases``: real Trackio logbooks) importable here."""

from __future__ import annotations

import sys
from pathlib import Path

JUDGE_TESTS = str(Path(__file__).resolve().parents[1] / "judge")
if JUDGE_TESTS not in sys.path:
    sys.path.insert(0, JUDGE_TESTS)
