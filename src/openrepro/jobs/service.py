"""The jobs service: launch, look, follow, cancel, wait, reconcile; credit balance and grants.

These functions are the stable API other packages call (the board shows jobs on participant and
logbook pages; the judge builds attested evidence on :func:`get_job` and :func:`read_logs`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import find_claim
from openrepro.errors import JobError, NotFoundError, PermissionDeniedError
from openrepro.jobs import ledger
from openrepro.jobs.citations import JOB_ID_RE
from openrepro.jobs.hf import LABEL_PREFIX, HfJobs, hardware_prices, label_value
from openrepro.jobs.local import job_dir, kill_group, spawn_supervisor, supervisor_alive
from openrepro.jobs.records import (
    BACKENDS,
    TERMINAL,
    Balance,
    JobView,
    ReconcileReport,
    format_job_id,
)
from openrepro.store import Claim, Job, Paper, Participant
from openrepro.store.models import utcnow

__all__ = [
    "balance",
    "cancel_job",
    "flavor_prices",
    "follow_logs",
    "get_job",
    "grant_credit",
    "list_jobs",
    "read_logs",
    "reconcile",
    "run_job",
    "run_uv_job",
    "wait_job",
]

#: A job row without a supervisor pid / Hub id this long after its launch was abandoned.
LAUNCH_GRACE_S = 60.0


# -- views -------------------------------------------------------------------------------------


def _view(job: Job, handle: str | None, paper: str | None, claim: str | None) -> JobView:
    url = None
    if job.backend == "hf" and job.external_id:
        url = str(job.labels.get("url", "")) or None
    return JobView(
        id=format_job_id(job.backend, job.id), backend=job.backend,
        external_id=job.external_id, url=url, flavor=job.flavor, command=list(job.command),
        status=job.status,
        exit_code=job.exit_code, error=job.error, timeout_s=job.timeout_s,
        price_per_hour_usd=job.price_per_hour_usd, reserved_usd=job.reserved_usd,
        cost_usd=job.cost_usd, cost_is_estimate=job.cost_is_estimate,
        settled=job.settled_at is not None, participant=handle, paper=paper, claim=claim,
        labels={k: str(v) for k, v in job.labels.items() if k != "url"},
        created_at=ledger.aware(job.created_at),
        started_at=ledger.aware(job.started_at) if job.started_at else None,
        finished_at=ledger.aware(job.finished_at) if job.finished_at else None,
        log_path=job.log_path,
    )  # fmt: skip


def _query(ctx: ChallengeContext) -> Any:
    return (
        select(Job, Participant.handle, Paper.venue_id, Claim.key)
        .outerjoin(Participant, Participant.id == Job.participant_id)
        .outerjoin(Paper, Paper.id == Job.paper_id)
        .outerjoin(Claim, Claim.id == Job.claim_id)
        .where(Job.challenge_id == ctx.challenge_id)
    )


def _store_id(ctx: ChallengeContext, job_id: str | int) -> int:
    """The store id of a public job id (``local:12``, ``hf:13``, ``hf:<hub id>``, ``12``)."""
    text = str(job_id).strip()
    if text.isdigit():
        return int(text)
    match = JOB_ID_RE.match(text)
    if not match:
        raise NotFoundError(f"invalid job id {text!r}: expected local:N, hf:N or hf:<hub id>")
    backend, rest = match.groups()
    with ctx.store.session() as session:
        if rest.isdigit() and len(rest) < 24:
            found = session.scalar(
                select(Job.id).where(
                    Job.id == int(rest), Job.backend == backend,
                    Job.challenge_id == ctx.challenge_id,
                )
            )  # fmt: skip
        else:
            found = session.scalar(
                select(Job.id).where(
                    Job.external_id == rest, Job.backend == backend,
                    Job.challenge_id == ctx.challenge_id,
                )
            )  # fmt: skip
    if found is None:
        raise NotFoundError(f"no job {text}")
    return int(found)


def get_job(ctx: ChallengeContext, job_id: str | int) -> JobView:
    """One job by its public id; :class:`NotFoundError` if there is none."""
    store_id = _store_id(ctx, job_id)
    with ctx.store.session() as session:
        row = session.execute(_query(ctx).where(Job.id == store_id)).first()
    if row is None:
        raise NotFoundError(f"no job {job_id}")
    return _view(*row)


def list_jobs(
    ctx: ChallengeContext,
    participant: str | None = None,
    paper: str | None = None,
    job_ids: list[str] | None = None,
) -> list[JobView]:
    """Jobs, newest first, optionally of one participant (handle), one paper (venue id) and/or
    among ``job_ids`` (public ids; unknown ones are left out)."""
    query = _query(ctx)
    if participant is not None:
        query = query.where(Participant.handle == participant)
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if job_ids is not None:
        ids: list[int] = []
        for one in job_ids:
            try:
                ids.append(_store_id(ctx, one))
            except NotFoundError:
                continue
        query = query.where(Job.id.in_(ids))
    with ctx.store.session() as session:
        rows = session.execute(query.order_by(Job.id.desc())).all()
    return [_view(*row) for row in rows]


def balance(ctx: ChallengeContext, handle: str) -> Balance:
    """A participant's credit (a known handle; :class:`NotFoundError` otherwise)."""
    with ctx.store.session() as session:
        person = ledger.find_participant(session, ctx.challenge_id, handle)
        return ledger.balance_in(session, ctx.settings, person)


def _check_organizer(ctx: ChallengeContext, by: str | None, what: str) -> None:
    if by is None:  # the local CLI acts as the organizer
        return
    with ctx.store.session() as session:
        person = ledger.find_participant(session, ctx.challenge_id, by)
        if person.role != "organizer":
            raise PermissionDeniedError(f"{what} is for organizers; {by} is a {person.role}")


def grant_credit(
    ctx: ChallengeContext, handle: str, amount_usd: float, *, reason: str, by: str | None = None
) -> Balance:
    """Give ``handle`` ``amount_usd`` more credit (organizers only: ``by`` must be one, or None
    for the local CLI). The grant is an append-only ledger entry with its reason."""
    if not reason.strip():
        raise JobError("a grant needs a --reason")
    if not amount_usd > 0:
        raise JobError(f"a grant must be a positive amount, not {amount_usd:g}")
    _check_organizer(ctx, by, "granting credit")
    return ledger.grant(
        ctx.store, ctx.settings, ctx.challenge_id, handle, amount_usd, reason=reason.strip(),
        actor=by or "organizer",
    )  # fmt: skip


def flavor_prices(ctx: ChallengeContext, backend: str | None = None) -> dict[str, float]:
    """Flavors of a backend and their price in USD per hour."""
    backend = backend or ctx.settings.jobs_backend
    if backend == "local":
        return dict(ctx.settings.local_flavors)
    if backend == "hf":
        return hardware_prices(ctx)
    raise JobError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")


# -- launching ---------------------------------------------------------------------------------


def _target(
    ctx: ChallengeContext, paper: str | None, claim: str | None
) -> tuple[int | None, int | None, str | None, str | None]:
    if claim and "/" in claim:
        claim_paper, claim = claim.rsplit("/", 1)
        if paper and paper != claim_paper:
            raise NotFoundError(f"claim {claim_paper}/{claim} is not of paper {paper}")
        paper = claim_paper
    if claim and not paper:
        raise NotFoundError(f"claim {claim} needs --paper (or write it as PAPER/{claim})")
    if not paper:
        return None, None, None, None
    with ctx.store.session() as session:
        paper_id = session.scalar(
            select(Paper.id).where(Paper.challenge_id == ctx.challenge_id, Paper.venue_id == paper)
        )
        if paper_id is None:
            raise NotFoundError(f"no paper {paper!r} in this challenge")
        claim_id = None
        if claim:
            found = find_claim(session, ctx.challenge_id, claim, paper=paper)
            if found is None:
                raise NotFoundError(f"no claim {claim!r} in paper {paper}")
            claim_id = found[0].id
    return paper_id, claim_id, paper, claim


def _launch(
    ctx: ChallengeContext, *, kind: str, command: list[str], script: str | None,
    script_args: list[str], handle: str | None, backend: str | None, flavor: str | None,
    timeout_s: float | None, paper: str | None, claim: str | None, workdir: Path | None,
) -> JobView:  # fmt: skip
    settings = ctx.settings
    backend = backend or settings.jobs_backend
    if backend not in BACKENDS:
        raise JobError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if not command:
        raise JobError("no command given (write it after `--`)")
    handle = handle or settings.jobs_participant
    prices = flavor_prices(ctx, backend)
    if not flavor:
        flavor = settings.jobs_flavor or (
            "cpu-basic" if backend == "hf" else min(prices, key=lambda f: prices[f], default="")
        )
    if flavor not in prices:
        raise JobError(
            f"unknown {backend} flavor {flavor!r}; known: {', '.join(sorted(prices)) or 'none'}"
        )
    timeout = float(timeout_s if timeout_s is not None else settings.jobs_timeout_s)
    if not timeout > 0:
        raise JobError(f"the timeout must be positive, not {timeout:g}")
    price = prices[flavor]
    paper_id, claim_id, paper_vid, claim_key = _target(ctx, paper, claim)
    participant_id = ledger.get_or_create_participant(ctx.store, ctx.challenge_id, handle or "")
    labels = {"challenge": settings.name, "participant": handle or "", "kind": kind}
    if paper_vid:
        labels["paper"] = paper_vid
    if claim_key:
        labels["claim"] = claim_key
    with ledger.locked(ctx.store, participant_id) as session:
        person = session.get(Participant, participant_id)
        assert person is not None
        job = Job(
            challenge_id=ctx.challenge_id, participant_id=participant_id, paper_id=paper_id,
            claim_id=claim_id, backend=backend, flavor=flavor, command=command,
            status="scheduling", timeout_s=timeout, price_per_hour_usd=price,
            reserved_usd=round(price * timeout / 3600.0, 6), cost_is_estimate=backend == "hf",
            labels=labels, workdir=str((workdir or Path.cwd()).resolve()),
        )  # fmt: skip
        ledger.reserve(session, settings, person, job, f"this {backend} job")
        job.log_path = str(job_dir(ctx, job.id) / "log.txt")
        store_id = job.id
    public_id = format_job_id(backend, store_id)
    if backend == "local":
        pid = spawn_supervisor(ctx, store_id)
        with ctx.store.session() as session:
            row = session.get(Job, store_id)
            if row is not None and row.pid is None:
                row.pid = pid
        return get_job(ctx, public_id)
    hub_labels = {LABEL_PREFIX + k: label_value(v) for k, v in labels.items() if k != "kind"}
    hub_labels[LABEL_PREFIX + "job"] = str(store_id)
    env = {"OPENREPRO_JOB_ID": public_id}
    client = HfJobs(ctx)
    try:
        if kind == "uv" and script is not None:
            hub = client.run_uv(
                script, script_args, flavor=flavor, timeout_s=timeout, labels=hub_labels, env=env
            )
        else:
            hub = client.run(command, flavor=flavor, timeout_s=timeout, labels=hub_labels, env=env)
    except JobError as exc:
        ledger.finish_job(ctx.store, store_id, status="error", error=str(exc), running_s=0.0)
        raise
    with ctx.store.session() as session:
        row = session.get(Job, store_id)
        assert row is not None
        row.external_id = hub.id
        row.labels = {**row.labels, "url": hub.url}
        if hub.status in ("scheduling", "running"):
            row.status = hub.status
        row.started_at = hub.started_at
    return get_job(ctx, public_id)


def run_job(
    ctx: ChallengeContext, command: list[str], *, handle: str | None = None,
    backend: str | None = None, flavor: str | None = None, timeout_s: float | None = None,
    paper: str | None = None, claim: str | None = None, workdir: Path | None = None,
) -> JobView:  # fmt: skip
    """Reserve price x timeout of ``handle``'s credit and launch ``command``.

    Raises :class:`~openrepro.errors.BudgetError` when it does not fit, :class:`JobError` when
    the backend refuses it (the reservation is then released).
    """
    return _launch(
        ctx, kind="command", command=list(command), script=None, script_args=[], handle=handle,
        backend=backend, flavor=flavor, timeout_s=timeout_s, paper=paper, claim=claim,
        workdir=workdir,
    )  # fmt: skip


def run_uv_job(
    ctx: ChallengeContext, script: str, script_args: list[str] | None = None, *,
    handle: str | None = None, backend: str | None = None, flavor: str | None = None,
    timeout_s: float | None = None, paper: str | None = None, claim: str | None = None,
    workdir: Path | None = None,
) -> JobView:  # fmt: skip
    """Run a uv script (PEP 723 inline dependencies): ``uv run SCRIPT ARGS`` locally, or HF's
    ``run_uv_job`` on HF Jobs."""
    args = list(script_args or [])
    return _launch(
        ctx, kind="uv", command=["uv", "run", script, *args], script=script, script_args=args,
        handle=handle, backend=backend, flavor=flavor, timeout_s=timeout_s, paper=paper,
        claim=claim, workdir=workdir,
    )  # fmt: skip


# -- following and controlling ----------------------------------------------------------------


def _row(ctx: ChallengeContext, store_id: int) -> Job:
    with ctx.store.session() as session:
        job = session.get(Job, store_id)
    if job is None:
        raise NotFoundError(f"no job {store_id}")
    return job


def read_logs(ctx: ChallengeContext, job_id: str | int) -> str:
    """The job's output so far (stdout and stderr together)."""
    job = _row(ctx, _store_id(ctx, job_id))
    path = Path(job.log_path) if job.log_path else None
    if job.backend == "local" or (job.status in TERMINAL and path and path.is_file()):
        if path is None or not path.is_file():
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    if not job.external_id:
        return ""
    return "".join(line + "\n" for line in HfJobs(ctx).logs(job.external_id, follow=False))


def follow_logs(ctx: ChallengeContext, job_id: str | int, *, poll_s: float = 0.2) -> Iterator[str]:
    """Yield the job's output as it is written, until the job has ended and all is read."""
    store_id = _store_id(ctx, job_id)
    job = _row(ctx, store_id)
    if job.backend == "hf":
        if job.external_id:
            for line in HfJobs(ctx).logs(job.external_id, follow=True):
                yield line + "\n"
        return
    path = Path(job.log_path or job_dir(ctx, store_id) / "log.txt")
    offset = 0
    while True:
        ended = _row(ctx, store_id).status in TERMINAL
        if ended:
            reconcile_one(ctx, store_id)
        if path.is_file():
            with open(path, "rb") as handle:
                handle.seek(offset)
                chunk = handle.read()
            if chunk:
                offset += len(chunk)
                yield chunk.decode("utf-8", errors="replace")
                continue
        if ended:
            return
        if _local_abandoned(ctx, _row(ctx, store_id)):
            reconcile_one(ctx, store_id)
        time.sleep(poll_s)


def cancel_job(ctx: ChallengeContext, job_id: str | int, *, by: str | None = None) -> JobView:
    """Stop a job (and, locally, its whole process group); its reservation is settled.

    ``by``: the participant asking (their own jobs, or any job for an organizer); None is the
    local CLI acting as the organizer.
    """
    store_id = _store_id(ctx, job_id)
    view = get_job(ctx, store_id)
    if by is not None and by != view.participant:
        _check_organizer(ctx, by, f"canceling {view.id} of {view.participant}")
    if view.status in TERMINAL:
        return view
    job = _row(ctx, store_id)
    if job.backend == "hf":
        if job.external_id:
            HfJobs(ctx).cancel(job.external_id)
        reconcile_one(ctx, store_id, canceled=True)
        return get_job(ctx, store_id)
    if job.pid is not None and supervisor_alive(job.pid, store_id):
        os.kill(job.pid, 15)  # SIGTERM: the supervisor kills the group and settles
        deadline = time.monotonic() + 15.0
        while time.monotonic() < deadline:
            if _row(ctx, store_id).settled_at is not None:
                return get_job(ctx, store_id)
            if not supervisor_alive(job.pid, store_id):
                break
            time.sleep(0.05)
    _settle_abandoned(ctx, _row(ctx, store_id), status="canceled", error="canceled")
    return get_job(ctx, store_id)


def wait_job(
    ctx: ChallengeContext, job_id: str | int, *, timeout_s: float | None = None,
    poll_s: float = 0.2,
) -> JobView:  # fmt: skip
    """Block until the job has ended (and been settled); :class:`JobError` after ``timeout_s``."""
    store_id = _store_id(ctx, job_id)
    job = _row(ctx, store_id)
    if job.backend == "hf" and job.external_id and job.status not in TERMINAL:
        HfJobs(ctx).wait(job.external_id, timeout_s)
        reconcile_one(ctx, store_id)
        return get_job(ctx, store_id)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        reconcile_one(ctx, store_id)
        job = _row(ctx, store_id)
        if job.status in TERMINAL and job.settled_at is not None:
            return get_job(ctx, store_id)
        if deadline is not None and time.monotonic() >= deadline:
            raise JobError(f"job {format_job_id(job.backend, store_id)} still {job.status} "
                           f"after {timeout_s:g} s")  # fmt: skip
        time.sleep(poll_s)


# -- reconcile ---------------------------------------------------------------------------------


def _local_abandoned(ctx: ChallengeContext, job: Job) -> bool:
    """A local job whose supervisor is gone (or never recorded itself) without settling."""
    if job.settled_at is not None or job.backend != "local":
        return False
    if job.pid is None:
        return utcnow() - ledger.aware(job.created_at) > timedelta(seconds=LAUNCH_GRACE_S)
    return not supervisor_alive(job.pid, job.id)


def _settle_abandoned(ctx: ChallengeContext, job: Job, *, status: str, error: str) -> bool:
    if job.pgid is not None:
        kill_group(job.pgid, grace_s=0.5)
    return ledger.finish_job(ctx.store, job.id, status=status, error=error, actor="reconcile")


def _log_hub(ctx: ChallengeContext, job: Job, client: HfJobs) -> None:
    """Keep an ended HF job's logs in its log file (the Hub may not keep them)."""
    if not job.external_id or not job.log_path:
        return
    try:
        text = "".join(line + "\n" for line in client.logs(job.external_id, follow=False))
    except JobError:
        return
    path = Path(job.log_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def reconcile_one(ctx: ChallengeContext, store_id: int, *, canceled: bool = False) -> str | None:
    """Settle one job if it has ended (or its supervisor died); the new status, or None."""
    job = _row(ctx, store_id)
    if job.settled_at is not None:
        return None
    if job.backend == "local":
        if job.status in TERMINAL:  # ended, but the settlement was lost
            ledger.finish_job(ctx.store, job.id, status=job.status, actor="reconcile")
            return job.status
        if _local_abandoned(ctx, job):
            error = (
                f"supervisor (pid {job.pid}) died; settled by reconcile"
                if job.pid is not None
                else "launch abandoned before the supervisor started; settled by reconcile"
            )
            status = "canceled" if canceled else "error"
            _settle_abandoned(ctx, job, status=status, error=error)
            return status
        return None
    client = HfJobs(ctx)
    if not job.external_id:
        found = client.find({LABEL_PREFIX + "job": str(job.id)})
        if found:
            with ctx.store.session() as session:
                row = session.get(Job, job.id)
                assert row is not None
                row.external_id = found[0].id
            job = _row(ctx, store_id)
        elif utcnow() - ledger.aware(job.created_at) > timedelta(seconds=LAUNCH_GRACE_S):
            ledger.finish_job(ctx.store, job.id, status="error", running_s=0.0,
                              error="never reached HF Jobs; released by reconcile")  # fmt: skip
            return "error"
        else:
            return None
    assert job.external_id is not None
    hub = client.inspect(job.external_id)
    if hub.status not in TERMINAL:
        if hub.status != job.status:
            with ctx.store.session() as session:
                row = session.get(Job, job.id)
                assert row is not None
                row.status = hub.status
                row.started_at = hub.started_at
        return None
    _log_hub(ctx, job, client)
    ledger.finish_job(
        ctx.store, job.id, status=hub.status, error=hub.message, started_at=hub.started_at,
        finished_at=hub.finished_at, running_s=hub.running_s, actor="reconcile",
    )  # fmt: skip
    return hub.status


def reconcile(ctx: ChallengeContext) -> ReconcileReport:
    """Settle every job that ended without being settled: local jobs whose supervisor died (the
    pid is gone), HF jobs the Hub reports ended. Run at the start of every ``jobs`` command."""
    report = ReconcileReport()
    with ctx.store.session() as session:
        rows = session.execute(
            select(Job.id, Job.backend, Job.status).where(
                Job.challenge_id == ctx.challenge_id, Job.settled_at.is_(None)
            )
        ).all()
    for store_id, backend, before in rows:
        name = format_job_id(backend, store_id)
        try:
            reconcile_one(ctx, store_id)
        except JobError as exc:
            report.warnings.append(f"{name}: {exc}")
            continue
        after = _row(ctx, store_id)
        if after.settled_at is not None:
            report.settled.append(name)
        elif after.status != before:
            report.updated.append(name)
    return report
