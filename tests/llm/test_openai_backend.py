"""The OpenAI-compatible backend against a scripted fake server, directly and via LLMClient.

:mod:`fake_openai` stands in for the server so that every failure is reproducible; what a real
server accepts is checked in ``test_llama_server.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fake_openai import (
    MODEL,
    FakeOpenAI,
    closed_port_url,
    completion,
    error,
    validation_error,
)
from pydantic import BaseModel, Field

from openrepro.config import Settings
from openrepro.errors import LLMAuthError, LLMError, LLMOutputError, LLMUnavailableError
from openrepro.llm import LLMClient, Message, make_backend
from openrepro.llm.openai_backend import OpenAIBackend
from openrepro.store import Store

SECRET = "sk-test-0123456789abcdef"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
MESSAGES = [
    Message(role="system", content="You answer in JSON."),
    Message(role="user", content="Is the sky blue?"),
]
GOOD = json.dumps({"answer": "yes", "confidence": 7})


class Verdict(BaseModel):
    answer: str = Field(max_length=50)
    confidence: int = Field(ge=0, le=10)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def settings_for(url: str, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "name": "t",
        "llm_url": url,
        "llm_model": MODEL,
        "llm_timeout": 5.0,
        "llm_retries": 1,
        **changes,
    }
    return Settings(**values)


@pytest.fixture
def make() -> Iterator[Any]:
    """Backends built from settings for a URL; closed after the test."""
    backends: list[OpenAIBackend] = []

    def build(url: str, **changes: Any) -> OpenAIBackend:
        backend = OpenAIBackend.from_settings(settings_for(url, **changes))
        backends.append(backend)
        return backend

    yield build
    for backend in backends:
        backend.close()


def generate(backend: OpenAIBackend, *, max_tokens: int = 64, seed: int = 3) -> Any:
    return backend.generate(
        MESSAGES, schema=SCHEMA, schema_name="Verdict", max_tokens=max_tokens, seed=seed
    )


# -- the backend on its own --------------------------------------------------------------------


def test_from_settings_and_factory(server: FakeOpenAI) -> None:
    settings = settings_for(server.url, llm_concurrency=7)
    backend = make_backend(settings)
    assert isinstance(backend, OpenAIBackend)
    assert (backend.name, backend.model, backend.concurrency) == ("openai", MODEL, 7)
    backend.close()


def test_request_body_and_reply(server: FakeOpenAI, make: Any) -> None:
    server.script(completion(GOOD, prompt_tokens=21, completion_tokens=9, model="served-name"))
    raw = generate(make(server.url), max_tokens=77, seed=5)
    assert raw.text == GOOD
    assert (raw.finish_reason, raw.prompt_tokens, raw.completion_tokens) == ("stop", 21, 9)
    assert (raw.model, raw.mode) == ("served-name", "json_schema")
    (body,) = server.chat_bodies()
    assert body["model"] == MODEL
    assert body["temperature"] == 0
    assert (body["seed"], body["max_tokens"]) == (5, 77)
    assert body["messages"] == [m.model_dump() for m in MESSAGES]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": SCHEMA, "strict": False},
    }


def test_missing_usage_and_content_are_zero_and_empty(server: FakeOpenAI, make: Any) -> None:
    server.script(completion(None, usage=False, finish_reason="length"))
    raw = generate(make(server.url))
    assert (raw.text, raw.finish_reason, raw.prompt_tokens, raw.completion_tokens) == (
        "",
        "length",
        0,
        0,
    )


def test_json_schema_rejected_falls_back_to_json_object_and_remembers(
    server: FakeOpenAI, make: Any
) -> None:
    server.reject("json_schema", error(400, "response_format type json_schema not supported"))
    server.script(completion(GOOD), completion(GOOD))
    backend = make(server.url)
    assert generate(backend).mode == "json_object"
    assert generate(backend).mode == "json_object"
    types = [b["response_format"]["type"] for b in server.chat_bodies()]
    assert types == ["json_schema", "json_object", "json_object"]
    assert server.chat_bodies()[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_fastapi_422_on_response_format_falls_back(server: FakeOpenAI, make: Any) -> None:
    """``llama_cpp.server`` validates ``response_format.type`` and answers 422."""
    server.reject(
        "json_schema",
        validation_error(["response_format", "type"], "Input should be 'text' or 'json_object'"),
    )
    server.script(completion(GOOD))
    assert generate(make(server.url)).mode == "json_object"


def test_llama_cpp_500_on_response_format_falls_back_without_retries(
    server: FakeOpenAI, make: Any
) -> None:
    """``llama_cpp.server`` wraps that 422 into a 500, which the client would otherwise retry."""
    rejection = error(
        500,
        "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
        "'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
        kind="internal_server_error",
    )
    rejection.headers.clear()  # no retry-after: a retry would wait 0.5 s or more
    server.reject("json_schema", rejection)
    server.script(completion(GOOD))
    assert generate(make(server.url, llm_retries=3)).mode == "json_object"
    assert [b["response_format"]["type"] for b in server.chat_bodies()] == [  # not retried
        "json_schema",
        "json_object",
    ]


def test_both_formats_rejected_fall_back_to_text(server: FakeOpenAI, make: Any) -> None:
    server.reject("json_schema", error(400, "unknown response_format"))
    server.reject("json_object", error(400, "unknown field: schema"))
    server.script(completion(GOOD), completion(GOOD))
    backend = make(server.url)
    assert generate(backend).mode == "text"
    assert generate(backend).mode == "text"
    bodies = server.chat_bodies()
    assert len(bodies) == 4  # schema, object, text, then text straight away
    text_body = bodies[2]
    assert "response_format" not in text_body
    system, user = text_body["messages"]
    assert system == MESSAGES[0].model_dump()
    assert user["content"].startswith("Is the sky blue?")
    assert "Reply with only a JSON object matching this JSON schema" in user["content"]
    assert json.dumps(SCHEMA) in user["content"]
    assert bodies[3] == text_body


def test_400_in_text_mode_is_an_llm_error(server: FakeOpenAI, make: Any) -> None:
    server.default = error(400, "prompt is longer than the context window")
    with pytest.raises(LLMError, match=r"HTTP 400.*context window") as caught:
        generate(make(server.url))
    assert type(caught.value) is LLMError
    assert server.count("/v1/chat/completions") == 3  # each mode was tried once


def test_other_422_does_not_fall_back(server: FakeOpenAI, make: Any) -> None:
    server.script(validation_error(["seed"], "Input should be a valid integer"))
    with pytest.raises(LLMError, match="HTTP 422"):
        generate(make(server.url))
    assert server.count("/v1/chat/completions") == 1


def test_500_then_success_is_retried(server: FakeOpenAI, make: Any) -> None:
    server.script(error(500, "overloaded"), completion(GOOD))
    assert generate(make(server.url, llm_retries=2)).text == GOOD
    assert server.count("/v1/chat/completions") == 2


def test_500_after_a_working_call_is_retried(server: FakeOpenAI, make: Any) -> None:
    server.script(completion(GOOD), error(502, "bad gateway"), error(503, "busy"), completion(GOOD))
    backend = make(server.url, llm_retries=2)
    generate(backend)
    assert generate(backend).text == GOOD
    assert server.count("/v1/chat/completions") == 4


@pytest.mark.parametrize("status", [500, 503, 429])
def test_persistent_failure_is_unavailable(server: FakeOpenAI, make: Any, status: int) -> None:
    server.default = error(status, "try later")
    with pytest.raises(LLMUnavailableError, match=rf"HTTP {status} \(3 tries\): try later"):
        generate(make(server.url, llm_retries=2))
    assert server.count("/v1/chat/completions") == 3


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_is_an_auth_error_without_the_key(
    server: FakeOpenAI, make: Any, status: int
) -> None:
    server.default = error(status, f"Incorrect API key provided: {SECRET}")
    with pytest.raises(LLMAuthError, match="rejected the API key") as caught:
        generate(make(server.url, llm_api_key=SECRET))
    assert SECRET not in str(caught.value)
    assert server.count("/v1/chat/completions") == 1  # never retried
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_unknown_model_is_unavailable_naming_it(server: FakeOpenAI, make: Any) -> None:
    server.default = error(404, "The model `nope` does not exist")
    with pytest.raises(LLMUnavailableError, match="model 'nope' not found"):
        generate(make(server.url, llm_model="nope"))


def test_slow_reply_times_out(server: FakeOpenAI, make: Any) -> None:
    server.script(completion(GOOD, delay=3.0))
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=r"cannot reach LLM endpoint .*within 0\.3 s"):
        generate(make(server.url, llm_timeout=0.3, llm_retries=0))
    assert time.monotonic() - started < 2.0


def test_closed_port_is_unavailable_quickly(make: Any) -> None:
    url = closed_port_url()
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=f"cannot reach LLM endpoint {url}"):
        generate(make(url, llm_retries=1, llm_timeout=1.0))
    assert time.monotonic() - started < 3.0


def test_credentials_in_the_url_are_not_shown(make: Any) -> None:
    url = closed_port_url().replace("http://", "http://user:hunter2@")
    with pytest.raises(LLMUnavailableError) as caught:
        generate(make(url, llm_retries=0))
    assert "hunter2" not in str(caught.value)


# -- model and key discovery -----------------------------------------------------------------


def test_empty_model_uses_the_first_listed_once(make: Any) -> None:
    with FakeOpenAI(models=["first", "second"], default=completion(GOOD)) as server:
        backend = make(server.url, llm_model="")
        generate(backend)
        generate(backend)
        assert backend.model == "first"
        assert [b["model"] for b in server.chat_bodies()] == ["first", "first"]
        assert server.count("/v1/models") == 1


@pytest.mark.parametrize(
    ("models", "status", "message"),
    [([], 200, "lists no model"), (["m"], 500, "HTTP 500"), (["m"], 400, "HTTP 400")],
)
def test_model_listing_failure_is_unavailable(
    make: Any, models: list[str], status: int, message: str
) -> None:
    with FakeOpenAI(models=models, models_status=status) as server:
        backend = make(server.url, llm_model="", llm_retries=0)
        with pytest.raises(LLMUnavailableError, match=message) as caught:
            generate(backend)
        assert "127.0.0.1" in str(caught.value)
        assert server.count("/v1/chat/completions") == 0


def test_model_listing_unreachable_names_the_url(make: Any) -> None:
    url = closed_port_url()
    with pytest.raises(LLMUnavailableError, match=url):
        make(url, llm_model="", llm_retries=0).model  # noqa: B018


@pytest.mark.parametrize(
    ("setting", "env", "sent"),
    [(SECRET, "sk-env", SECRET), ("", "sk-env", "sk-env"), ("", None, "none")],
)
def test_api_key_sources(
    server: FakeOpenAI,
    make: Any,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
    env: str | None,
    sent: str,
) -> None:
    if env is None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", env)
    server.default = completion(GOOD)
    generate(make(server.url, llm_api_key=setting))
    assert server.requests[0].headers["authorization"] == f"Bearer {sent}"


# -- threads and closing ---------------------------------------------------------------------


def test_concurrent_calls_share_the_fallback(server: FakeOpenAI, make: Any) -> None:
    server.reject("json_schema", error(400, "json_schema is not supported"))
    server.default = completion(GOOD, delay=0.05)
    backend = make(server.url, llm_model="")
    with ThreadPoolExecutor(max_workers=8) as pool:
        raws = list(pool.map(lambda _: generate(backend), range(16)))
    assert {raw.mode for raw in raws} == {"json_object"}
    assert server.count("/v1/models") == 1
    assert backend.output_mode == "json_object"


def test_close_closes_the_http_client(server: FakeOpenAI) -> None:
    backend = OpenAIBackend(server.url, model=MODEL)
    backend.close()
    assert backend._client.is_closed()
    backend.close()  # closing twice is harmless


# -- through LLMClient -----------------------------------------------------------------------


def client_for(backend: OpenAIBackend, store: Store | None = None) -> LLMClient:
    return LLMClient(backend, store=store, max_tokens=64, seed=11)


def test_client_validates_and_accounts(server: FakeOpenAI, make: Any) -> None:
    server.script(completion(GOOD, prompt_tokens=30, completion_tokens=8))
    result = client_for(make(server.url)).complete(MESSAGES, Verdict, prompt_version="v1")
    assert result.value == Verdict(answer="yes", confidence=7)
    assert (result.mode, result.attempts, result.cached) == ("json_schema", 1, False)
    assert (result.usage.calls, result.usage.prompt_tokens, result.usage.completion_tokens) == (
        1,
        30,
        8,
    )
    (body,) = server.chat_bodies()
    assert body["response_format"]["json_schema"]["schema"] == Verdict.model_json_schema()
    assert (body["seed"], body["max_tokens"]) == (11, 64)


def test_client_repairs_truncated_json_once(server: FakeOpenAI, make: Any) -> None:
    server.script(completion('{"answer": "ye'), completion(GOOD))
    result = client_for(make(server.url)).complete(MESSAGES, Verdict, prompt_version="v1")
    assert (result.value.answer, result.attempts, result.usage.calls) == ("yes", 2, 2)
    first, repair = server.chat_bodies()
    assert repair["messages"][: len(MESSAGES)] == first["messages"]
    assert repair["messages"][-2] == {"role": "assistant", "content": '{"answer": "ye'}
    assert "not valid" in repair["messages"][-1]["content"]


def test_client_retries_length_with_double_budget(server: FakeOpenAI, make: Any) -> None:
    server.script(completion('{"answer": "y', finish_reason="length"), completion(GOOD))
    result = client_for(make(server.url)).complete(MESSAGES, Verdict, prompt_version="v1")
    assert result.value.confidence == 7
    assert [b["max_tokens"] for b in server.chat_bodies()] == [64, 128]


def test_client_raises_output_error_when_repair_fails(server: FakeOpenAI, make: Any) -> None:
    server.script(completion('{"answer": 3}'), completion('{"answer": "x", "confidence": 99}'))
    client = client_for(make(server.url))
    with pytest.raises(LLMOutputError, match="confidence"):
        client.complete(MESSAGES, Verdict, prompt_version="v1")
    assert server.count("/v1/chat/completions") == 2
    assert client.usage.calls == 2


def test_client_cache_makes_no_request(server: FakeOpenAI, make: Any, tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.upgrade()
    server.script(completion(GOOD))
    first = client_for(make(server.url), store).complete(MESSAGES, Verdict, prompt_version="v1")
    client = client_for(make(server.url), store)  # a new backend: no remembered state
    second = client.complete(MESSAGES, Verdict, prompt_version="v1")
    assert (first.cached, second.cached) == (False, True)
    assert second.value == first.value
    assert server.count("/v1/chat/completions") == 1
    assert (client.usage.calls, client.usage.cached) == (0, 1)
    store.dispose()


def test_client_caches_failures_and_reports_their_usage(
    server: FakeOpenAI, make: Any, tmp_path: Path
) -> None:
    """A reply invalid after repair is a failure, cached: a re-run repeats it with no call."""
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.upgrade()
    server.script(completion('{"answer": 3}'), completion("not json at all"))
    with pytest.raises(LLMOutputError) as first:
        client_for(make(server.url), store).complete(MESSAGES, Verdict, prompt_version="v1")
    assert first.value.usage["calls"] == 2
    assert first.value.usage["completion_tokens"] == 14
    client = client_for(make(server.url), store)
    with pytest.raises(LLMOutputError, match="cached result"):
        client.complete(MESSAGES, Verdict, prompt_version="v1")
    assert server.count("/v1/chat/completions") == 2
    assert (client.usage.calls, client.usage.cached) == (0, 1)
    # another prompt version is another question: it is asked
    server.script(completion(GOOD))
    assert client.complete(MESSAGES, Verdict, prompt_version="v2").value.answer == "yes"
    store.dispose()


def test_client_fallback_mode_is_recorded(server: FakeOpenAI, make: Any) -> None:
    server.reject("json_schema", error(400, "unsupported"))
    server.reject("json_object", error(400, "unsupported"))
    server.script(completion(f"Sure! ```json\n{GOOD}\n```"))
    result = client_for(make(server.url)).complete(MESSAGES, Verdict, prompt_version="v1")
    assert (result.mode, result.value.answer) == ("text", "yes")


def test_client_unreachable_endpoint(make: Any) -> None:
    client = client_for(make(closed_port_url(), llm_retries=0))
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError):
        client.complete(MESSAGES, Verdict, prompt_version="v1")
    assert time.monotonic() - started < 3.0
    assert client.usage.calls == 0
