"""Load: 200 logbooks from 50 concurrent clients through the JSON API, on SQLite and PostgreSQL.

A real uvicorn server on 127.0.0.1 (:func:`board_fixtures.live_board`) and real HTTP (httpx,
asyncio): 50 participants register (``POST /api/v1/participants``), then each submits 4 distinct
small bundle archives (``POST /api/v1/logbooks``, multipart, Bearer token), all 50 at once. Every
submission must be accepted, and the store must then hold exactly 200 logbooks (no duplicate,
none lost), one per accepted revision, whose files are all present in the content-addressed
store with the right sha256 and size (re-hashed). The bundles share some files (the same
``train.py`` everywhere), so concurrent writers of one blob are exercised too.

The concurrency is what is tested (50 writers at once, each with new logbooks and new revisions);
the volume is a figure: ``PER_CLIENT, PAPERS = 20, 10`` makes the 1,000-logbook run of
docs/scale.md (~35 s a database instead of ~7 s).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import tarfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from board_fixtures import live_board
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.challenge import ChallengeContext
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.submit import blob_path
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Logbook, Participant

CLIENTS, PER_CLIENT, PAPERS = 50, 4, 2


def _archives(base: Path) -> dict[str, list[bytes]]:
    """PER_CLIENT distinct .tar.gz bundles per participant: two revisions for each paper."""
    folder = make_bundle(base / "bundle")
    manifest = json.loads((folder / "manifest.json").read_text())
    archives: dict[str, list[bytes]] = {}
    for c in range(CLIENTS):
        handle = f"loader{c:02d}"
        for i in range(PER_CLIENT):
            value = round(0.5 + (c * PER_CLIENT + i) / 10_000, 4)  # unique: a new revision each
            paper = f"p{i % PAPERS}"
            (folder / "results" / "seed0.json").write_text(f'{{"accuracy": {value}}}\n')
            manifest.update(
                paper=paper, participant=handle, title=f"{handle} attempt {i}",
                claims=[f"{paper}/C1"],
                metrics=[{"run": "seed0", "key": f"claims/{paper}/C1/accuracy", "step": 0,
                          "value": value}],
            )  # fmt: skip
            (folder / "manifest.json").write_text(json.dumps(manifest))
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
                tar.add(folder, arcname="bundle")
            archives.setdefault(handle, []).append(buffer.getvalue())
    return archives


async def _submit_all(base: str, archives: dict[str, list[bytes]]) -> list[dict[str, Any]]:
    # No keep-alive: a pooled connection that the server closes as idle (uvicorn's 5 s) while a
    # request is being sent fails with ReadError, a client race that says nothing about the store.
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as http:
        tokens: dict[str, str] = {}
        for handle in archives:
            r = await http.post("/api/v1/participants", json={"handle": handle})
            assert r.status_code == 201, r.text
            tokens[handle] = r.json()["token"]

        async def client(handle: str) -> list[dict[str, Any]]:
            headers = {"Authorization": f"Bearer {tokens[handle]}"}
            replies = []
            for i, data in enumerate(archives[handle]):
                files = {"file": (f"{handle}-{i}.tar.gz", data, "application/gzip")}
                r = await http.post("/api/v1/logbooks", files=files, headers=headers)
                assert r.status_code == 201, (handle, i, r.status_code, r.text)
                replies.append(r.json())
            return replies

        done = await asyncio.gather(*(client(h) for h in archives))
    return [reply for replies in done for reply in replies]


def test_logbooks_from_50_concurrent_clients(challenge: ChallengeContext, tmp_path: Path) -> None:
    records = [PaperRecord(venue_id=f"p{i}", title=f"Paper {i}", abstract="A paper.")
               for i in range(PAPERS)]  # fmt: skip
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    archives = _archives(tmp_path)
    with live_board(challenge) as base:
        started = time.perf_counter()
        replies = asyncio.run(_submit_all(base, archives))
        seconds = time.perf_counter() - started
    total = CLIENTS * PER_CLIENT
    print(f"{total} logbooks from {CLIENTS} clients in {seconds:.1f} s "
          f"({total / seconds:.0f}/s)")  # fmt: skip

    assert len(replies) == total
    assert Counter(r["status"] for r in replies) == {
        "new": CLIENTS * PAPERS,
        "new-revision": total - CLIENTS * PAPERS,
    }
    ids = {r["logbook_id"] for r in replies}
    assert len(ids) == total  # each submission its own row
    files_dir = challenge.settings.resolved_files_dir()
    with challenge.store.session() as session:
        assert session.scalar(select(func.count(Logbook.id))) == total
        assert session.scalar(select(func.count(Participant.id))) == CLIENTS
        books = session.execute(
            select(Logbook.id, Logbook.revision, Logbook.manifest, Participant.handle).join(
                Participant, Participant.id == Logbook.participant_id
            )
        ).all()
    assert {b.id for b in books} == ids
    assert {(b.handle, b.revision) for b in books} == {
        (r["participant"], r["revision"]) for r in replies
    }
    blobs: dict[str, int] = {}
    for book in books:
        record = LogbookRecord.model_validate(book.manifest)
        assert record.participant == book.handle and len(record.files) == 5
        assert record.revision() == book.revision  # the stored record is the submitted one
        for ref in record.files:
            blobs[ref.sha256] = ref.size
    assert len(blobs) >= total  # every results file is distinct
    for sha, size in blobs.items():
        data = blob_path(files_dir, sha).read_bytes()
        assert len(data) == size and hashlib.sha256(data).hexdigest() == sha
    leftovers = [p for p in files_dir.rglob("*") if p.is_file() and p.name.startswith(".")]
    assert leftovers == []  # no half-written blob
