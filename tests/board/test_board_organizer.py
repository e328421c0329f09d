"""The board shows the organizers' work: the re-check queue, author responses, compute jobs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fastapi.testclient import TestClient
from outcome_store import build_outcome_store

from openrepro.board import build_board_site, create_app
from openrepro.challenge import ChallengeContext
from openrepro.jobs import run_job, wait_job
from openrepro.outreach import record_response


def test_recheck_queue_page_and_filters(challenge: ChallengeContext, tmp_path: Path) -> None:
    build_outcome_store(challenge)
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/recheck").text
    listed = set(re.findall(r">(P\d+-[a-z]+/C\d)</a>", page))
    # falsified and contested consensus put these claims in the queue
    assert {"P3-mixed/C2", "P4-allfalse/C1", "P4-allfalse/C2", "P5-contested/C1"} <= listed
    assert board.get("/recheck?status=confirmed").text.count('data-status="') == 0
    assert "P5-contested" in board.get("/papers?status=needs-recheck").text
    out = tmp_path / "site"
    build_board_site(challenge, out)
    assert "P5-contested/C1" in (out / "recheck.html").read_text()
    assert (out / "recheck-open.html").is_file()


def test_author_responses_on_the_paper_page(challenge: ChallengeContext, tmp_path: Path) -> None:
    build_outcome_store(challenge)
    record_response(challenge, "P4-allfalse/C1", "fixed", version="v3", note="erratum posted")
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/papers/P4-allfalse").text
    assert "<strong>fixed</strong> (version v3)" in page and "erratum posted" in page
    out = tmp_path / "site"
    build_board_site(challenge, out)
    assert "erratum posted" in (out / "papers" / "p" / "P4-allfalse.html").read_text()


def test_jobs_on_the_participant_page(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    job = run_job(challenge, [sys.executable, "-c", "print('hi')"], handle="alice",
                  timeout_s=60, paper="P1-full")  # fmt: skip
    done = wait_job(challenge, job.id, timeout_s=60)
    assert done.status == "completed"
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/participants/alice").text
    assert f"<code>{job.id}</code>" in page and "completed" in page


def test_needs_recheck_follows_flags_and_decisions(challenge: ChallengeContext) -> None:
    from openrepro.board.data import pending_recheck
    from openrepro.recheck import decide
    from openrepro.store import Verdict

    build_outcome_store(challenge)
    assert pending_recheck(challenge) == {"P3-mixed", "P4-allfalse", "P5-contested"}
    with challenge.store.session() as session:
        verdict = session.query(Verdict).filter(Verdict.verdict == "toy").one()
        verdict.flags = ["unit_mismatch"]  # a flagged verdict queues its claim (P6)
    assert "P6-toy" in pending_recheck(challenge)
    decide(challenge, "P4-allfalse/C1", "confirmed", "re-derived")
    decide(challenge, "P4-allfalse/C2", "confirmed", "re-derived")
    assert "P4-allfalse" not in pending_recheck(challenge)
