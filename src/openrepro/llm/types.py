"""Typed records of the LLM layer: messages, raw completions, usage, results."""

from __future__ import annotations

from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Backend",
    "LLMResult",
    "Message",
    "OutputMode",
    "RawCompletion",
    "Usage",
]

T = TypeVar("T", bound=BaseModel)

OutputMode = Literal["json_schema", "json_object", "text"]


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class RawCompletion(BaseModel):
    """What a backend returns for one call: the text, why it stopped, and the token counts."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    mode: OutputMode = "json_schema"


class Usage(BaseModel):
    """Usage accounting, per call and summed per command."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds = round(self.seconds + other.seconds, 6)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class LLMResult(BaseModel, Generic[T]):
    """A validated object with the provenance needed to record it."""

    value: T
    backend: str
    model: str
    prompt_version: str
    usage: Usage
    cached: bool = False
    mode: OutputMode = "json_schema"
    attempts: int = 1
    raw: str = Field(default="", repr=False)


class Backend(Protocol):
    """One way of running a model. Backends return raw text; the client validates it.

    ``generate`` asks for JSON matching ``schema`` as strongly as the backend can (a grammar, the
    server's structured output, or only the prompt), and reports the mode it used. It raises
    :class:`~openrepro.errors.LLMUnavailableError` / :class:`~openrepro.errors.LLMAuthError`
    for transport problems, never for bad output.
    """

    name: str
    model: str
    #: how many calls may run at once (1 for an in-process model)
    concurrency: int

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion: ...

    def close(self) -> None: ...
