"""Intake: a participant's submission, in one place and one transaction, and the records the
command line and the board's API answer with (docs/design.md, "Shape of the code").

:func:`submit` stores a logbook, takes its proposed checks, queues its claims for the judge and
returns the report with the bindings preview, all committed at once; ``openrepro submit``, the
board's ``POST /api/v1/logbooks`` and the demo's participants call it. :mod:`.records` holds
the answers (:class:`BoundSubmitReport`, :class:`ParticipantStatus`) that the board serves and
a participant's client of a board (:mod:`openrepro.remote`) reads back.
"""

from openrepro.intake.preview import bindings_in, logbook_bindings
from openrepro.intake.records import (
    BoundSubmitReport,
    ClaimBindings,
    ClaimStatus,
    LogbookStatus,
    ParticipantStatus,
    QuantityBinding,
)
from openrepro.intake.submit import store_proposals, submit

__all__ = [
    "BoundSubmitReport",
    "ClaimBindings",
    "ClaimStatus",
    "LogbookStatus",
    "ParticipantStatus",
    "QuantityBinding",
    "bindings_in",
    "logbook_bindings",
    "store_proposals",
    "submit",
]
