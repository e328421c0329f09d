"""The backend for any OpenAI-compatible HTTP endpoint (vLLM, llama.cpp server, Ollama, TGI, ...).

It sends one chat completion per call at temperature 0 with a seed, and asks for JSON as strongly
as the server allows, trying in order and remembering (per instance) the first mode that works:

1. ``json_schema``: ``response_format={"type": "json_schema", "json_schema": {...}}``;
2. ``json_object``: ``response_format={"type": "json_object", "schema": ...}`` (the form
   ``llama_cpp.server`` accepts, where the schema becomes a grammar);
3. ``text``: no ``response_format``; the schema is appended to the last user message.

A mode moves on to the next when the server answers 400, or 422 / 5xx naming
``response_format`` (``llama_cpp.server`` answers 500 to a ``json_schema`` request). Until one
mode has worked, a request is first sent without the client's retries, so that such a 500 costs
no backoff; a transient failure of that probe is then retried as usual.

Validation, repair, ``finish_reason == "length"`` retries, caching and usage accounting are the
:class:`~openrepro.llm.client.LLMClient`'s job, not this backend's. Transport retries with backoff
and the timeout are the ``openai`` client's; its errors become :mod:`openrepro.errors` errors
that never contain the API key.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from openrepro.config import Settings
from openrepro.errors import LLMAuthError, LLMError, LLMUnavailableError
from openrepro.llm.types import Message, OutputMode, RawCompletion

__all__ = ["MODES", "OpenAIBackend"]

#: the structured-output modes, strongest first
MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "text")
#: the API key sent when none is configured (local servers accept any)
PLACEHOLDER_KEY = "none"
_MAX_DETAIL = 300

R = TypeVar("R")


def _display_url(url: str) -> str:
    """``url`` without any user:password part, for messages."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _server_detail(exc: openai.APIStatusError) -> str:
    """The server's own short explanation of an error status."""
    body: Any = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            body = error["message"]
        elif error:
            body = error
        elif "detail" in body:
            body = body["detail"]
        elif "message" in body:
            body = body["message"]
    text = body if isinstance(body, str) else json.dumps(body) if body is not None else exc.message
    return " ".join(str(text).split())[:_MAX_DETAIL]


def _rejects_format(exc: openai.APIStatusError) -> bool:
    """Whether an error status means "this response_format is not supported here"."""
    if exc.status_code == 400:
        return True
    if exc.status_code == 422 or exc.status_code >= 500:
        text = json.dumps(exc.body) if exc.body is not None else exc.message
        return "response_format" in text
    return False


def _is_transient(exc: BaseException | None) -> bool:
    """Whether the ``openai`` client would have retried this error."""
    if isinstance(exc, openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def _with_schema_instruction(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """``messages`` with the schema spelled out in the last user message (the ``text`` mode)."""
    instruction = (
        "Reply with only a JSON object matching this JSON schema, and nothing else:\n"
        + json.dumps(schema, ensure_ascii=False)
    )
    out = list(messages)
    for index in range(len(out) - 1, -1, -1):
        if out[index].role == "user":
            out[index] = Message(role="user", content=f"{out[index].content}\n\n{instruction}")
            return out
    return [*out, Message(role="user", content=instruction)]


def _response_format(mode: OutputMode, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    if mode == "json_schema":
        spec = {"name": name, "schema": schema, "strict": False}
        return {"type": "json_schema", "json_schema": spec}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible endpoint. Safe to share between threads."""

    name = "openai"

    def __init__(
        self,
        url: str,
        *,
        model: str = "",
        api_key: str = "",
        timeout: float = 120.0,
        retries: int = 3,
        concurrency: int = 4,
    ) -> None:
        self.url = url.rstrip("/")
        self.concurrency = concurrency
        self._retries = retries
        self._timeout = timeout
        self._model = model
        self._first_mode = 0  # index in MODES of the strongest mode not known to fail
        self._confirmed = False  # whether a structured-output mode has worked yet
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()  # held while the server's models are listed
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
        self._client = openai.OpenAI(
            base_url=self.url, api_key=self._api_key, timeout=timeout, max_retries=retries
        )
        # the same connection pool, without retries (probes) and with one retry fewer (after one)
        self._probe_client = self._client.with_options(max_retries=0)
        self._after_probe = self._client.with_options(max_retries=max(retries - 1, 0))

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAIBackend:
        return cls(
            settings.llm_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout,
            retries=settings.llm_retries,
            concurrency=settings.llm_concurrency,
        )

    # -- model ---------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The configured model, else the first one the server lists (asked once)."""
        with self._model_lock:
            if not self._model:
                self._model = self._first_listed_model()
            return self._model

    @model.setter
    def model(self, value: str) -> None:
        with self._model_lock:
            self._model = value

    def _first_listed_model(self) -> str:
        where = _display_url(self.url)
        try:
            page = self._call(self._client.models.list)
        except (LLMAuthError, LLMUnavailableError):
            raise
        except LLMError as exc:
            raise LLMUnavailableError(f"cannot list the models of {where}: {exc}") from exc
        if not page.data:
            raise LLMUnavailableError(f"{where}/models lists no model; set llm_model")
        return page.data[0].id

    @property
    def output_mode(self) -> OutputMode:
        """The strongest structured-output mode not yet known to fail on this server."""
        return MODES[self._first_mode]

    # -- calls ---------------------------------------------------------------------------

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion:
        """One completion, in the strongest output mode the server accepts."""
        model = self.model
        start = self._first_mode
        for index in range(start, len(MODES)):
            mode = MODES[index]
            try:
                completion = self._complete(mode, model, messages, schema, schema_name,
                                            max_tokens, seed)  # fmt: skip
            except _FormatRejected as rejected:
                if index == len(MODES) - 1:
                    raise self._translate(rejected.error, model) from rejected.error
                continue
            self._confirmed = True
            if index > start:
                self._remember_mode(index)
            return self._raw(completion, mode, model)
        raise AssertionError("unreachable: the text mode always returns or raises")

    def _complete(
        self,
        mode: OutputMode,
        model: str,
        messages: list[Message],
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> ChatCompletion:
        """One request in ``mode``; raises :class:`_FormatRejected` if the server refuses it."""
        if mode == "text":
            messages = _with_schema_instruction(messages, schema)
        response_format = _response_format(mode, schema, schema_name)
        extra = {"response_format": response_format} if response_format is not None else None
        params = [_message_param(m) for m in messages]

        def send(client: openai.OpenAI) -> ChatCompletion:
            return client.chat.completions.create(
                model=model,
                messages=params,
                temperature=0,
                seed=seed,
                max_tokens=max_tokens,
                extra_body=extra,
            )

        client = self._client
        if extra is not None and not self._confirmed:
            probed = self._probe(partial(send, self._probe_client), model)
            if probed is not None:
                return probed
            client = self._after_probe
        return self._call(partial(send, client), model=model, judge_format=extra is not None)

    def _probe(self, send: Callable[[], ChatCompletion], model: str) -> ChatCompletion | None:
        """``send`` without retries; None when it failed in a way that retries may cure."""
        try:
            return self._call(send, model=model, judge_format=True)
        except LLMUnavailableError as exc:
            if self._retries == 0 or not _is_transient(exc.__cause__):
                raise
            return None

    def _remember_mode(self, index: int) -> None:
        with self._lock:
            self._first_mode = max(self._first_mode, index)

    def _raw(self, completion: ChatCompletion, mode: OutputMode, model: str) -> RawCompletion:
        if not completion.choices:
            raise LLMUnavailableError(f"{_display_url(self.url)} answered without any choice")
        choice = completion.choices[0]
        usage = completion.usage
        return RawCompletion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason or "stop",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            model=completion.model or model,
            mode=mode,
        )

    # -- errors --------------------------------------------------------------------------

    def _call(self, request: Callable[[], R], *, model: str = "", judge_format: bool = False) -> R:
        """Run one ``openai`` request, turning its errors into openrepro errors.

        With ``judge_format``, an error status that rejects the ``response_format`` raises
        :class:`_FormatRejected` instead: the caller then tries the next mode.
        """
        try:
            return request()
        except openai.APIStatusError as exc:
            if judge_format and _rejects_format(exc):
                raise _FormatRejected(exc) from exc
            raise self._translate(exc, model) from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc, model) from exc

    def _translate(self, exc: openai.OpenAIError, model: str) -> LLMError:
        where = _display_url(self.url)
        if isinstance(exc, openai.APITimeoutError):
            return LLMUnavailableError(
                f"cannot reach LLM endpoint {where}: no answer within {self._timeout:g} s "
                f"({self._tries()})"
            )
        if isinstance(exc, openai.APIConnectionError):
            cause = self._redact(str(exc.__cause__ or exc))
            return LLMUnavailableError(
                f"cannot reach LLM endpoint {where}: {cause} ({self._tries()})"
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMAuthError(
                f"LLM endpoint {where} rejected the API key (HTTP {exc.status_code}); "
                "set llm_api_key or OPENAI_API_KEY"
            )
        if isinstance(exc, openai.NotFoundError):
            what = f"model {model!r} not found" if model else "not found"
            return LLMUnavailableError(
                f"LLM endpoint {where}: {what} (HTTP 404: {self._detail(exc)}); "
                "check llm_model and that llm_url ends in /v1"
            )
        if isinstance(exc, openai.APIStatusError):
            if _is_transient(exc):
                return LLMUnavailableError(
                    f"LLM endpoint {where} answered HTTP {exc.status_code} ({self._tries()}): "
                    f"{self._detail(exc)}"
                )
            for_model = f" for model {model!r}" if model else ""
            return LLMError(
                f"LLM endpoint {where} rejected the request{for_model} "
                f"(HTTP {exc.status_code}): {self._detail(exc)}"
            )
        return LLMError(f"LLM endpoint {where}: {self._redact(str(exc))}")

    def _tries(self) -> str:
        return "no retry" if self._retries == 0 else f"{self._retries + 1} tries"

    def _detail(self, exc: openai.APIStatusError) -> str:
        return self._redact(_server_detail(exc))

    def _redact(self, text: str) -> str:
        if self._api_key != PLACEHOLDER_KEY and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text

    def close(self) -> None:
        self._client.close()


class _FormatRejected(Exception):
    """The server does not accept the ``response_format`` of this mode."""

    def __init__(self, error: openai.APIStatusError) -> None:
        super().__init__(error.message)
        self.error = error


def _message_param(message: Message) -> ChatCompletionMessageParam:
    return cast(ChatCompletionMessageParam, {"role": message.role, "content": message.content})
