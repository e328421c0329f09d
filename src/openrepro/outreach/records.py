"""Typed records of author outreach: messages (responses: :mod:`openrepro.outcomes.responses`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["MessageView"]


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
