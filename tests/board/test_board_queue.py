"""The judge queue through the agents' JSON API: a submission is queued and answered with its
place; a participant past ``queue_max_per_participant`` is answered 429 with the reason and
nothing is stored; the queue itself is for organizers (GET /api/v1/queue)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from board_fixtures import tarball
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.identity import register
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Claim, Logbook, Paper


def test_a_full_queue_is_a_clear_429(challenge: ChallengeContext, tmp_path: Path) -> None:
    records = [PaperRecord(venue_id="p1", title="A paper about accuracy")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "p1"))
        assert paper is not None
        for key in ("C1", "C2"):
            session.add(Claim(paper_id=paper.id, key=key, text="accuracy is 0.87", kind="result"))
    capped = dataclasses.replace(challenge, settings=challenge.settings.model_copy(
        update={"queue_max_per_participant": 2}))  # fmt: skip
    api = TestClient(create_app(capped, cache_seconds=0))
    token = api.post("/api/v1/participants", json={"handle": "ada"}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    first = tarball(make_bundle(tmp_path / "one"), tmp_path / "one.tar.gz")
    second = tarball(
        make_bundle(tmp_path / "two", title="Another attempt"), tmp_path / "two.tar.gz"
    )

    def send(archive: Path) -> tuple[int, dict[str, object]]:
        with archive.open("rb") as fh:
            files = {"file": (archive.name, fh, "application/gzip")}
            reply = api.post("/api/v1/logbooks", files=files, headers=headers)
        return reply.status_code, reply.json()

    status, report = send(first)
    assert status == 201, report
    assert (report["queued"], report["queue_position"]) == (2, 1)
    status, body = send(second)  # two claims wait already: the limit
    assert status == 429
    error = body["error"]
    assert isinstance(error, dict) and error["type"] == "QueueFullError"
    assert "limit is 2 per participant" in error["message"]
    with challenge.store.session() as session:
        assert session.scalar(select(func.count(Logbook.id))) == 1  # nothing more stored

    assert api.get("/api/v1/queue", headers=headers).status_code == 403
    organizer = register(challenge, "org", role="organizer")
    queue = api.get("/api/v1/queue", headers={"Authorization": f"Bearer {organizer.token}"})
    assert queue.status_code == 200 and queue.json()["queued"] == 2
    page = api.get("/stats")  # the stats page shows organizers and everyone the same figures
    assert page.status_code == 200
    assert "Judge queue" in page.text and "2 queued, 0 being judged" in page.text
