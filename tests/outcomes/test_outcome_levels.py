"""Verified claims by provenance level: how strong each "verified" is, and the verified verdicts
that do not count because their level is below ``min_provenance_verified`` (shown, not counted).

The store is :mod:`outcome_store` with three verdicts raised above ``self-recorded``
(:func:`outcome_store.raise_levels`): P1-full/C1 ``attested``, P3-mixed/C1 ``replayed``,
P5-contested/C2 ``replayed`` (an inconclusive: its level never makes a claim verified).
"""

from __future__ import annotations

import json

import pytest
from alembic import command
from click.testing import Result
from outcome_store import build_outcome_store, raise_levels
from sqlalchemy import text
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext
from openrepro.cli import app
from openrepro.cli._common import console
from openrepro.errors import NotFoundError
from openrepro.outcomes import claim_consensus, compute_stats, paper_outcomes
from openrepro.outcomes.derived import is_fresh
from openrepro.store.db import _alembic_config


def _store(ctx: ChallengeContext) -> None:
    build_outcome_store(ctx)
    raise_levels(ctx)


def test_verified_claims_by_level_at_the_default_minimum(challenge: ChallengeContext) -> None:
    _store(challenge)
    outcomes = {o.paper: o for o in paper_outcomes(challenge)}
    assert outcomes["P1-full"].verified_levels == {"attested": 1, "self-recorded": 1}
    assert outcomes["P3-mixed"].verified_levels == {"replayed": 1}
    assert outcomes["P2-partial"].verified_levels == {"self-recorded": 1}
    # an organizer's edit counts as decided, at the level of the evidence it rests on
    assert outcomes["P10-override"].verified_levels == {"self-recorded": 1}
    # contested, same-team disagreement, nothing verified: no level
    for paper in ("P5-contested", "P9-sameteam", "P4-allfalse", "P8-unattempted"):
        assert outcomes[paper].verified_levels == {}, paper
    assert all(o.below_minimum == {} for o in outcomes.values())
    # every verified claim has exactly one level
    for o in outcomes.values():
        assert sum(o.verified_levels.values()) == o.verified, o.paper
    stats = compute_stats(challenge)
    assert stats.verified_levels == {"attested": 1, "replayed": 1, "self-recorded": 3}
    assert sum(stats.verified_levels.values()) == stats.consensus["verified"]
    assert stats.below_minimum == {}
    assert stats.describe_levels() == "5 verified: 1 attested, 1 replayed, 3 self-recorded"


def test_verified_below_the_minimum_is_shown_as_not_counted(challenge: ChallengeContext) -> None:
    _store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    consensus = {(c.paper, c.key): c for c in claim_consensus(challenge)}
    assert (consensus[("P1-full", "C1")].consensus, consensus[("P1-full", "C1")].level) == (
        "verified", "attested")  # fmt: skip
    assert consensus[("P1-full", "C2")].consensus == "inconclusive"
    assert consensus[("P1-full", "C2")].below_minimum == "self-recorded"
    assert consensus[("P1-full", "C2")].level is None
    # bob's falsified now stands alone: falsified, with alice's uncounted verified shown
    assert consensus[("P5-contested", "C1")].consensus == "falsified"
    assert consensus[("P5-contested", "C1")].below_minimum == "self-recorded"
    # a replayed inconclusive is no verified: nothing to show
    assert consensus[("P5-contested", "C2")].below_minimum is None
    assert consensus[("P7-nothing", "C1")].below_minimum is None

    outcomes = {o.paper: o for o in paper_outcomes(challenge)}
    p1 = outcomes["P1-full"]
    assert (p1.verified, p1.verified_levels, p1.below_minimum) == (
        1, {"attested": 1}, {"self-recorded": 1})  # fmt: skip
    assert p1.status == "partially reproduced"
    assert p1.describe_levels("replayed") == (
        "1 verified: 1 attested; 1 verified only below the minimum (replayed), not counted: "
        "1 self-recorded"
    )
    assert outcomes["P2-partial"].below_minimum == {"self-recorded": 1}
    assert outcomes["P2-partial"].verified == 0
    assert outcomes["P3-mixed"].verified_levels == {"replayed": 1}
    assert outcomes["P10-override"].verified_levels == {"self-recorded": 1}

    stats = compute_stats(challenge)
    assert stats.min_provenance_verified == "replayed"
    assert stats.verified_levels == {"attested": 1, "replayed": 1, "self-recorded": 1}
    # P1-full/C2, P2-partial/C1, P5-contested/C1, P9-sameteam/C1
    assert stats.below_minimum == {"self-recorded": 4}
    # the full query gives the same as the derived tables
    assert stats == compute_stats(challenge, reference=True)
    assert paper_outcomes(challenge) == paper_outcomes(challenge, reference=True)
    assert claim_consensus(challenge) == claim_consensus(challenge, reference=True)


def test_hidden_papers_show_no_levels(challenge: ChallengeContext) -> None:
    _store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    challenge.settings.verdict_window_hours = 24 * 365 * 100  # nothing is public yet
    public = {o.paper: o for o in paper_outcomes(challenge, public=True)}
    assert all(not o.verified_levels and not o.below_minimum for o in public.values())
    stats = compute_stats(challenge, public=True)
    assert (stats.verified_levels, stats.below_minimum) == ({}, {})
    assert stats == compute_stats(challenge, public=True, reference=True)


def test_the_cli_carries_the_levels(
    challenge: ChallengeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(challenge)
    monkeypatch.setenv("OPENREPRO_MIN_PROVENANCE_VERIFIED", "replayed")
    base = ["--dir", str(challenge.settings.directory)]

    def cli(*args: str) -> Result:
        return CliRunner().invoke(app, [*base, *args])

    done = cli("stats", "-f", "json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["min_provenance_verified"] == "replayed"
    assert data["verified_levels"] == {"attested": 1, "replayed": 1, "self-recorded": 1}
    assert data["below_minimum"] == {"self-recorded": 4}
    assert "| self-recorded | 1 | 4 |" in cli("stats", "-f", "md").stdout
    assert "4 verified only below the minimum (replayed)" in cli("stats").stdout

    done = cli("stats", "--paper", "P2-partial", "--paper", "P1-full", "-f", "json")
    assert done.exit_code == 0, done.output
    rows = {r["paper"]: r for r in json.loads(done.stdout)}
    assert rows["P1-full"]["verified_levels"] == {"attested": 1}
    assert rows["P1-full"]["below_minimum"] == {"self-recorded": 1}
    assert rows["P2-partial"]["status"] == "nothing established"
    assert rows["P2-partial"]["below_minimum"] == {"self-recorded": 1}
    monkeypatch.setattr(console, "_width", 250)  # one line per row: phrases stay whole
    text = cli("stats", "--paper", "P1-full").stdout
    assert "1 verified: 1 attested; 1 verified only below the minimum (replayed)" in text
    missing = cli("stats", "--paper", "no-such-paper")
    assert isinstance(missing.exception, NotFoundError) and "no-such-paper" in str(
        missing.exception
    )

    # `status`: alice's own verified on P1-full/C2 is shown as not counted, and why
    done = cli("status", "--as", "alice", "-f", "json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["min_provenance_verified"] == "replayed"
    claims = {c["claim"]: c for b in report["logbooks"] for c in b["claims"]}
    assert claims["P1-full/C2"]["below_minimum"] is True
    assert claims["P1-full/C2"]["verdict"] == "inconclusive"
    assert claims["P1-full/C1"]["below_minimum"] is False
    table = cli("status", "--as", "alice").stdout
    assert (
        "inconclusive (judge: verified; self-recorded, below the minimum replayed: not "
        "counted)" in table
    )


def test_upgrade_to_0013_rebuilds_the_derived_rows(challenge: ChallengeContext) -> None:
    """Derived rows built before migration 0013 (no levels) are rebuilt on the next read."""
    _store(challenge)
    challenge.settings.min_provenance_verified = "replayed"
    expected = compute_stats(challenge)  # builds the derived rows at head
    cfg = _alembic_config()
    with challenge.store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0012")
    with challenge.store.engine.begin() as conn:  # as 0012's code left it: built, fresh
        assert conn.execute(text("SELECT accepted FROM outcome_state")).scalar()
    challenge.store.upgrade()
    with challenge.store.session() as session:
        assert not is_fresh(session, challenge)
    stats = compute_stats(challenge)
    assert stats.below_minimum == {"self-recorded": 4}
    assert stats == expected
