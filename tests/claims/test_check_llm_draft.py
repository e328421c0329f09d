"""LLM drafting: code validates and grounds whatever the model proposes.

The schema checks run on hand-written replies (the validation is code, no model needed); the
embedded-model test asserts only the validation behaviour, never that the tiny model is right.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI, completion

from openrepro.claims.checks import (
    LLMCheckDraft,
    LLMCheckPart,
    Origin,
    Relation,
    check_from_llm,
    draft_check,
    draft_check_llm,
    draft_with_fallback,
    grounding_problems,
)
from openrepro.claims.checks.llm_draft import PROMPT_VERSION, model_may_draft
from openrepro.claims.checks.records import GrowthLaw, Order, Trend
from openrepro.llm import LLMClient
from openrepro.llm.embedded import EmbeddedBackend
from openrepro.llm.openai_backend import OpenAIBackend

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
    client = LLMClient(embedded_backend, max_tokens=384)
    # one quote: a plumbing test (a v3 call costs ~20-35 s on a loaded CI core); what code does
    # with each kind of reply is tested above and below against scripted replies
    quotes = [
        "The recorded metrics show that SMM roughly has a 6% (absolute) improvement over the "
        "next best input reprogramming method when using ResNet-18 on the SVHN dataset",
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


# -- check-draft-v3: rates, identities, the exponential law, counted and named quantifiers --------
# The model is the real OpenAI-compatible backend talking to the scripted local server of
# tests/llm/fake_openai.py: each reply is known, so these tests assert what CODE does with it
# (reads, validates, grounds, audits), never what a model would answer.

RATE = "The optimality gap of the averaged iterate decays as O(1/T)."
IDENTITY = (
    "The two formulations define the same distribution: their densities agree to within 1e-12."
)
COUNTED = "The agent reaches at least 90% success in 9 of 10 tasks."
NAMED = "SMM outperforms the linear probe on CIFAR-10, SVHN and STL-10."


def _served(server: FakeOpenAI, *replies: dict[str, object]) -> LLMClient:
    server.script(*(completion(json.dumps(reply)) for reply in replies))
    return LLMClient(OpenAIBackend(server.url, model="drafter"), store=None, max_tokens=384)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def test_a_served_rate_reply_becomes_a_rate_check_read_by_code(server: FakeOpenAI) -> None:
    reply = {"relation": "rate", "subject": "optimality gap", "order": "O", "exponent": "O(1/T)"}
    draft = draft_check_llm(RATE, _served(server, reply), claim_id="p1/C3")
    check = draft.check
    assert check is not None, draft.reason
    assert check.relation is Relation.rate and check.origin is Origin.llm
    assert check.rate is not None and check.rate.order is Order.O
    assert check.rate.symbol == "T" and check.sweep == "T"
    assert check.rate.exponent.value == -1  # read by code from "O(1/T)", never by the model
    assert check.quantities[0].key == "claims/p1/C3/optimality_gap"
    (body,) = server.chat_bodies()
    assert PROMPT_VERSION == "check-draft-v4" and '"rate"' in body["messages"][0]["content"]


def test_a_rate_whose_expression_is_not_the_claims_is_refused(server: FakeOpenAI) -> None:
    client = _served(
        server,
        {"relation": "rate", "subject": "gap", "order": "O", "exponent": "O(1/T^2)"},
        {"relation": "rate", "subject": "gap", "order": "Theta", "exponent": "O(1/T)"},
        {"relation": "rate", "subject": "gap", "order": "O", "exponent": "fast"},
        {"relation": "rate", "subject": "gap", "order": "Omega", "exponent": "1/T"},
    )
    faster = draft_check_llm(RATE, client)
    assert faster.check is None and "not grounded" in faster.reason and "O(1/T^2)" in faster.reason
    other_order = draft_check_llm(RATE, client)
    assert other_order.check is None and "not an order Theta" in other_order.reason
    words = draft_check_llm(RATE, client)
    assert words.check is None and "not a power of a variable" in words.reason
    inside = draft_check_llm(RATE, client)  # "1/T" is copied from the claim's "O(1/T)"
    assert inside.check is None and "writes 'O(1/T)', not an order Omega" in inside.reason


def test_a_served_identity_takes_its_tolerance_from_the_quote(server: FakeOpenAI) -> None:
    client = _served(
        server,
        {"relation": "identity", "subject": "density a", "baselines": ["density b"],
         "number": "1e-12"},
        {"relation": "identity", "subject": "max error", "number": "1e-9"},
    )  # fmt: skip
    draft = draft_check_llm(IDENTITY, client)
    assert draft.check is not None, draft.reason
    assert draft.check.relation is Relation.identity and draft.check.baselines == []
    assert draft.check.subject == "density_a_minus_density_b"  # the residual of the two
    assert draft.check.identity_tolerance() == 1e-12
    invented = draft_check_llm(IDENTITY, client)
    assert (
        invented.check is None and "'1e-9'" in invented.reason and "not stated" in invented.reason
    )


def test_a_served_exponential_law_reads_its_base(server: FakeOpenAI) -> None:
    quote = "The number of reachable states grows as 2^H in the horizon H."
    reply = {"relation": "growth", "law": "exponential", "subject": "reachable states",
             "number": "2^H", "sweep": "horizon"}  # fmt: skip
    draft = draft_check_llm(quote, _served(server, reply))
    assert draft.check is not None, draft.reason
    assert draft.check.law is GrowthLaw.exponential and draft.check.sweep == "horizon"
    assert draft.check.constant is not None and draft.check.constant.value == 2
    decay = "The residual error decays exponentially in the number of sweeps."
    reply = {"relation": "growth", "law": "exponential", "trend": "decreasing",
             "subject": "residual error", "number": "0.5", "sweep": "sweeps"}  # fmt: skip
    invented = draft_check_llm(decay, _served(server, reply))  # a base the claim never states
    assert invented.check is None and "'0.5'" in invented.reason
    reply["number"] = ""
    decays = draft_check_llm(decay, _served(server, reply))
    assert decays.check is not None and decays.check.trend is Trend.decreasing


def test_a_served_counted_quantifier_is_9_of_10(server: FakeOpenAI) -> None:
    inner = {"relation": "bound", "subject": "success", "comparator": "ge", "number": "90%"}
    client = _served(
        server,
        {**inner, "quantifier": "for_all", "over": "task", "count": "10", "at_least": "9"},
        {**inner, "quantifier": "for_all", "over": "task", "count": "90", "at_least": "9"},
        {**inner, "quantifier": "for_all", "over": "task", "count": "10", "at_least": "11"},
        inner,  # the quantifier dropped: the audit refuses it
    )
    draft = draft_check_llm(COUNTED, client)
    check = draft.check
    assert check is not None, draft.reason
    assert check.relation is Relation.for_all and check.sweep == "task"
    assert check.count is not None and check.count.value == 10
    assert check.at_least is not None and check.at_least.value == 9
    assert check.inner is not None and check.inner.constant is not None
    assert check.inner.constant.value == 90
    misread = draft_check_llm(COUNTED, client)  # "90" is the 90% of the claim, not a count
    assert misread.check is None and "does not write '9' of '90'" in misread.reason
    more = draft_check_llm(COUNTED, client)
    assert more.check is None and "'11' of '10'" in more.reason
    dropped = draft_check_llm(COUNTED, client)
    assert dropped.check is None and "refused" in dropped.reason


def test_a_served_quantifier_over_named_settings_is_grounded(server: FakeOpenAI) -> None:
    ordering = {"relation": "ordering", "subject": "smm accuracy",
                "baselines": ["linear probe accuracy"], "direction": "higher"}  # fmt: skip
    client = _served(
        server,
        {**ordering, "quantifier": "for_all", "over": "dataset",
         "labels": ["CIFAR-10", "SVHN", "STL-10"], "count": ""},
        {**ordering, "quantifier": "for_all", "labels": ["CIFAR-10", "SVHN", "ImageNet"]},
        {**ordering, "quantifier": "for_all", "labels": ["CIFAR-10", "SVHN"], "count": "3"},
    )  # fmt: skip
    draft = draft_check_llm(NAMED, client)
    assert draft.check is not None, draft.reason
    assert draft.check.labels == ["CIFAR-10", "SVHN", "STL-10"]
    unnamed = draft_check_llm(NAMED, client)
    assert unnamed.check is None and "'ImageNet' is not named in the quote" in unnamed.reason
    uncounted = draft_check_llm(NAMED, client)  # "3" is not in the claim
    assert uncounted.check is None and "count '3' is not written" in uncounted.reason


@pytest.mark.parametrize(
    ("quote", "asked"),
    [
        (RATE, True),  # a rate: the language states it
        ("The gap decays like 1/k^2 in k.", True),  # a formula with an exponent
        (COUNTED, True),  # a counted quantifier
        ("Theorem 3 proves the regret is O(sqrt(T)).", False),  # a theorem's statement
        ("Our method ranks first on average.", False),  # a rank
        ("It improves accuracy by up to 5% over LoRA.", False),  # a maximum over settings
    ],
)
def test_the_model_is_asked_for_settled_kinds_the_language_states(
    server: FakeOpenAI, quote: str, asked: bool
) -> None:
    rules = draft_check(quote)
    assert rules.check is None and rules.settled  # the table matches the rules' reasons
    assert model_may_draft(rules) is asked
    client = _served(server, {"relation": "none", "reason": "scripted"})
    draft = draft_with_fallback(quote, client, claim_id="p1/C1")
    assert server.count("/v1/chat/completions") == (1 if asked else 0)
    assert draft.check is None and draft.reason.startswith("rules: " if asked else "no check")


def test_the_fallback_drafts_a_rate_the_rules_settle(server: FakeOpenAI) -> None:
    reply = {"relation": "rate", "subject": "gap", "order": "Theta", "exponent": "1/k^2"}
    quote = "The gap decays like 1/k^2 in k."
    draft = draft_with_fallback(quote, _served(server, reply), claim_id="p1/C2", gate=True)
    assert draft.check is not None, draft.reason
    assert draft.check.rate is not None and draft.check.rate.exponent.value == -2
    assert draft.check.rate.order is Order.Theta and draft.check.sweep == "k"


# -- check-draft-v4 is frozen: recorded answers (bench/replay_llm.py) are keyed by this hash -------

#: request_sha256 of the v4 messages and schema for QUOTE; a change of the prompt text, of the
#: schema's fields, types or docstrings changes it: bump the prompt version (a new file) instead
V4_REQUEST_SHA256 = "40f285ba487cb186a86eb177ccd4027261381a8886fb23d75ab224a7649d486f"


def test_the_v4_request_is_frozen() -> None:
    from openrepro.claims.checks.llm_draft import draft_messages
    from openrepro.llm import request_sha256

    messages = draft_messages(QUOTE)
    assert [m.role for m in messages] == ["system", "user"]
    assert request_sha256(messages, LLMCheckDraft.model_json_schema()) == V4_REQUEST_SHA256
