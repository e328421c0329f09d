"""LLM drafting: code validates and grounds whatever the model proposes.

The schema checks run on hand-written replies (the validation is code, no model needed); the
embedded-model test asserts only the validation behaviour, never that the tiny model is right.
"""

from __future__ import annotations

from openrepro.claims.checks import (
    LLMCheckDraft,
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
