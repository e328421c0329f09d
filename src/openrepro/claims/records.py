"""Typed records of the claims package: the LLM's output schema and what commands return."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model

from openrepro.claims.checks.records import Check
from openrepro.claims.values import ReportedValue, Scale
from openrepro.llm import Usage

__all__ = [
    "ClaimKind",
    "ClaimView",
    "ExtractedClaim",
    "ExtractionOutput",
    "ExtractionReport",
    "PaperExtraction",
    "Quote",
    "output_model",
]

ClaimKind = Literal["result", "efficiency", "theory", "qualitative"]
MAX_CANDIDATES = 32
CLAIM_CHARS = 200  # one plain sentence


class ExtractedClaim(BaseModel):
    """One claim as the model proposes it: sentence numbers, a paraphrase and a kind."""

    sentences: list[Annotated[int, Field(ge=1, le=MAX_CANDIDATES)]] = Field(
        min_length=1, max_length=3
    )
    claim: str = Field(min_length=8, max_length=CLAIM_CHARS)
    kind: ClaimKind


class ExtractionOutput(BaseModel):
    """The JSON object the extraction prompt asks for."""

    claims: list[ExtractedClaim] = Field(min_length=1, max_length=8)


@lru_cache(maxsize=MAX_CANDIDATES)
def output_model(candidates: int) -> type[ExtractionOutput]:
    """The output schema for a prompt with ``candidates`` numbered sentences.

    Sentence numbers are bounded by the list and there are never more claims than sentences,
    so a grammar-constrained model cannot point outside the list or ramble to the token limit.
    """
    n = max(1, min(candidates, MAX_CANDIDATES))
    claim = create_model(
        "ExtractedClaim",
        __base__=ExtractedClaim,
        sentences=(
            list[Annotated[int, Field(ge=1, le=n)]],
            Field(min_length=1, max_length=min(3, n)),
        ),
    )
    return create_model(
        "ExtractionOutput",
        __base__=ExtractionOutput,
        claims=(list[claim], Field(min_length=1, max_length=min(8, n))),
    )


class Quote(BaseModel):
    """A verbatim span of the paper: ``text == <field>[start:end]`` (checked by code)."""

    text: str
    start: int
    end: int
    field: Literal["full_text", "abstract"]


class ClaimView(BaseModel):
    id: str  # "<paper venue id>/<key>"
    paper_id: str
    key: str
    text: str
    kind: str
    status: str
    origin: str
    quotes: list[Quote]
    reported: list[ReportedValue]
    scale: Scale
    provenance: dict[str, Any]
    created_at: datetime
    edits: list[dict[str, Any]] = Field(default_factory=list)
    check: Check | None = None  # what code checks (None: no check; the judge says so)


class PaperExtraction(BaseModel):
    """The outcome of extraction for one paper."""

    paper_id: str
    status: Literal["done", "failed", "skipped"]
    stored: int = 0
    dropped: int = 0
    merged: int = 0
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)


class ExtractionReport(BaseModel):
    """What one `claims extract` run did, with the usage summed over its calls."""

    papers: list[PaperExtraction] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0

    @property
    def stored(self) -> int:
        return sum(p.stored for p in self.papers)
