"""``openrepro submit``, ``POST /api/v1/logbooks`` and the demo's participants: one submission,
one transaction.

:func:`submit` reads and checks the logbook and stages its new files
(:func:`~openrepro.logbooks.submit.staged_logbook`), then, in ONE transaction of the store:
stores the logbook (:func:`~openrepro.logbooks.submit.store_logbook`), reads the participant's
proposed checks (``checks.json`` at the logbook's root, the file name passed in by the caller)
and stores them (:func:`~openrepro.claims.proposals.propose_checks`), queues the logbook's
claims for the judge workers (:mod:`openrepro.store.judge_queue`) and computes the bindings
preview (:func:`~openrepro.intake.preview.bindings_in`). It commits once, after the last step:
a submission interrupted anywhere (an error, a killed process) leaves nothing of it in the
database; a staged file already moved into the content-addressed store stays there unnamed
(harmless: a blob is served only through a record that names it).

A ``checks.json`` that cannot be read is a warning of the report naming the problem, and no
proposal is taken: the logbook is stored anyway. A participant with
``queue_max_per_participant`` claims waiting is refused before anything is read (HTTP 429).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks.records import MAX_CHECKS_FILE_BYTES
from openrepro.claims.proposals import ProposalOutcome, parse_checks_file, propose_checks
from openrepro.errors import CheckError
from openrepro.intake.preview import bindings_in
from openrepro.intake.records import BoundSubmitReport
from openrepro.logbooks.manifest import CHECKS_FILE
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.service import locator
from openrepro.logbooks.submit import staged_logbook, store_logbook
from openrepro.store import Logbook, Paper, Participant
from openrepro.store.judge_queue import check_capacity, enqueue, queue_position

__all__ = ["STOP_ENV", "STOP_STEPS", "store_proposals", "submit"]

#: Test hook: a process whose environment names one of :data:`STOP_STEPS` here stops after that
#: step of :func:`submit` (before the commit), says so on stderr and waits, so that a test can
#: kill it there (tests/intake/test_submit_transaction.py). Unset, it costs one dict lookup.
STOP_ENV = "OPENREPRO_TEST_SUBMIT_STOP"
STOP_STEPS = ("logbook", "proposals", "queued", "preview")


def _checkpoint(step: str) -> None:
    """The test hook of :data:`STOP_ENV` (no effect unless it names ``step``)."""
    if os.environ.get(STOP_ENV) != step:
        return
    sys.stderr.write(f"{STOP_ENV}: stopped after {step}\n")
    sys.stderr.flush()
    time.sleep(120)  # the test kills the process meanwhile; else the submission goes on


def store_proposals(
    session: Session,
    ctx: ChallengeContext,
    record: LogbookRecord,
    logbook_id: int,
    checks_file: str,
) -> tuple[list[ProposalOutcome], list[str]]:
    """The proposals of the stored logbook's ``checks_file``, validated, grounded and stored
    for its participant (:func:`~openrepro.claims.proposals.propose_checks`) in the caller's
    transaction; a file that cannot be read gives a warning naming the problem and no proposal
    (the logbook stays stored)."""
    ref = next((f for f in record.files if f.path == checks_file), None)
    if ref is None:
        return [], []
    path = locator(ctx.settings.resolved_files_dir())(ref)
    try:
        if path is None:
            raise CheckError(f"{checks_file}: the stored file is missing")
        if ref.size > MAX_CHECKS_FILE_BYTES:
            raise CheckError(f"{checks_file}: {ref.size:,} bytes, above the limit of "
                             f"{MAX_CHECKS_FILE_BYTES:,}")  # fmt: skip
        found = parse_checks_file(path.read_text(encoding="utf-8", errors="replace"), checks_file)
    except CheckError as exc:
        return [], [f"{exc}; no check proposal was taken"]
    book = session.get(Logbook, logbook_id)
    assert book is not None
    paper, person = (
        session.get(Paper, book.paper_id),
        session.get(Participant, book.participant_id),
    )
    assert paper is not None and person is not None
    return propose_checks(session, ctx.challenge_id, person, paper, found,
                          logbook_id=logbook_id), []  # fmt: skip


def submit(
    ctx: ChallengeContext,
    source: Path | str,
    who: str | None = None,
    *,
    paper: str | None = None,
    checks_file: str = CHECKS_FILE,
) -> BoundSubmitReport:
    """Submit the logbook at ``source`` (a folder, an archive or a Space: see
    :func:`~openrepro.logbooks.submit.staged_logbook`) as participant ``who`` (default: the one
    the logbook names), for ``paper`` (default: the one the logbook names), in one transaction
    (see the module docstring); the report: what was stored, the proposals of ``checks_file``,
    the bindings the judge will use and the logbook's place in the judge queue."""
    if who:
        with ctx.store.session() as session:  # refused before any work: nothing is written
            person = session.scalar(
                select(Participant.id).where(
                    Participant.challenge_id == ctx.challenge_id, Participant.handle == who
                )
            )
            check_capacity(session, person, ctx.settings.queue_max_per_participant)
    with (
        staged_logbook(ctx, source, handle=who, paper=paper, checks_file=checks_file) as staged,
        ctx.store.session() as session,
    ):
        report = store_logbook(session, ctx, staged)
        _checkpoint("logbook")
        proposals, problems = store_proposals(
            session, ctx, staged.record, report.logbook_id, checks_file
        )
        _checkpoint("proposals")
        queued = enqueue(session, [report.logbook_id], reason="submission")
        position = queue_position(session, report.logbook_id)
        _checkpoint("queued")
        bindings, warnings = bindings_in(session, ctx, report.logbook_id)
        _checkpoint("preview")
    return BoundSubmitReport(**{**report.model_dump(), "bindings": bindings,
                                "proposals": proposals, "queue_position": position,
                                "queued": queued,
                                "warnings": [*report.warnings, *problems, *warnings]})  # fmt: skip
