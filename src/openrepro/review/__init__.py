"""Human review tasks: image pairs judged by people on a small blinded page, answers in an
append-only CSV, agreement checks (self-agreement, Cohen's κ, Krippendorff's alpha: the
formulas are :mod:`openrepro.evidence.agreement`), and export to a logbook as human-judged
evidence. Tasks made from a stored logbook for a claim's ``human`` check
(:mod:`openrepro.review.stored`) keep their reviewers and every answer in the store, where the
judge reads them (:mod:`openrepro.evidence.human`). The blinded page is
:mod:`openrepro.review.server` (FastAPI), imported by what serves it."""

from openrepro.review.check import (
    PairAgreement,
    ReviewCheck,
    ReviewerSummary,
    check_task,
    export_task,
)
from openrepro.review.stored import (
    ItemSource,
    StoredAnswerLog,
    StoredTask,
    add_reviewer,
    create_stored_task,
    reviewer_role,
    select_items,
)
from openrepro.review.task import (
    Answer,
    AnswerLog,
    ReviewOption,
    ReviewTask,
    Slot,
    create_task,
    load_task,
    read_answers,
    schedule,
)

__all__ = [
    "Answer",
    "AnswerLog",
    "ItemSource",
    "PairAgreement",
    "ReviewCheck",
    "ReviewOption",
    "ReviewTask",
    "ReviewerSummary",
    "Slot",
    "StoredAnswerLog",
    "StoredTask",
    "add_reviewer",
    "check_task",
    "create_stored_task",
    "create_task",
    "export_task",
    "load_task",
    "read_answers",
    "reviewer_role",
    "schedule",
    "select_items",
]
