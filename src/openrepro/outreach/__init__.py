"""Author outreach: messages to a paper's authors about each confirmed finding (``.eml`` files or
SMTP), and the authors' responses, counted for stats and the frozen dataset."""

from openrepro.outreach.records import RESPONSES, AuthorResponseView, MessageView, Response
from openrepro.outreach.responses import (
    author_response_counts,
    author_responses,
    record_response,
)
from openrepro.outreach.service import (
    confirmed_findings,
    draft_messages,
    list_messages,
    logbook_url,
    send_messages,
)

__all__ = [
    "RESPONSES",
    "AuthorResponseView",
    "MessageView",
    "Response",
    "author_response_counts",
    "author_responses",
    "confirmed_findings",
    "draft_messages",
    "list_messages",
    "logbook_url",
    "record_response",
    "send_messages",
]
