"""`openrepro stats` prints the right count for every outcome row (json, md and table)."""

from __future__ import annotations

import json
from pathlib import Path

from outcome_store import EXPECTED, build_outcome_store
from test_cli import run

from openrepro.challenge import init_challenge


def test_stats_cli_formats(tmp_path: Path) -> None:
    ctx = init_challenge(tmp_path / "ch", "stats-test")
    build_outcome_store(ctx)
    ctx.close()
    folder = tmp_path / "ch"
    done = run("stats", "--format", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {r["key"]: r["count"] for r in data["rows"]} == EXPECTED
    assert data["totals"]["papers_attempted"] == 9
    md = run("stats", "--format", "md", cwd=folder).stdout
    assert "| All claims falsified, none verified | 1 | 11.1 % |" in md
    table = run("stats", cwd=folder).stdout
    assert "Contested" in table and "Credit" in table
