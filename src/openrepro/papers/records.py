"""Typed records at the boundary of the paper index: what importers yield, what queries return."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "ImportReport",
    "PaperDetail",
    "PaperRecord",
    "PaperSummary",
    "SearchHit",
    "SkippedItem",
    "StoredText",
]


class PaperRecord(BaseModel):
    """One paper as read from a source, before it is stored.

    ``None`` means "this source does not know": a re-import never overwrites a stored value with
    ``None``, so a paper list, an OpenReview venue and a PDF folder can enrich the same paper.
    """

    model_config = ConfigDict(frozen=True)

    venue_id: str = Field(min_length=1, max_length=300)
    title: str = Field(min_length=1)
    authors: list[str] | None = None
    abstract: str | None = None
    status: str | None = Field(default=None, max_length=100)
    track: str | None = Field(default=None, max_length=100)
    decision: str | None = Field(default=None, max_length=200)
    site_url: str | None = None
    pdf_url: str | None = None
    arxiv_id: str | None = Field(default=None, max_length=50)
    keywords: list[str] | None = None
    full_text: str | None = None
    licence: str | None = Field(default=None, max_length=200)
    source: str = Field(default="", max_length=500)
    origin: str = Field(default="", exclude=True, description="file:row for messages; not stored")
    guessed: frozenset[str] = Field(
        default=frozenset(),
        exclude=True,
        description="fields that are guesses (e.g. a title read off a PDF's first page): they "
        "fill a new paper but never overwrite a stored value",
    )

    @field_validator("venue_id", "title", "status", "track", "decision", "arxiv_id", "licence")
    @classmethod
    def _no_control_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError("contains a NUL character")
        return value

    @field_validator("venue_id", "title")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank")
        return value

    @field_validator("authors", "keywords")
    @classmethod
    def _clean_list(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any("\x00" in item for item in value):
            raise ValueError("contains a NUL character")
        return value

    @field_validator("abstract", "full_text")
    @classmethod
    def _strip_nul(cls, value: str | None) -> str | None:
        # PDF extraction can leave NULs; PostgreSQL text cannot hold them.
        return value.replace("\x00", "") if value is not None else None


class SkippedItem(BaseModel):
    """A row, entry or file of a source that could not be imported, and why."""

    location: str
    reason: str


class ImportReport(BaseModel):
    """What one `papers import` run did."""

    source: str
    created: int = 0
    updated: int = 0
    skipped: list[SkippedItem] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def imported(self) -> int:
        return self.created + self.updated


class PaperSummary(BaseModel):
    venue_id: str
    title: str
    authors: list[str]
    status: str | None
    track: str | None
    claims: int = 0
    has_full_text: bool = False


class PaperDetail(PaperSummary):
    abstract: str | None
    decision: str | None
    site_url: str | None
    pdf_url: str | None
    arxiv_id: str | None
    keywords: list[str] | None
    source: str
    licence: str | None
    full_text_chars: int
    created_at: datetime
    updated_at: datetime


class SearchHit(BaseModel):
    venue_id: str
    title: str
    status: str | None
    score: float
    snippet: str = ""


class StoredText(BaseModel):
    """A paper's stored text: the full text (what claims' quotes are matched against, with
    their offsets), else its abstract."""

    paper_id: str
    field: Literal["full_text", "abstract"]
    chars: int
    text: str
