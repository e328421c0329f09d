"""Several OpenAI-compatible endpoints behind one backend (setting ``llm_urls``).

Each call goes to the endpoint with the fewest calls in flight from this process; among equals,
round robin (starting at an offset taken from the process id, so that many worker processes do
not all begin on the first endpoint). An endpoint that cannot be reached
(:class:`~openrepro.errors.LLMUnavailableError`) is skipped for that call and the next one is
tried; the call fails only when every endpoint failed. Every endpoint must serve the same model:
the cache key and the judge config name the model, not the endpoint, so a reply is the same
whichever endpoint gave it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from openrepro.errors import LLMUnavailableError
from openrepro.llm.openai_backend import OpenAIBackend
from openrepro.llm.types import Message, RawCompletion

__all__ = ["EndpointPool"]


class EndpointPool:
    """Least-loaded, then round-robin, selection over :class:`OpenAIBackend` endpoints."""

    name = "openai"  # the same cache namespace as a single endpoint

    def __init__(self, backends: Sequence[OpenAIBackend]) -> None:
        if not backends:
            raise ValueError("an endpoint pool needs at least one endpoint")
        self.backends = list(backends)
        self.concurrency = sum(b.concurrency for b in self.backends)
        self.inflight = [0] * len(self.backends)
        #: calls sent to each endpoint so far (failed ones included)
        self.calls = [0] * len(self.backends)
        self._next = os.getpid() % len(self.backends)
        self._lock = threading.Lock()

    @property
    def urls(self) -> list[str]:
        return [b.url for b in self.backends]

    @property
    def model(self) -> str:
        """The configured model, else the first endpoint's first listed model."""
        return self.backends[0].model

    @model.setter
    def model(self, value: str) -> None:
        for backend in self.backends:
            backend.model = value

    def _order(self) -> list[int]:
        """Endpoint indexes to try for one call, best first; reserves the first."""
        with self._lock:
            count = len(self.backends)
            rotation = [(self._next + i) % count for i in range(count)]
            order = sorted(rotation, key=lambda i: self.inflight[i])  # stable: round robin ties
            self._next = (order[0] + 1) % count
            return order

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion:
        model = self.model  # every endpoint is asked for the same model
        failures: list[str] = []
        for index in self._order():
            backend = self.backends[index]
            backend.model = model
            with self._lock:
                self.inflight[index] += 1
                self.calls[index] += 1
            try:
                return backend.generate(
                    messages, schema=schema, schema_name=schema_name, max_tokens=max_tokens,
                    seed=seed,
                )  # fmt: skip
            except LLMUnavailableError as exc:
                failures.append(str(exc))
            finally:
                with self._lock:
                    self.inflight[index] -= 1
        raise LLMUnavailableError(
            f"none of the {len(self.backends)} LLM endpoints answered: " + "; ".join(failures)
        )

    def close(self) -> None:
        for backend in self.backends:
            backend.close()
