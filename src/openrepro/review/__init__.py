"""Human review tasks: image pairs judged by people on a small blinded page, answers in an
append-only CSV, agreement checks (self-agreement, Cohen's κ, Krippendorff's alpha), and export to a
logbook as human-judged evidence."""

from openrepro.review.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from openrepro.review.check import (
    PairAgreement,
    ReviewCheck,
    ReviewerSummary,
    check_task,
    export_task,
)
from openrepro.review.server import create_app, serve_task
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
    "PairAgreement",
    "ReviewCheck",
    "ReviewOption",
    "ReviewTask",
    "ReviewerSummary",
    "Slot",
    "check_task",
    "cohen_kappa",
    "create_app",
    "create_task",
    "export_task",
    "krippendorff_alpha",
    "load_task",
    "percent_agreement",
    "read_answers",
    "schedule",
    "serve_task",
]
