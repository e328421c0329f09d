"""Checks at event scale, end to end: a model drafts every claim's check in bulk
against a scripted local OpenAI-compatible endpoint; a participant of a confirmed team, following
only the workspace, proposes checks, runs real Trackio runs and submits; the proposals that
match the model's drafts confirm them, the one that disagrees lands in the organizers' queue with
the claim nobody drafted; the organizer resolves the queue there (accept one, mark one
``human``), and the verdicts count.

A participant in no team, who proposes nothing, is judged under the drafted checks first:
provisional verdicts, counted nowhere, until the drafts are confirmed or resolved.
The paper and its runs are test_proposal_flow's (a fictional theory paper: a bound, an ordering,
a trend over steps, a proof). The model's replies are scripted per claim
(tests/claims/drafting_server.py) and one of them is wrong on purpose (the trend "increasing").
After the organizer's action the test calls the judge service itself; on the board the durable
judge queue re-judges on its own (the organizer types no `judge`).
SQLite only: one end-to-end path.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from drafting_server import DraftingServer
from test_judge_flow import _trackio
from test_proposal_flow import ABSTRACT, CLAIMS, PROPOSALS, SGD
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.cli import app
from openrepro.identity import register
from openrepro.identity.teams import set_team
from openrepro.judge.service import judge_logbooks
from openrepro.outcomes import claim_consensus, paper_outcomes
from openrepro.papers import PaperRecord, import_papers

MODEL = "Qwen/Qwen2.5-72B-Instruct"
#: what the model answers per claim (a phrase of the quote -> its reply)
REPLIES = {
    "is at most 0.01": {"relation": "bound", "subject": "gap", "comparator": "le",
                        "number": "0.01", "direction": "lower"},
    "lower optimality gap than the last iterate": {
        "relation": "ordering", "subject": "averaged", "baselines": ["last"],
        "direction": "lower"},
    # wrong on purpose: the claim says the gap DEcreases
    "decreases as the number of steps grows": {
        "relation": "trend", "subject": "gap", "trend": "increasing", "sweep": "steps"},
}  # fmt: skip
#: the participant's checks: the bound as the model drafted it (its tolerance stated), the
#: ordering as drafted, and the trend read right (so it disagrees with the model's)
AGENT = {
    "t1/C1": {**PROPOSALS["t1/C1"], "tolerance": {"rel": 0}},
    "t1/C2": PROPOSALS["t1/C2"],
    "t1/C3": PROPOSALS["t1/C3"],
}


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
    register(ctx, "ana")
    set_team(ctx, "ana", "red")  # an organizer confirmed the team when it registered
    register(ctx, "solo")  # registered by an organizer, in no team
    try:
        yield ctx
    finally:
        ctx.close()


def test_drafts_confirmed_by_a_participant_and_the_queue_resolved_count(
    theory: ChallengeContext, tmp_path: Path
) -> None:
    runner = CliRunner()
    folder = tmp_path / "ch"

    def cli(*args: str, env: dict[str, str] | None = None) -> str:
        result = runner.invoke(app, ["--dir", str(folder), *args], env=env)
        assert result.exit_code == 0, result.output
        return result.stdout

    with DraftingServer(MODEL, REPLIES) as server:
        env = {"OPENREPRO_LLM_URL": server.url, "OPENREPRO_LLM_MODEL": MODEL}
        report = json.loads(cli("claims", "check", "draft", "--all", "--llm", "--format",
                                "json", env=env))  # fmt: skip
        assert (report["pending"], report["drafted"], report["none"]) == (4, 3, 1)
        assert report["prompt_tokens"] == 4 * 900 and report["failed"] == []
        # interrupted or not, a second run has nothing left to ask
        again = cli("claims", "check", "draft", "--all", "--llm", env=env)
        assert again.startswith("0 drafts")
        assert server.count("/v1/chat/completions") == 4
    drafted = json.loads(cli("claims", "check", "show", "t1/C1", "--format", "json"))
    assert drafted["origin"] == "llm" and drafted["rule"] == "llm"

    # a participant without proposals is judged under the drafted checks: shown, not counted
    solo = tmp_path / "solo"
    solo_pages = json.loads(cli("pull", "t1", "--dir", str(solo), "--format", "json"))["pages"]
    (solo / "sgd.py").write_text(SGD, encoding="utf-8")
    _trackio(solo, "logbook", "run", "--page", solo_pages["t1/C1"], "--", sys.executable,
             "sgd.py")  # fmt: skip
    said = cli("submit", str(solo), "--as", "solo")
    assert said.count("[a model's draft: provisional until an independent drafter agrees]") == 3
    under_drafts = {r.claim_id: r for r in judge_logbooks(theory, None).verdicts}
    for claim in ("t1/C1", "t1/C2"):
        assert under_drafts[claim].verdict == "verified", under_drafts[claim]
    for claim in ("t1/C1", "t1/C2", "t1/C3"):
        assert "provisional" in under_drafts[claim].flags
        assert "a model's drafted check" in under_drafts[claim].rationale
    assert under_drafts["t1/C3"].verdict == "falsified"  # the wrong draft, counted nowhere
    consensus = {c.key: c.consensus for c in claim_consensus(theory)}
    assert set(consensus.values()) == {"inconclusive"}

    # the participant pulls: the workspace shows each drafted check as provisional
    ws = tmp_path / "ws"
    pages = json.loads(cli("pull", "t1", "--dir", str(ws), "--format", "json"))["pages"]
    claims_md = (ws / "CLAIMS.md").read_text(encoding="utf-8")
    assert claims_md.count("drafted by a model, provisional") == 3
    for claim, check in AGENT.items():
        cli("check", "propose", claim, "--json", json.dumps(check), "--dir", str(ws))
    (ws / "sgd.py").write_text(SGD, encoding="utf-8")
    _trackio(ws, "logbook", "run", "--page", pages["t1/C1"], "--", sys.executable, "sgd.py")
    submitted = json.loads(cli("submit", str(ws), "--as", "ana", "--format", "json"))
    statuses = {p["claim"]: p["status"] for p in submitted["proposals"]}
    # the two that match the model's drafts confirm them; the trend disagrees
    assert statuses == {"t1/C1": "confirmed", "t1/C2": "confirmed", "t1/C3": "stored"}
    for claim in ("t1/C1", "t1/C2"):
        shown = json.loads(cli("claims", "check", "show", claim, "--format", "json"))
        assert shown["origin"] == "confirmed" and "ana, team red" in shown["note"]

    first = {(r.participant, r.claim_id): r for r in judge_logbooks(theory, None).verdicts}
    for who in ("ana", "solo"):  # the confirmed checks judge every logbook, and count
        for claim in ("t1/C1", "t1/C2"):
            row = first[(who, claim)]
            assert row.verdict == "verified" and "provisional" not in row.flags, row
    assert "provisional" in first[("ana", "t1/C3")].flags  # under ana's own proposal
    consensus = {c.key: c.consensus for c in claim_consensus(theory)}
    assert consensus == {"C1": "verified", "C2": "verified", "C3": "inconclusive",
                         "C4": "inconclusive"}  # fmt: skip

    # the organizer's queue: the trend the drafters disagree on, the proof nobody drafted
    queue = json.loads(cli("claims", "check", "queue", "--format", "json"))
    assert [(q["claim"], q["reason"]) for q in queue] == [
        ("t1/C3", "2 drafts disagree"), ("t1/C4", "nobody drafted a check")
    ]  # fmt: skip
    words = {d["source"]: d["description"] for d in queue[0]["drafts"]}
    assert "increasing" in words["draft"] and "decreasing" in words["proposal"]
    text = cli("claims", "check", "queue")
    assert "2 drafts disagree" in text and "nobody drafted a check" in text
    proposal = next(d["id"] for d in queue[0]["drafts"] if d["source"] == "proposal")
    cli("claims", "check", "accept", str(proposal))
    cli("claims", "check", "human", "t1/C4", "--reason", "a proof: people read it")
    assert json.loads(cli("claims", "check", "queue", "--format", "json")) == []

    # judged again (on the board the judge queue does this by itself): every verdict counts
    second = {(r.participant, r.claim_id): r for r in judge_logbooks(theory, None).verdicts}
    for who in ("ana", "solo"):
        row = second[(who, "t1/C3")]
        assert row.verdict == "verified" and "provisional" not in row.flags, row
    consensus = {c.key: c.consensus for c in claim_consensus(theory)}
    assert consensus == {"C1": "verified", "C2": "verified", "C3": "verified",
                         "C4": "inconclusive"}  # fmt: skip
    [outcome] = paper_outcomes(theory)
    assert outcome.partially_reproduced and not outcome.fully_reproduced
