"""A scripted OpenAI-compatible drafter on 127.0.0.1 that answers by claim, not by order.

Bulk drafting sends its calls concurrently, so the order of a queue of scripted replies is
not the order of the claims: this server (tests/llm/fake_openai.py's :class:`FakeOpenAI`)
answers each chat completion with the reply scripted for the first key found in the request's
user message (a phrase of the claim's quote), else ``{"relation": "none"}``; with
``extraction``, a claim-extraction request (``claims extract``) gets that reply. Each reply is a
JSON object of the drafting schema (``LLMCheckDraft``); the tokens it reports are fixed, so the
tokens a test reads back per claim are known.
"""

from __future__ import annotations

import json
from typing import Any

from fake_openai import FakeOpenAI, Reply, Request, completion

__all__ = ["DraftingServer"]

NONE = {"relation": "none", "reason": "no measurement checks this claim"}


class DraftingServer(FakeOpenAI):
    """Serves ``model`` and answers by claim (see the module docstring)."""

    def __init__(
        self, model: str, replies: dict[str, dict[str, Any]], *,
        extraction: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        super().__init__(models=[model])
        self.model = model
        self.by_claim = replies
        self.extraction = extraction

    def _chat(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        system = " ".join(
            str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system"
        )
        if self.extraction is not None and "You extract the core, checkable claims" in system:
            return completion(json.dumps(self.extraction), model=self.model)
        user = " ".join(
            str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user"
        )
        reply = next((r for key, r in self.by_claim.items() if key in user), NONE)
        return completion(json.dumps(reply), model=self.model, prompt_tokens=900,
                          completion_tokens=60)  # fmt: skip
