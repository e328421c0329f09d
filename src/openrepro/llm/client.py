"""The one client the rest of openrepro uses: messages + output model -> validated object + usage.

Around any backend it adds what every caller needs and no backend should repeat:
- JSON parsing and schema validation of the reply (pydantic), with **one repair round**: the
  model is shown its invalid reply and the validation error and asked again;
- ``finish_reason == "length"`` is retried once with twice the token budget, never accepted;
- a **response cache** in the store keyed by (backend, model, prompt version, schema, input);
- **usage accounting** per call and summed over the client's life (thread-safe).
A reply that is still invalid raises :class:`~openrepro.errors.LLMOutputError`: a failed
extraction is never a pass.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from openrepro.errors import LLMOutputError
from openrepro.llm.types import Backend, LLMResult, Message, RawCompletion, Usage
from openrepro.store import LLMCacheEntry, Store

__all__ = ["LLMClient", "cache_key", "parse_json_reply", "request_sha256"]

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
MAX_REPLY_CHARS = 200_000
FAILED = "failed"  # cache entries recording a failed call


def cache_key(backend: str, model: str, prompt_version: str, schema: dict[str, Any],
              messages: list[Message], max_tokens: int, seed: int) -> str:  # fmt: skip
    payload = json.dumps(
        {
            "backend": backend,
            "model": model,
            "prompt_version": prompt_version,
            "schema": schema,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": max_tokens,
            "seed": seed,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def request_sha256(messages: list[Message], schema: dict[str, Any]) -> str:
    """The hash of what a chat request asks: its messages (role and content, in order) and the
    JSON schema its reply must satisfy; nothing else (model, temperature, seed, token limit,
    output mode). Recorded answers are keyed by it (``bench/replay_llm.py``)."""
    payload = json.dumps(
        {"messages": [{"role": m.role, "content": m.content} for m in messages], "schema": schema},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def parse_json_reply(text: str) -> Any:
    """The JSON value in a reply: the whole text, a fenced block, or the outermost {...}."""
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(f"reply of {len(text)} characters is too long")
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate, strict=False)  # raw newlines in strings are common
        except json.JSONDecodeError as exc:
            error = error or exc
    raise ValueError(f"not valid JSON ({error.msg if error else 'empty reply'})")


def _problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}"
            for err in exc.errors()[:10]
        )
    return str(exc)


class LLMClient:
    """Validated, cached, accounted calls to one backend. Safe to share between threads."""

    def __init__(
        self,
        backend: Backend,
        *,
        store: Store | None = None,
        max_tokens: int = 1024,
        seed: int = 0,
    ) -> None:
        self.backend = backend
        self.store = store
        self.max_tokens = max_tokens
        self.seed = seed
        self.usage = Usage()
        self._lock = threading.Lock()

    @property
    def concurrency(self) -> int:
        return self.backend.concurrency

    def _account(self, usage: Usage) -> None:
        with self._lock:
            self.usage.add(usage)

    # -- cache ---------------------------------------------------------------------------

    def _cached(self, key: str) -> LLMCacheEntry | None:
        if self.store is None:
            return None
        with self.store.session() as session:
            return session.scalar(select(LLMCacheEntry).where(LLMCacheEntry.key == key))

    def _remember(
        self, key: str, prompt_version: str, raw: RawCompletion, seconds: float,
        *, failed: bool = False,
    ) -> None:  # fmt: skip
        if self.store is None:
            return
        try:
            with self.store.session() as session:
                session.add(
                    LLMCacheEntry(
                        key=key,
                        backend=self.backend.name,
                        model=raw.model or self.backend.model,
                        prompt_version=prompt_version,
                        response=raw.text,
                        mode=FAILED if failed else raw.mode,
                        prompt_tokens=raw.prompt_tokens,
                        completion_tokens=raw.completion_tokens,
                        seconds=seconds,
                    )
                )
        except Exception as exc:  # a concurrent writer stored the same key first: fine
            if not isinstance(exc.__cause__, IntegrityError):
                raise

    # -- calls ---------------------------------------------------------------------------

    def _generate(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        name: str,
        max_tokens: int,
        usage: Usage,
    ) -> RawCompletion:
        """One backend call, added to ``usage``; a reply cut by the token limit is retried once
        with twice the room, and a second cut is an :class:`LLMOutputError`."""
        budget = max_tokens
        for attempt in range(2):
            started = time.perf_counter()
            raw = self.backend.generate(
                messages, schema=schema, schema_name=name, max_tokens=budget, seed=self.seed
            )
            usage.add(
                Usage(
                    calls=1,
                    prompt_tokens=raw.prompt_tokens,
                    completion_tokens=raw.completion_tokens,
                    seconds=time.perf_counter() - started,
                )
            )
            if raw.finish_reason != "length":
                return raw
            if attempt == 0:
                budget *= 2
        raise LLMOutputError(
            f"{self.backend.name}:{self.backend.model}: reply cut at {budget} tokens "
            "(finish_reason=length) twice"
        )

    def _ask(
        self, messages: list[Message], output: type[T], budget: int, usage: Usage
    ) -> tuple[T, RawCompletion, int]:
        """Generate and validate, with one repair round; returns (value, raw reply, attempts)."""
        schema = output.model_json_schema()
        name = output.__name__
        raw = self._generate(messages, schema, name, budget, usage)
        try:
            return output.model_validate(parse_json_reply(raw.text)), raw, 1
        except (ValueError, ValidationError) as exc:
            repair = [
                *messages,
                Message(role="assistant", content=raw.text[:4000]),
                Message(
                    role="user",
                    content=(
                        f"That reply is not valid: {_problem(exc)}. Answer again with only a JSON "
                        f"object that matches this schema:\n{json.dumps(schema)}"
                    ),
                ),
            ]
        raw = self._generate(repair, schema, name, budget, usage)
        try:
            return output.model_validate(parse_json_reply(raw.text)), raw, 2
        except (ValueError, ValidationError) as again:
            raise LLMOutputError(
                f"{self.backend.name}:{self.backend.model}: reply is not a valid {name} "
                f"after one repair: {_problem(again)}"
            ) from again

    def complete(
        self,
        messages: list[Message],
        output: type[T],
        *,
        prompt_version: str,
        max_tokens: int | None = None,
    ) -> LLMResult[T]:
        """Ask for an ``output`` object; cached, validated, repaired once, accounted.

        A failure (invalid after repair, or cut twice by the token limit) is cached too: at
        temperature 0 with a fixed seed the same input fails the same way, so a re-run reports
        it again without a model call. The error carries the usage it cost.
        """
        budget = max_tokens or self.max_tokens
        key = cache_key(self.backend.name, self.backend.model, prompt_version,
                        output.model_json_schema(), messages, budget, self.seed)  # fmt: skip
        hit = self._cached(key)
        if hit is not None:
            cached = self._from_cache(hit, output, prompt_version)
            if cached is not None:
                return cached
        usage = Usage()
        try:
            value, raw, attempts = self._ask(messages, output, budget, usage)
        except LLMOutputError as exc:
            self._account(usage)
            failed = RawCompletion(text=str(exc), mode="text", model=self.backend.model,
                                   prompt_tokens=usage.prompt_tokens,
                                   completion_tokens=usage.completion_tokens)  # fmt: skip
            self._remember(key, prompt_version, failed, usage.seconds, failed=True)
            exc.usage = usage.model_dump()
            raise
        self._account(usage)
        self._remember(key, prompt_version, raw, usage.seconds)
        return LLMResult[T](
            value=value, backend=self.backend.name, model=raw.model or self.backend.model,
            prompt_version=prompt_version, usage=usage, mode=raw.mode, attempts=attempts,
            raw=raw.text,
        )  # fmt: skip

    def _from_cache(
        self, hit: LLMCacheEntry, output: type[T], prompt_version: str
    ) -> LLMResult[T] | None:
        usage = Usage(cached=1)
        if hit.mode == FAILED:
            self._account(usage)
            raise LLMOutputError(f"{hit.response} (cached result of an earlier call)", usage={})
        try:
            value = output.model_validate(parse_json_reply(hit.response))
        except (ValueError, ValidationError):
            return None  # a corrupt entry: ask again
        self._account(usage)
        return LLMResult[T](
            value=value, backend=self.backend.name, model=hit.model,
            prompt_version=prompt_version, usage=usage, cached=True,
            mode=hit.mode, raw=hit.response,
        )  # fmt: skip

    def close(self) -> None:
        self.backend.close()
