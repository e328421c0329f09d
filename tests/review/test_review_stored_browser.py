"""The demo's perceptual claim in real Chromium: a real Trackio run saves the images, the task is
made from that run's output, Chromium (Playwright) plays an organizer who looks at each image's
pixels and answers with the keyboard through the review server, the answers land in the store,
and the judge verifies the claim at the ``reviewed`` level."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.demo.review_step import CHROMIUM_ENV, chromium_path, run_review_step
from openrepro.store.tables_review import ReviewAnswerRow


def test_a_scripted_reviewer_in_chromium_decides_the_perceptual_claim(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    # the suite's Chromium policy (tests/conftest.py's browser fixture); the step launches its
    # own Chromium, so that fixture's Playwright loop must not run beside it
    if not chromium_path():
        if os.environ.get("OPENREPRO_TEST_ALLOW_NO_BROWSER") == "1":
            pytest.skip("Chromium missing: run `source scripts/chromium.sh`")
        pytest.fail("Chromium missing: run `source scripts/chromium.sh`")
    report = run_review_step(challenge, tmp_path / "work")
    assert not report.skipped and report.browser
    assert report.items == 20 and report.answered == 24  # 20 items + 4 repeats
    assert (report.verdict, report.rule, report.provenance) == ("verified", "K:H4", "reviewed")
    with challenge.store.session() as s:
        seconds = list(s.scalars(select(ReviewAnswerRow.seconds)))
        count = s.scalar(select(func.count(ReviewAnswerRow.id)))
    assert count == 24 and all(v is not None and v > 0 for v in seconds)
    median = sorted(v or 0.0 for v in seconds)[len(seconds) // 2]
    print(f"\nChromium reviewer: {report.answered} answers, median {median:.3f} s per item, "
          f"{report.verdict} [{report.rule}] {report.provenance}, flags {report.flags}, "
          f"{report.seconds} s")  # fmt: skip


def test_without_chromium_the_step_says_so_and_the_claim_stays_undecided(
    challenge: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CHROMIUM_ENV, "")
    monkeypatch.setenv("PATH", "/nonexistent")
    report = run_review_step(challenge, tmp_path / "work")
    assert "not available" in report.skipped and report.answered == 0
    assert (report.verdict, report.rule) == ("inconclusive", "K:H0")
