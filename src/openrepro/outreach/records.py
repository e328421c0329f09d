"""Typed records of author outreach: messages and author responses."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

__all__ = ["RESPONSES", "AuthorResponseView", "MessageView", "Response"]

#: ``fixed``: already fixed (``version`` says in which version of the paper).
Response = Literal["agrees", "disputes", "fixed", "no-answer"]
RESPONSES: tuple[Response, ...] = get_args(Response)


class MessageView(BaseModel):
    id: int
    paper: str  # venue id
    claim: str  # "<paper>/<key>"
    recipients: list[str] = Field(default_factory=list)
    subject: str
    body: str
    status: Literal["draft", "sent"] = "draft"
    eml_path: str | None = None
    message_id: str = ""
    created_at: datetime | None = None
    sent_at: datetime | None = None


class AuthorResponseView(BaseModel):
    """What a paper's authors answered about a finding (the newest answer per claim)."""

    id: int
    paper_id: int
    paper: str
    claim: str
    response: Response
    version: str | None = None
    note: str = ""
    recorded_by: str = ""
    created_at: datetime | None = None
