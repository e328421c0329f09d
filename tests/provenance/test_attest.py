"""Attested runs: a run cell citing an openrepro job is checked against the platform's log."""

from __future__ import annotations

import sys
from pathlib import Path

from sqlalchemy import select
from test_replay import TRACKIO, _call, _verdict, _workspace

from openrepro.challenge import ChallengeContext
from openrepro.jobs import jobs_cited_by_run
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.provenance import JobEvidence, attest_logbook
from openrepro.store.tables_provenance import Replay


def _job_logbook(ctx: ChallengeContext, ws: Path, job: str) -> tuple[int, str]:
    """A real logbook whose run cell cites ``job`` in its title; returns (id, run output)."""
    slug, ws = _workspace(ctx, ws)
    _call(ws, TRACKIO, "logbook", "run", "--page", slug, "--title", f"GLUE on job {job}", "--",
          sys.executable, "train.py", "88.0", "0", "")  # fmt: skip
    book = submit_logbook(ctx, ws, handle=ws.name).logbook_id
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, book)
    assert jobs_cited_by_run(record, record.runs[0]) == [job]
    return book, record.runs[0].output


def test_local_job_becomes_attested(challenge: ChallengeContext, tmp_path: Path) -> None:
    book, output = _job_logbook(challenge, tmp_path / "jobbed", "local:7")
    log = tmp_path / "log.txt"  # the local backend's copy of the job's output
    log.write_text("openrepro: started\n" + output, encoding="utf-8")

    def fetch(job_id: str) -> JobEvidence | None:
        if job_id != "local:7":
            return None
        return JobEvidence(job_id=job_id, backend="local", status="completed", exit_code=0,
                           logs=log.read_text(encoding="utf-8"))  # fmt: skip

    results = attest_logbook(challenge, book, fetch=fetch)
    assert [(r.status, r.level) for r in results] == [("matched", "attested")]
    verdict = _verdict(challenge, book)
    assert (verdict.verdict, verdict.provenance) == ("verified", "attested")


def test_platform_copy_disagreeing_is_flagged(challenge: ChallengeContext, tmp_path: Path) -> None:
    book, output = _job_logbook(challenge, tmp_path / "tampered", "local:8")
    platform = output.replace("[88.0]", "[61.5]")  # the job really printed something else
    fetch = lambda job_id: JobEvidence(  # noqa: E731
        job_id=job_id, backend="local", status="completed", exit_code=0, logs=platform
    )
    results = attest_logbook(challenge, book, fetch=fetch)
    assert [r.status for r in results] == ["mismatched"]
    assert results[0].details["output_lines_missing"]
    verdict = _verdict(challenge, book)
    assert "attestation_mismatch" in verdict.flags
    assert verdict.verdict != "verified" and verdict.provenance == "testimony"
    with challenge.store.session() as session:
        kinds = session.scalars(select(Replay.kind)).all()
    assert kinds == ["attest"]


def test_a_real_local_job_attests_the_run(challenge: ChallengeContext, tmp_path: Path) -> None:
    """End to end with openrepro's own local backend: the participant runs train.py as a job,
    cites the job in the run cell, and the judge fetches the job's log from the backend."""
    from openrepro.jobs import run_job, wait_job

    slug, ws = _workspace(challenge, tmp_path / "withjob")
    job = run_job(challenge, [sys.executable, "train.py", "88.0", "0", ""], handle="withjob",
                  timeout_s=120, workdir=ws)  # fmt: skip
    assert wait_job(challenge, job.id, timeout_s=120).status == "completed"
    _call(ws, TRACKIO, "logbook", "run", "--page", slug, "--title", f"GLUE on job {job.id}",
          "--", sys.executable, "train.py", "88.0", "0", "")  # fmt: skip
    book = submit_logbook(challenge, ws, handle="withjob").logbook_id
    results = attest_logbook(challenge, book)  # the default fetcher: openrepro.jobs
    assert [(r.status, r.level) for r in results] == [("matched", "attested")]
    verdict = _verdict(challenge, book)
    assert (verdict.verdict, verdict.provenance) == ("verified", "attested")
