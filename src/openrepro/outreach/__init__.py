"""Author outreach: messages to a paper's authors about each confirmed finding (``.eml`` files or
SMTP), and recording the authors' responses (read by :mod:`openrepro.outcomes.responses`)."""

from openrepro.outreach.records import MessageView
from openrepro.outreach.responses import record_response
from openrepro.outreach.service import (
    confirmed_findings,
    draft_messages,
    list_messages,
    logbook_url,
    send_messages,
)

__all__ = [
    "MessageView",
    "confirmed_findings",
    "draft_messages",
    "list_messages",
    "logbook_url",
    "record_response",
    "send_messages",
]
