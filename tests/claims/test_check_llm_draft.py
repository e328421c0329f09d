"""LLM drafting: code validates and grounds whatever the model proposes.

The schema checks run on hand-written replies (the validation is code, no model needed); the
embedded-model test asserts only the validation behaviour, never that the tiny model is right.
"""

from __future__ import annotations

from openrepro.claims.checks import (
    LLMCheckDraft,
    LLMCheckPart,
    Origin,
    Relation,
    check_from_llm,
    draft_check_llm,
    draft_with_fallback,
    grounding_problems,
)
from openrepro.llm import LLMClient
from openrepro.llm.embedded import EmbeddedBackend

QUOTE = "APT converged about 8x faster than the LoRA+Prune baseline"


def test_a_valid_reply_becomes_a_grounded_llm_check() -> None:
    reply = LLMCheckDraft(
        relation="ratio",
        subject="APT speed",
        baselines=["LoRA+Prune speed"],
        comparator="eq",
        number="8x",
        direction="higher",
    )
    draft = check_from_llm(reply, QUOTE)
    assert draft.check is not None, draft.reason
    assert draft.check.origin is Origin.llm
    assert draft.check.subject == "apt_speed" and draft.check.baselines == ["lora_prune_speed"]
    assert draft.check.constant is not None and draft.check.constant.value == 8  # read by code


def test_a_number_not_in_the_quote_is_no_check() -> None:
    reply = LLMCheckDraft(relation="ratio", subject="apt", baselines=["lora"], number="9x")
    draft = check_from_llm(reply, QUOTE)
    assert draft.check is None and "not grounded" in draft.reason


def test_an_inconsistent_reply_is_no_check() -> None:
    no_baseline = LLMCheckDraft(relation="ratio", subject="apt", number="8x")
    assert "needs a baseline" in check_from_llm(no_baseline, QUOTE).reason
    no_number = LLMCheckDraft(relation="bound", subject="apt", comparator="ge")
    assert "needs a constant" in check_from_llm(no_number, QUOTE).reason
    bad_name = LLMCheckDraft(relation="ordering", subject="123", baselines=["lora"])
    assert check_from_llm(bad_name, QUOTE).check is None
    two_numbers = LLMCheckDraft(relation="bound", subject="a", comparator="ge", number="8x 9")
    assert "not one number" in check_from_llm(two_numbers, QUOTE).reason


def test_quantified_replies_nest_the_relation() -> None:
    reply = LLMCheckDraft(
        relation="bound",
        quantifier="for_all",
        subject="ppo_reward",
        comparator="lt",
        number="12,000",
    )
    draft = check_from_llm(reply, "The performance of PPO for all batch sizes was below 12,000.")
    assert draft.check is not None and draft.check.relation is Relation.for_all
    assert draft.check.inner is not None and draft.check.inner.constant is not None
    assert draft.check.inner.constant.value == 12000


def test_embedded_model_drafts_only_validated_checks(embedded_backend: EmbeddedBackend) -> None:
    client = LLMClient(embedded_backend, max_tokens=256)
    quotes = [
        "The recorded metrics show that SMM roughly has a 6% (absolute) improvement over the "
        "next best input reprogramming method when using ResNet-18 on the SVHN dataset",
        "Including the nine predator measurements reduces the uncertainty in the posterior",
    ]
    for quote in quotes:
        draft = draft_check_llm(quote, client, claim_id="p1/C1")
        assert draft.rule == "llm"
        if draft.check is None:
            assert draft.reason  # a failure says why; it is never a guess
        else:
            assert draft.check.origin is Origin.llm
            assert grounding_problems(draft.check, quote) == []
            assert all(q.key.startswith("claims/p1/C1/") for q in draft.check.all_quantities())
    assert client.usage.calls >= len(quotes)
    # rules first: a phrasing the rules know never reaches the model
    calls = client.usage.calls
    ruled = draft_with_fallback("FOA has lower accuracy than TENT.", client)
    assert ruled.check is not None and ruled.check.origin is Origin.rules
    assert client.usage.calls == calls
    # nor does a claim the rules settle as one no check states (a theorem, a rate)
    settled = draft_with_fallback("Theorem 3 proves the regret is O(sqrt(T)).", client)
    assert settled.check is None and settled.settled and client.usage.calls == calls


VERSUS = "On ArcBench, GridFormer reaches 61.4% accuracy versus 48.2% for TileNet."


def test_a_reply_with_several_parts_is_a_conjunction() -> None:
    reply = LLMCheckDraft(
        relation="equal",
        subject="gridformer accuracy",
        number="61.4%",
        direction="higher",
        also=[
            LLMCheckPart(relation="equal", subject="tilenet accuracy", number="48.2%"),
        ],
    )
    draft = check_from_llm(reply, VERSUS)
    assert draft.check is not None, draft.reason
    assert draft.check.relation is Relation.all_of
    assert [p.subject for p in draft.check.parts] == ["gridformer_accuracy", "tilenet_accuracy"]


def test_a_reply_that_leaves_out_a_reported_number_is_refused() -> None:
    one_side = LLMCheckDraft(relation="equal", subject="gridformer", number="61.4%")
    draft = check_from_llm(one_side, VERSUS)
    assert draft.check is None and "48.2%" in draft.reason and "refused" in draft.reason
    dropped = LLMCheckDraft(relation="ordering", subject="decoder_latency", baselines=["prior"])
    across = "The cached decoder has lower latency than the prior decoder across four datasets."
    refused = check_from_llm(dropped, across)
    assert refused.check is None and "not enumerated" in refused.reason


def test_a_reply_that_finds_no_check_says_why() -> None:
    reply = LLMCheckDraft(relation="none", reason="describes the architecture")
    draft = check_from_llm(reply, "The encoder shares weights across the two towers.")
    assert draft.check is None and "describes the architecture" in draft.reason
