"""A hostile confirmed team flipping a verdict through check agreement (no organizer watching).

Two honest confirmed teams each submit a real Trackio logbook for a fictional theory paper
(test_proposal_flow's tail-averaged SGD) with the same check for "the tail-averaged iterate has
a lower optimality gap than the last iterate"; their proposals agree, the check is confirmed and
both verdicts are verified. A third confirmed team then proposes the reverse ordering ("last
lower than averaged"). Before roles counted in equivalence (the quantity roles were assigned by
order of appearance) the reverse "matched", was installed as the claim's check, and on the next
judge both honest verdicts and the claim's consensus turned falsified. Now it is only a proposal:
the confirmed check stays, and so do the verdicts. SQLite only (one end-to-end path).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_judge_flow import _trackio
from test_proposal_flow import ABSTRACT, CLAIMS, PROPOSALS, SGD

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.claims.service import get_claim
from openrepro.identity import register
from openrepro.identity.teams import set_team
from openrepro.intake import submit
from openrepro.judge.service import judge_logbooks
from openrepro.outcomes import claim_consensus
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

HONEST = PROPOSALS["t1/C2"]
FLIPPED = {**HONEST, "subject": "last", "baselines": ["averaged"],
           "quantities": [{"name": "last"}, {"name": "averaged"}]}  # fmt: skip


@pytest.fixture
def theory(tmp_path: Path) -> Iterator[ChallengeContext]:
    ctx = init_challenge(tmp_path / "ch", "test", venue="Test/2026",
                         database_url=f"sqlite:///{tmp_path / 'store.db'}")  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id,
                  [PaperRecord(venue_id="t1", title="Tail averaging", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    with ctx.store.session() as s:
        for text, kind, quote in CLAIMS:
            add_claim(s, ctx.challenge_id, "t1", text=text, kind=kind, quotes=[quote],
                      editor="org", drafting="off")  # fmt: skip
    for handle, team in (("ana", "red"), ("bo", "blue"), ("eve", "green")):
        register(ctx, handle)
        set_team(ctx, handle, team)  # three confirmed teams
    try:
        yield ctx
    finally:
        ctx.close()


def _submit(ctx: ChallengeContext, tmp: Path, handle: str, check: dict[str, object]) -> None:
    ws = tmp / handle
    pages = pull_paper(ctx, "t1", ws).pages
    (ws / "checks.json").write_text(json.dumps({"format": 1, "checks": {"t1/C2": check}}))
    (ws / "sgd.py").write_text(SGD, encoding="utf-8")
    _trackio(ws, "logbook", "run", "--page", pages["t1/C2"], "--", sys.executable, "sgd.py")
    submit(ctx, ws, handle)


def test_a_third_team_cannot_flip_two_honest_verified_verdicts(
    theory: ChallengeContext, tmp_path: Path
) -> None:
    _submit(theory, tmp_path, "ana", HONEST)
    _submit(theory, tmp_path, "bo", HONEST)  # agrees with ana's: confirmed, the claim's check
    honest = {r.participant: r.verdict for r in judge_logbooks(theory, None).verdicts
              if r.claim_id == "t1/C2"}  # fmt: skip
    assert honest == {"ana": "verified", "bo": "verified"}
    assert {c.key: c.consensus for c in claim_consensus(theory)}["C2"] == "verified"
    with theory.store.session() as s:
        before = dict(get_claim(s, theory.challenge_id, "t1/C2")[0].check or {})
    assert before["subject"] == "averaged" and before["origin"] == "participant"

    _submit(theory, tmp_path, "eve", FLIPPED)  # the attack
    with theory.store.session() as s:
        assert get_claim(s, theory.challenge_id, "t1/C2")[0].check == before
    after = {r.participant: r for r in judge_logbooks(theory, None).verdicts
             if r.claim_id == "t1/C2"}  # fmt: skip
    assert after["ana"].skipped and after["bo"].skipped  # their check did not change
    # eve's logbook is judged under the claim's confirmed check too (a trusted check wins over
    # anyone's own proposal): her runs show what everyone's show
    assert after["eve"].verdict == "verified" and "provisional" not in after["eve"].flags
    assert {c.key: c.consensus for c in claim_consensus(theory)}["C2"] == "verified"
