"""Checks drafted in bulk by models on SQLite and PostgreSQL: each draft stored with its model,
family, prompt version, tokens and seconds; provisional until an independent drafter agrees (a
model of another family, a participant of a confirmed team); never over a trusted check; the
organizers' queue of disagreements and undrafted claims, and its actions.

The models are the real OpenAI-compatible backend talking to scripted local servers
(tests/claims/drafting_server.py): what is tested is what CODE does with known replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from drafting_server import DraftingServer
from sqlalchemy import select
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext, init_challenge, open_challenge
from openrepro.claims import add_claim
from openrepro.claims.checks import Check
from openrepro.claims.checks.llm_draft import PROMPT_VERSION
from openrepro.claims.drafts import (
    accept_draft,
    accept_from_queue,
    draft_all,
    mark_human,
    model_family,
    organizer_queue,
)
from openrepro.claims.proposals import effective_check, propose_check
from openrepro.claims.service import get_claim, redraft_checks, set_check
from openrepro.cli import app
from openrepro.errors import CheckError, NotFoundError
from openrepro.identity import register
from openrepro.identity.teams import set_team
from openrepro.llm import LLMClient
from openrepro.llm.openai_backend import OpenAIBackend
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim, Participant
from openrepro.store.tables_checks import CheckDraft

ABSTRACT = (
    "We analyse averaged SGD. The optimality gap after T steps is at most 0.05 on every convex "
    "instance we tried. The averaged iterate has a lower gap than the last iterate. "
    "Our proof extends to every smooth strongly convex objective."
)
QUOTES = (
    "The optimality gap after T steps is at most 0.05",
    "The averaged iterate has a lower gap than the last iterate",
    "Our proof extends to every smooth strongly convex objective",
)
BOUND = {"relation": "bound", "subject": "gap", "comparator": "le", "number": "0.05",
         "direction": "lower"}  # fmt: skip
ORDER = {"relation": "ordering", "subject": "averaged", "baselines": ["last"],
         "direction": "lower"}  # fmt: skip
#: the same orderings as participants write them (the model's bound has no tolerance)
BOUND_PROPOSAL = {"relation": "bound", "subject": "opt_gap", "quantities": [{"name": "opt_gap"}],
                  "comparator": "le", "constant": {"value": 0.05, "text": "0.05"},
                  "direction": "lower", "tolerance": {"rel": 0.0}}  # fmt: skip
ORDER_PROPOSAL = {"relation": "ordering", "subject": "averaged", "baselines": ["last"],
                  "quantities": [{"name": "averaged"}, {"name": "last"}],
                  "direction": "lower"}  # fmt: skip
FLIPPED = {**ORDER, "subject": "last", "baselines": ["averaged"]}


@pytest.fixture
def theory(challenge: ChallengeContext) -> ChallengeContext:
    paper = PaperRecord(venue_id="t1", title="Averaged SGD", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="test")
    with challenge.store.session() as s:
        for quote in QUOTES:
            view = add_claim(s, challenge.challenge_id, "t1", text=quote, kind="theory",
                             quotes=[quote], editor="org", drafting="off")  # fmt: skip
            assert view.check is None
    for handle, team in (("ana", "red"), ("bo", "blue")):
        register(challenge, handle)
        set_team(challenge, handle, team)  # by an organizer: confirmed
    register(challenge, "solo")
    return challenge


def _server(model: str, replies: dict[str, dict[str, Any]]) -> Iterator[DraftingServer]:
    with DraftingServer(model, replies) as server:
        yield server


@pytest.fixture
def qwen() -> Iterator[DraftingServer]:
    yield from _server("Qwen/Qwen2.5-72B-Instruct",
                       {"at most 0.05": BOUND, "lower gap than": ORDER})  # fmt: skip


@pytest.fixture
def llama() -> Iterator[DraftingServer]:
    yield from _server("meta-llama/Llama-3.3-70B-Instruct",
                       {"at most 0.05": BOUND, "lower gap than": FLIPPED})  # fmt: skip


def _client(server: DraftingServer, ctx: ChallengeContext, concurrency: int = 4) -> LLMClient:
    backend = OpenAIBackend(server.url, model=server.model, concurrency=concurrency)
    return LLMClient(backend, store=ctx.store, max_tokens=384)


def _drafts(ctx: ChallengeContext) -> list[CheckDraft]:
    with ctx.store.session() as s:
        rows = list(s.scalars(select(CheckDraft).order_by(CheckDraft.id)))
        s.expunge_all()
    return rows


def test_model_families_tell_independent_drafters_apart() -> None:
    assert model_family("Qwen/Qwen2.5-72B-Instruct") == "qwen"
    assert model_family("meta-llama/Llama-3.3-70B-Instruct") == "llama"
    assert model_family("gpt-4o") == "gpt" and model_family("") == "model"


def test_bulk_drafting_stores_provisional_drafts_and_resumes(
    theory: ChallengeContext, qwen: DraftingServer
) -> None:
    client = _client(qwen, theory)
    seen: list[str] = []
    report = draft_all(theory.store, theory.challenge_id, [client],
                       progress=lambda o: seen.append(o.claim))  # fmt: skip
    assert report.pending == 3 and sorted(seen) == ["t1/C1", "t1/C2", "t1/C3"]
    assert (report.drafted, report.none, report.confirmed) == (2, 1, 0)
    assert report.prompt_tokens == 3 * 900 and report.completion_tokens == 3 * 60
    by_claim = {o.claim: o for o in report.outcomes}
    assert by_claim["t1/C1"].prompt_tokens == 900 and by_claim["t1/C1"].seconds > 0
    assert "0.05" in by_claim["t1/C1"].check and by_claim["t1/C3"].status == "none"
    rows = _drafts(theory)
    assert {r.drafter for r in rows} == {"model:Qwen/Qwen2.5-72B-Instruct"}
    assert {r.family for r in rows} == {"qwen"} and {r.prompt_version for r in rows} == {
        PROMPT_VERSION
    }
    assert [r.status for r in rows if r.check is None] == ["none"]
    with theory.store.session() as s:
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "llm"  # drafted, not confirmed
        check, provisional = effective_check(claim, None)
        assert check is not None and provisional  # shown, counted nowhere
        none, _ = get_claim(s, theory.challenge_id, "t1/C3")
        assert none.check is None
    # the rules never replace a model's drafted check, even when told to redraft theirs
    with theory.store.session() as s:
        redraft_checks(s, theory.challenge_id, None, editor="org", replace=True, drafting="rules")
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "llm"
    # resumable: a second run asks the model nothing (every claim is drafted by this model)
    calls = qwen.count("/v1/chat/completions")
    again = draft_all(theory.store, theory.challenge_id, [_client(qwen, theory)])
    assert again.pending == 0 and again.outcomes == []
    assert qwen.count("/v1/chat/completions") == calls


def test_an_interrupted_run_drafts_only_what_is_left(
    theory: ChallengeContext, qwen: DraftingServer
) -> None:
    first = draft_all(theory.store, theory.challenge_id, [_client(qwen, theory, 1)], limit=1)
    assert first.pending == 1 and len(first.outcomes) == 1
    rest = draft_all(theory.store, theory.challenge_id, [_client(qwen, theory)])
    assert rest.pending == 2
    assert sorted(o.claim for o in [*first.outcomes, *rest.outcomes]) == [
        "t1/C1", "t1/C2", "t1/C3"
    ]  # fmt: skip
    assert len(_drafts(theory)) == 3  # no claim drafted twice


def test_a_panel_of_two_families_confirms_what_both_draft_and_queues_the_rest(
    theory: ChallengeContext, qwen: DraftingServer, llama: DraftingServer
) -> None:
    report = draft_all(theory.store, theory.challenge_id,
                       [_client(qwen, theory), _client(llama, theory)])  # fmt: skip
    assert report.confirmed == 1
    with theory.store.session() as s:
        bound, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert bound.check is not None and bound.check["origin"] == "confirmed"
        assert "confirmed by agreement" in bound.check["note"]
        assert "Qwen" in bound.check["note"] and "Llama" in bound.check["note"]
        check, provisional = effective_check(bound, None)
        assert check is not None and not provisional  # it counts
        order, _ = get_claim(s, theory.challenge_id, "t1/C2")
        assert order.check is not None and order.check["origin"] == "llm"  # still a draft
        assert order.check["subject"] == "averaged"  # the first draft stays the drafted check
        queue = {item.claim: item for item in organizer_queue(s, theory.challenge_id)}
    assert set(queue) == {"t1/C2", "t1/C3"}
    assert queue["t1/C2"].reason == "2 drafts disagree"
    words = [d.description for d in queue["t1/C2"].drafts]
    assert any(w.startswith("averaged lower than last") for w in words)
    assert any(w.startswith("last lower than averaged") for w in words)
    assert queue["t1/C3"].reason == "nobody drafted a check"
    assert len(queue["t1/C3"].abstained) == 2
    confirmed = [r for r in _drafts(theory) if r.status == "confirmed"]
    assert {r.family for r in confirmed} == {"qwen", "llama"}
    assert all(r.confirmed_by.startswith("draft:") for r in confirmed)


def test_two_models_of_one_family_do_not_confirm_each_other(theory: ChallengeContext) -> None:
    replies = {"at most 0.05": BOUND}
    with DraftingServer("Qwen/Qwen2.5-7B", replies) as small, \
            DraftingServer("Qwen/Qwen2.5-72B", replies) as large:  # fmt: skip
        report = draft_all(theory.store, theory.challenge_id,
                           [_client(small, theory), _client(large, theory)])  # fmt: skip
    assert report.confirmed == 0
    with theory.store.session() as s:
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "llm"


def _person(s: Any, handle: str) -> Participant:
    row = s.scalar(select(Participant).where(Participant.handle == handle))
    assert row is not None
    return row


def test_a_confirmed_teams_equivalent_proposal_confirms_the_models_draft(
    theory: ChallengeContext, qwen: DraftingServer
) -> None:
    draft_all(theory.store, theory.challenge_id, [_client(qwen, theory)])
    with theory.store.session() as s:
        solo, ana, bo = _person(s, "solo"), _person(s, "ana"), _person(s, "bo")
        # no confirmed team: stored, confirms nothing
        alone = propose_check(s, theory.challenge_id, solo, "t1/C1", BOUND_PROPOSAL)
        assert alone.status == "stored"
        # the reverse ordering by a confirmed team does not match the draft
        flipped = {**ORDER_PROPOSAL, "subject": "last", "baselines": ["averaged"]}
        assert propose_check(s, theory.challenge_id, bo, "t1/C2", flipped).status == "stored"
        # the same bound under another name, from a confirmed team: confirmed
        agreed = propose_check(s, theory.challenge_id, ana, "t1/C1", BOUND_PROPOSAL)
        assert agreed.status == "confirmed"
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "confirmed"
        # the earlier draft's text (the model's "gap") is installed, never the newcomer's
        assert claim.check["subject"] == "gap"
        assert "ana, team red" in claim.check["note"]
        order, _ = get_claim(s, theory.challenge_id, "t1/C2")
        assert order.check is not None and order.check["origin"] == "llm"
    draft = next(r for r in _drafts(theory) if r.status == "confirmed")
    assert draft.confirmed_by.startswith("proposal:") and "team red" in draft.confirmed_by


def test_agreement_never_replaces_an_organizers_check(
    theory: ChallengeContext, qwen: DraftingServer, llama: DraftingServer
) -> None:
    organizer = Check.from_json({"relation": "bound", "subject": "gap", "comparator": "lt",
                                 "quantities": [{"name": "gap"}],
                                 "constant": {"value": 0.05, "text": "0.05"}})  # fmt: skip
    with theory.store.session() as s:
        set_check(s, theory.challenge_id, "t1/C1", organizer, editor="org", reason="curated")
    report = draft_all(theory.store, theory.challenge_id,
                       [_client(qwen, theory), _client(llama, theory)])  # fmt: skip
    assert "t1/C1" not in {o.claim for o in report.outcomes}  # a trusted check is not drafted
    with theory.store.session() as s:
        ana = _person(s, "ana")
        propose_check(s, theory.challenge_id, ana, "t1/C1", BOUND_PROPOSAL)
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "organizer"
        assert claim.check["comparator"] == "lt"


def test_the_organizer_resolves_the_queue_in_one_action(
    theory: ChallengeContext, qwen: DraftingServer, llama: DraftingServer
) -> None:
    draft_all(theory.store, theory.challenge_id, [_client(qwen, theory), _client(llama, theory)])
    with theory.store.session() as s:
        [item] = [i for i in organizer_queue(s, theory.challenge_id) if i.claim == "t1/C2"]
        right = next(d for d in item.drafts if d.description.startswith("averaged lower"))
        assert accept_from_queue(s, theory.challenge_id, "draft", right.id,
                                 editor="org") == "t1/C2"  # fmt: skip
        claim, _ = get_claim(s, theory.challenge_id, "t1/C2")
        assert claim.check is not None and claim.check["origin"] == "organizer"
        assert claim.check["note"].startswith(f"accepted by organizer org (draft {right.id} by ")
        check, provisional = effective_check(claim, None)
        assert check is not None and not provisional
        assert mark_human(s, theory.challenge_id, "t1/C3", editor="org",
                          reason="a proof: people read it") == "t1/C3"  # fmt: skip
        human, _ = get_claim(s, theory.challenge_id, "t1/C3")
        assert human.check is not None and human.check["relation"] == "human"
        assert organizer_queue(s, theory.challenge_id) == []  # nothing left to resolve
        with pytest.raises(NotFoundError):
            accept_draft(s, theory.challenge_id, 999, editor="org")
        none = next(r for r in s.scalars(select(CheckDraft)) if r.check is None)
        with pytest.raises(CheckError, match="holds no check"):
            accept_draft(s, theory.challenge_id, none.id, editor="org")


def test_claims_extract_with_an_endpoint_drafts_the_checks_in_the_same_pass(
    tmp_path: Path,
) -> None:
    """SQLite only: the command line, one path."""
    ctx = init_challenge(tmp_path / "ch", "test", venue="Test/2026",
                         database_url=f"sqlite:///{tmp_path / 'store.db'}")  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id,
                  [PaperRecord(venue_id="t1", title="Averaged SGD", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    ctx.close()
    extraction = {"claims": [
        {"claim": "The gap is at most 0.05.", "sentences": [2], "kind": "theory"},
        {"claim": "Averaging beats the last iterate.", "sentences": [3], "kind": "theory"},
    ]}  # fmt: skip
    with DraftingServer("Qwen/Qwen2.5-72B-Instruct", {"at most 0.05": BOUND},
                        extraction=extraction) as server:  # fmt: skip
        env = {"OPENREPRO_LLM_URL": server.url, "OPENREPRO_LLM_MODEL": server.model}
        result = CliRunner().invoke(app, ["--dir", str(tmp_path / "ch"), "claims", "extract",
                                          "--all"], env=env)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "checks drafted by the model: 1 of 2 claims" in result.stdout
    assert "tokens and" in result.stdout and "per claim" in result.stdout
    ctx = open_challenge(tmp_path / "ch")
    try:
        rows = _drafts(ctx)
        assert sorted(r.status for r in rows) == ["drafted", "none"]
        with ctx.store.session() as s:
            claims = {c.text: c.check for c in s.scalars(select(Claim))}
        assert claims["The gap is at most 0.05."]["origin"] == "llm"  # type: ignore[index]
        assert claims["Averaging beats the last iterate."] is None
    finally:
        ctx.close()
