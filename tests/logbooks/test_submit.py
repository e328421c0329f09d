"""Submitting logbooks (SQLite and PostgreSQL): content-addressed files, revisions, no partial
state on errors."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError, NotFoundError
from openrepro.logbooks.submit import blob_path, submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Logbook, Participant


@pytest.fixture
def paper(challenge: ChallengeContext) -> str:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    return "p1"


def _count(ctx: ChallengeContext) -> int:
    with ctx.store.session() as s:
        return s.scalar(select(func.count(Logbook.id))) or 0


def test_submit_stores_record_and_files_and_is_idempotent(
    challenge: ChallengeContext, paper: str, tmp_path: Path
) -> None:
    bundle = make_bundle(tmp_path / "b")
    first = submit_logbook(challenge, bundle)
    assert (first.status, first.participant, first.paper_id) == ("new", "ada", "p1")
    assert first.evidence.runs[0]["exit_code"] == 0
    assert first.evidence.metrics == {"claims/p1/C1/accuracy": 1}
    assert first.testimony == ["# Claim p1/C1: verified"]
    assert "claims not in this challenge: p1/C1" in first.warnings[0]
    files_dir = challenge.settings.resolved_files_dir()
    with challenge.store.session() as s:
        book = s.scalar(select(Logbook))
        assert book is not None
        stored = book.manifest
    for ref in stored["files"]:
        blob = blob_path(files_dir, ref["sha256"])
        assert blob.read_bytes() == (bundle / ref["path"]).read_bytes()

    again = submit_logbook(challenge, bundle)
    assert (again.status, again.logbook_id) == ("unchanged", first.logbook_id)

    (bundle / "logs" / "seed0.txt").write_text("epoch 1\naccuracy 0.86\n", encoding="utf-8")
    changed = submit_logbook(challenge, bundle)
    assert changed.status == "new-revision"
    assert changed.revision != first.revision
    assert _count(challenge) == 2  # old revision kept


def test_archives_are_unpacked_and_handles_checked(
    challenge: ChallengeContext, paper: str, tmp_path: Path
) -> None:
    bundle = make_bundle(tmp_path / "b")
    archive = tmp_path / "b.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bundle, arcname="attempt")
    report = submit_logbook(challenge, archive, handle="bo")
    assert report.participant == "bo" and report.status == "new"
    with pytest.raises(LogbookError, match="invalid participant handle"):
        submit_logbook(challenge, bundle, handle="../../root")


def test_errors_leave_nothing_behind(
    challenge: ChallengeContext, paper: str, tmp_path: Path
) -> None:
    other = make_bundle(tmp_path / "other", paper="not-a-paper")
    with pytest.raises(NotFoundError, match="not-a-paper"):
        submit_logbook(challenge, other)
    files_dir = challenge.settings.resolved_files_dir()
    assert not any(p.is_file() for p in files_dir.rglob("*")) if files_dir.exists() else True
    with challenge.store.session() as s:
        assert s.scalar(select(func.count(Participant.id))) == 0
    assert _count(challenge) == 0

    broken = make_bundle(tmp_path / "broken")
    (broken / "manifest.json").write_text(json.dumps({"openrepro_bundle": 1}), encoding="utf-8")
    with pytest.raises(LogbookError, match="paper"):
        submit_logbook(challenge, broken)
    with pytest.raises(LogbookError, match="neither a Trackio logbook"):
        submit_logbook(challenge, tmp_path)
    assert _count(challenge) == 0
