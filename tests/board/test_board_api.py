"""The agents' JSON API: identity, roles, submission, verdicts, overrides, freeze, errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from board_fixtures import tarball
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store
from sqlalchemy import select
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.identity import register
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Claim, Paper, Participant


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def api(challenge: ChallengeContext) -> TestClient:
    records = [PaperRecord(venue_id="p1", title="A paper about accuracy")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "p1"))
        assert paper is not None
        session.add(Claim(paper_id=paper.id, key="C1", text="accuracy is 0.87", kind="result"))
    return TestClient(create_app(challenge, cache_seconds=0))


def test_register_issues_a_token_stored_only_as_hash(
    api: TestClient, challenge: ChallengeContext
) -> None:
    reply = api.post("/api/v1/participants", json={"handle": "ada", "team": "lab"})
    assert reply.status_code == 201, reply.text
    token = reply.json()["token"]
    assert api.get("/api/v1/me", headers=_bearer(token)).json()["handle"] == "ada"
    with challenge.store.session() as session:
        stored = session.scalar(select(Participant.token_hash).where(Participant.handle == "ada"))
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    assert token not in (stored or "")
    # a second registration of the same handle by someone else is refused
    again = api.post("/api/v1/participants", json={"handle": "ada"})
    assert again.status_code == 403
    assert "already registered" in again.json()["error"]["message"]


def test_anonymous_cannot_become_organizer(api: TestClient) -> None:
    reply = api.post("/api/v1/participants", json={"handle": "eve", "role": "organizer"})
    assert reply.status_code == 403
    assert reply.json()["error"]["type"] == "PermissionDeniedError"


def test_bad_tokens_are_401(api: TestClient) -> None:
    assert api.get("/api/v1/me", headers=_bearer("orp_nope")).status_code == 401
    assert api.get("/api/v1/me", headers={"Authorization": "Basic abc"}).status_code == 401


def test_participants_submit_only_as_themselves(
    api: TestClient, challenge: ChallengeContext, tmp_path: Path
) -> None:
    ada = api.post("/api/v1/participants", json={"handle": "ada"}).json()["token"]
    bob = api.post("/api/v1/participants", json={"handle": "bob"}).json()["token"]
    archive = tarball(make_bundle(tmp_path / "bundle"), tmp_path / "ada.tar.gz")

    def send(token: str | None, **form: str) -> int:
        with archive.open("rb") as fh:
            headers = _bearer(token) if token else {}
            files = {"file": ("ada.tar.gz", fh, "application/gzip")}
            return api.post("/api/v1/logbooks", files=files, data=form, headers=headers).status_code

    assert send(None) == 401
    assert send(bob, **{"as": "ada"}) == 403
    reply_status = send(ada)
    assert reply_status == 201
    # the stored logbook is ada's even though anyone could write any name in a manifest
    books = api.get("/api/v1/papers/p1").json()["logbooks"]
    assert [b["participant"] for b in books] == ["ada"]
    # bob submitting the same bundle gets his own logbook, not ada's
    assert send(bob) == 201
    books = api.get("/api/v1/papers/p1").json()["logbooks"]
    assert sorted(b["participant"] for b in books) == ["ada", "bob"]


def test_submission_errors_are_clear_json(api: TestClient, tmp_path: Path) -> None:
    token = api.post("/api/v1/participants", json={"handle": "ada"}).json()["token"]
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    with bad.open("rb") as fh:
        reply = api.post("/api/v1/logbooks", files={"file": ("notes.txt", fh)},
                         headers=_bearer(token))  # fmt: skip
    assert reply.status_code == 422
    assert "not an archive" in reply.json()["error"]["message"]
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    with broken.open("rb") as fh:
        reply = api.post("/api/v1/logbooks", files={"file": ("broken.tar.gz", fh)},
                         headers=_bearer(token))  # fmt: skip
    assert reply.status_code == 422
    assert reply.json()["error"]["type"] in {"LogbookError", "UnsafeArchiveError"}
    assert api.get("/api/v1/papers/p1").json()["logbooks"] == []  # nothing half-stored


def test_only_organizers_override_edit_and_freeze(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    build_outcome_store(challenge)
    api = TestClient(create_app(challenge, cache_seconds=0))
    boss = register(challenge, "boss", role="organizer").token
    alice = register(challenge, "alice").token
    cells = api.get("/api/v1/verdicts", params={"paper": "P4-allfalse"}).json()
    target = cells[0]["verdict_id"]
    body = {"value": "verified", "reason": "re-derived"}
    assert api.post(f"/api/v1/verdicts/{target}/override", json=body).status_code == 401
    assert api.post(f"/api/v1/verdicts/{target}/override", json=body,
                    headers=_bearer(alice)).status_code == 403  # fmt: skip
    ok = api.post(f"/api/v1/verdicts/{target}/override", json=body, headers=_bearer(boss))
    assert ok.status_code == 200, ok.text
    assert ok.json()["old_value"] == "falsified"
    listed = api.get("/api/v1/verdicts", params={"paper": "P4-allfalse"}).json()
    after = {c["verdict_id"]: c for c in listed}
    assert after[target]["value"] == "verified"
    assert after[target]["judge_value"] == "falsified"  # the judge's value is kept
    assert after[target]["edited_by"] == "boss"
    stats = api.get("/api/v1/stats").json()
    assert {r["key"]: r["count"] for r in stats["rows"]}["all_falsified"] == 0

    edit = {"reason": "typo", "text": "a clearer claim"}
    assert api.post("/api/v1/claims/P1-full/C1/edit", json=edit,
                    headers=_bearer(alice)).status_code == 403  # fmt: skip
    edited = api.post("/api/v1/claims/P1-full/C1/edit", json=edit, headers=_bearer(boss))
    assert edited.status_code == 200 and edited.json()["text"] == "a clearer claim"

    assert api.post("/api/v1/freeze", headers=_bearer(alice)).status_code == 403
    assert api.post("/api/v1/freeze", headers=_bearer(boss)).status_code == 200
    frozen = api.post(f"/api/v1/verdicts/{target}/override", json=body, headers=_bearer(boss))
    assert frozen.status_code == 409
    assert "read-only" in frozen.json()["error"]["message"]


def test_private_verdicts_until_the_window_closes(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    challenge.settings.verdict_window_hours = 24 * 365 * 100
    api = TestClient(create_app(challenge, cache_seconds=0))
    boss = register(challenge, "boss", role="organizer").token
    alice = register(challenge, "alice").token
    assert api.get("/api/v1/verdicts").json() == []
    assert api.get("/api/v1/verdicts", headers=_bearer(alice)).json() == []
    assert len(api.get("/api/v1/verdicts", headers=_bearer(boss)).json()) == 16
    public = api.get("/api/v1/stats").json()
    assert {r["key"]: r["count"] for r in public["rows"]}["examined"] == 0
    # the public board page shows no verdict either
    page = api.get("/papers/P1-full").text
    assert "v-verified" not in page.split('id="matrix"')[1]


def test_unknown_routes_and_filters(api: TestClient) -> None:
    assert api.get("/api/v1/papers/none-such").json()["error"]["type"] == "NotFoundError"
    reply = api.get("/api/v1/papers", params={"status": "bogus"})
    assert reply.status_code == 404 and "unknown filter" in reply.json()["error"]["message"]
    listed = api.get("/api/v1/papers", params={"status": "unattempted"}).json()
    assert [p["venue_id"] for p in listed["papers"]] == ["p1"]
    spec = api.get("/api/openapi.json").json()
    assert "/api/v1/logbooks" in spec["paths"] and "/api/v1/papers/{venue_id}" in spec["paths"]


def test_a_frozen_challenge_refuses_every_write(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    from openrepro.claims.service import edit_claim
    from openrepro.errors import FrozenError
    from openrepro.identity import reopen, set_frozen
    from openrepro.judge.service import judge_logbooks

    records = [PaperRecord(venue_id="p1", title="Paper")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    with challenge.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "p1"))
        assert paper is not None
        session.add(Claim(paper_id=paper.id, key="C1", text="accuracy is 0.87", kind="result"))
    set_frozen(challenge)
    with pytest.raises(FrozenError):
        submit_logbook(challenge, make_bundle(tmp_path / "b"), handle="ada")
    with pytest.raises(FrozenError):
        import_papers(challenge.store, challenge.challenge_id, records, source="again")
    with pytest.raises(FrozenError), challenge.store.session() as session:
        edit_claim(
            session,
            challenge.challenge_id,
            "p1/C1",
            editor="o",
            reason="r",
            text="x",
            drafting="rules",
        )
    with pytest.raises(FrozenError):
        judge_logbooks(challenge, None)
    with pytest.raises(FrozenError):
        register(challenge, "newcomer")
    reopen(challenge)
    assert submit_logbook(challenge, make_bundle(tmp_path / "c"), handle="ada").status == "new"


def test_submission_errors_never_show_server_paths(api: TestClient, tmp_path: Path) -> None:
    """An upload is unpacked in a server temporary folder: its errors name the file inside the
    archive, never where the server put it."""
    import tarfile
    import tempfile

    token = api.post("/api/v1/participants", json={"handle": "ada"}).json()["token"]
    bad = tmp_path / "bad.tar.gz"
    inner = tmp_path / "logbook.json"
    inner.write_text("{not json")
    with tarfile.open(bad, "w:gz") as tar:
        tar.add(inner, arcname=".trackio/logbook/logbook.json")
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    for archive in (bad, broken):
        with archive.open("rb") as fh:
            reply = api.post("/api/v1/logbooks", files={"file": (archive.name, fh)},
                             headers=_bearer(token))  # fmt: skip
        assert reply.status_code == 422, reply.text
        message = reply.json()["error"]["message"]
        assert tempfile.gettempdir() not in message and "openrepro-upload-" not in message
