"""Author outreach for a confirmed finding: drafts, .eml files, SMTP, responses in stats."""

from __future__ import annotations

import json
import socket
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext
from openrepro.cli import app
from openrepro.errors import ConfigError
from openrepro.evidence.records import Pointer, describe_pointer
from openrepro.judge import judge_logbooks
from openrepro.outcomes import (
    author_response_counts,
    author_responses,
    compute_stats,
    current_verdicts,
)
from openrepro.outreach import (
    draft_messages,
    list_messages,
    record_response,
    send_messages,
)
from openrepro.recheck import decide, run_recheck
from organizer_scenario import submit_all


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append((list(envelope.rcpt_tos), bytes(envelope.content)))
        return "250 OK"


def test_confirmed_finding_outreach_and_response(
    challenge: ChallengeContext, organizer_workspaces: dict[str, Path], tmp_path: Path
) -> None:
    submit_all(challenge, organizer_workspaces)
    judge_logbooks(challenge, None)
    run_recheck(challenge, "p1/C1")
    with pytest.raises(ConfigError):  # not confirmed yet
        draft_messages(challenge, claim="p1/C1")
    decide(challenge, "p1/C1", "confirmed", "71 vs 88.1 on three seeds; no excuse found")
    decide(challenge, "rl1/C1", "rejected", "per-batch-of-50 timing")

    challenge.settings = challenge.settings.model_copy(
        update={"public_url": "https://repro.example.org/"}
    )
    drafts = draft_messages(challenge, to=["Authors <authors@example.org>"], out_dir=tmp_path)
    assert [d.claim for d in drafts] == ["p1/C1"]  # only the confirmed finding
    body = drafts[0].body
    assert "Reaches 88.1% GLUE accuracy." in body and "reaches 88.1 average accuracy" in body
    assert "do you agree with this finding, or is our analysis wrong?" in body.lower()
    with challenge.store.session() as s:
        currents = current_verdicts(s, challenge)
        mine = [c for c in currents if c.verdict.claim_id == next(
            c.verdict.claim_id for c in currents if c.participant == "falsified-1")]  # fmt: skip
        pointers = [Pointer.model_validate(p) for c in mine for p in c.verdict.evidence]
        book = mine[0].logbook.id
    assert len(pointers) == 3  # three seeds
    assert f"https://repro.example.org/logbooks/{book}" in body
    assert "- falsified, logbook" in body
    for pointer in pointers:
        assert describe_pointer(pointer) in body
    # the .eml file is a real message with the same text
    eml = Path(drafts[0].eml_path or "")
    parsed: Message = message_from_bytes(eml.read_bytes())
    assert parsed["To"] == "Authors <authors@example.org>"
    assert "p1" in parsed["Subject"] and parsed["Message-ID"]
    payload = parsed.get_payload(decode=True)
    assert isinstance(payload, bytes) and describe_pointer(pointers[0]) in payload.decode()
    # drafting again keeps the draft
    assert [d.id for d in draft_messages(challenge, out_dir=tmp_path)] == [drafts[0].id]

    with pytest.raises(ConfigError):  # no SMTP server configured
        send_messages(challenge)
    inbox = _Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        challenge.settings = challenge.settings.model_copy(
            update={"smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False,
                    "smtp_from": "Organizers <org@example.org>"}
        )  # fmt: skip
        sent = send_messages(challenge)
    finally:
        controller.stop()
    assert [m.status for m in sent] == ["sent"]
    assert len(inbox.messages) == 1
    rcpts, raw = inbox.messages[0]
    assert rcpts == ["authors@example.org"]
    received = message_from_bytes(raw)
    assert received["From"] == "Organizers <org@example.org>"
    text = received.get_payload(decode=True)
    assert isinstance(text, bytes) and "Reaches 88.1% GLUE accuracy." in text.decode()
    assert list_messages(challenge, status="draft") == []
    assert send_messages(challenge) == []  # nothing left to send, nothing sent twice

    with pytest.raises(ConfigError):
        record_response(challenge, "p1/C1", "fixed")  # needs the version
    record_response(challenge, "p1/C1", "disputes", note="first reply")
    record_response(challenge, "p1/C1", "fixed", version="arXiv v3", note="corrected table 2")
    assert author_response_counts(challenge) == {"fixed": 1}
    assert [(r.claim, r.version) for r in author_responses(challenge)] == [("p1/C1", "arXiv v3")]
    assert compute_stats(challenge).author_responses == {"fixed": 1}

    runner = CliRunner()
    home = ["--dir", str(challenge.settings.directory)]
    result = runner.invoke(app, [*home, "outreach", "ls", "--responses", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["response"] == "fixed"
    result = runner.invoke(app, [*home, "recheck", "ls", "--format", "json"])
    assert result.exit_code == 0, result.output
    statuses = {e["claim"]: e["status"] for e in json.loads(result.output)}
    assert statuses == {"p1/C1": "confirmed", "rl1/C1": "rejected"}
    result = runner.invoke(app, [*home, "recheck", "show", "rl1/C1"])
    assert result.exit_code == 0 and "normalisation" not in result.output  # never re-checked
    result = runner.invoke(app, [*home, "recheck", "run", "rl1/C1"])
    assert result.exit_code == 0 and "per-trajectory vs per-batch-of-50" in result.output
