"""A participant's Space is fetched without the server's Hugging Face token: with it, a
participant could make the board fetch (and publish) a private Space that the organizer's token
can read. The real huggingface_hub client against the local stand-in Hub of ``fake_hub``."""

from __future__ import annotations

import json

import pytest
from fake_hub import FakeHub
from fastapi.testclient import TestClient
from test_space import _hub_client, hub  # noqa: F401 (fixtures: a fake Hub, a clean client)

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError
from openrepro.identity import register
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers

FILES = {
    "logbook.json": json.dumps({"schema_version": 2, "title": "Secret", "paper": "p1",
                                "root": {"slug": "index", "title": "C1",
                                         "file": "pages/index.md"}}).encode(),
    "pages/index.md": b'---\n<!-- trackio-cell\n{"type": "markdown"}\n-->\nPrivate notes.\n',
}  # fmt: skip


def test_a_private_space_is_not_fetched_with_the_servers_token(
    challenge: ChallengeContext,
    hub: FakeHub,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P")], source="t")  # fmt: skip
    hub.add_repo("space", "boss/secret", FILES, private=True)
    hub.add_repo("space", "ada/public", FILES)
    monkeypatch.setenv("HF_TOKEN", "hf_test")  # the server's token: it can read boss/secret
    with pytest.raises(LogbookError, match=r"Space boss/secret: private or not found"):
        submit_logbook(challenge, "space:boss/secret", handle="mallory")
    token = register(challenge, "mallory").token
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post("/api/v1/logbooks", data={"space": "boss/secret"},
                        headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert reply.status_code == 422 and "private" in reply.json()["error"]["message"]
    # a public Space is fetched as before
    reply = client.post("/api/v1/logbooks", data={"space": "ada/public"},
                        headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert reply.status_code == 201, reply.text
