"""A hosted event end to end, over HTTP on 127.0.0.1: a live `openrepro serve` board and two
remote participants, each with their own HOME (their own config folder, as on two machines).

Each one registers with the board (`participants register --server`), pulls a paper from it
(`pull --server`), reproduces under the real `trackio logbook run`, uploads with a plain
`openrepro submit DIR` (the token comes from their config), and, once the organizer has judged,
sees the verdict with `openrepro status` and on the board's pages in Chromium.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.claims.proposals import accept_proposal, list_proposals
from openrepro.cli import app
from openrepro.errors import AuthError, PermissionDeniedError, SourceError
from openrepro.identity import set_team
from openrepro.judge.service import judge_logbooks
from openrepro.papers import PaperRecord, import_papers
from openrepro.remote import pack_workspace, submit_remote
from openrepro.store.judge_queue import queue_stats

ABSTRACT = "On CIFAR-10 our method reaches at least 90% accuracy with a small backbone."
TRAIN = """
import sys, trackio
for seed, value in enumerate(float(v) for v in sys.argv[1].split(",")):
    trackio.init(project="repro-p1", name=f"seed{seed}")
    trackio.log({"claims/p1/C1/accuracy": value})
    trackio.finish()
print("done")
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[ChallengeContext, str]]:
    """The organizer's challenge (one paper, one claim with a check) served by `openrepro
    serve --no-worker` in its own process: nothing is judged until the organizer does."""
    with _served(tmp_path, "--no-worker") as (ctx, base, _):
        yield ctx, base


@pytest.fixture
def judging_board(tmp_path: Path) -> Iterator[tuple[ChallengeContext, str, int]]:
    """The same, served by a plain `openrepro serve`: with its judge worker (and the server's
    process id)."""
    with _served(tmp_path) as served:
        yield served


@contextlib.contextmanager
def _served(tmp_path: Path, *extra: str) -> Iterator[tuple[ChallengeContext, str, int]]:
    ctx = init_challenge(tmp_path / "board", "hosted", title="Hosted test")
    paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT)
    import_papers(ctx.store, ctx.challenge_id, [paper], source="t")
    with ctx.store.session() as s:
        view = add_claim(s, ctx.challenge_id, "p1", text="At least 90% accuracy.",
                         kind="result", quotes=["reaches at least 90%"], editor="org",
                         drafting="rules")  # fmt: skip
    assert view.check is not None
    port = _port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    log = tmp_path / "serve.log"  # a file, not a pipe nobody reads: the log cannot block it
    with log.open("w") as out:  # the server keeps its own copy of the file
        server = subprocess.Popen(
            [sys.executable, "-m", "openrepro", "--dir", str(tmp_path / "board"), "serve",
             "--port", str(port), "--cache-seconds", "0", "--no-warm", *extra],
            env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/healthz", timeout=5)
                break
            except httpx.HTTPError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the board did not start"
                time.sleep(0.1)
        yield ctx, base, server.pid
    finally:
        server.terminate()
        server.wait(timeout=20)
        ctx.close()


def _cli(home: Path, *args: str, env: dict[str, str | None] | None = None) -> Result:
    """The openrepro CLI as this participant: their HOME, so their config folder."""
    own: dict[str, str | None] = {"HOME": str(home), "XDG_CONFIG_HOME": None,
                                  "OPENREPRO_TOKEN": None, **(env or {})}  # fmt: skip
    return CliRunner().invoke(app, list(args), env=own)


def _trackio(home: Path, ws: Path, *args: str) -> None:
    env = {**os.environ, "HOME": str(home), "TRACKIO_DIR": str(ws / ".trackio"),
           "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}  # fmt: skip
    cli = Path(sys.executable).parent / "trackio"
    done = subprocess.run([str(cli), *args], cwd=ws, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def _participant(
    home: Path, base: str, handle: str, team: str | None, values: str,
    propose: dict[str, Any] | None = None,
) -> int:  # fmt: skip
    """Register, pull, reproduce, submit: what INSTRUCTIONS.md tells the participant to do
    (with ``propose``, a check proposed for p1/C1 in the workspace's checks.json)."""
    home.mkdir()
    done = _cli(home, "participants", "register", handle, "--server", base,
                *(["--team", team] if team else []))  # fmt: skip
    assert done.exit_code == 0, done.output
    stored = home / ".config" / "openrepro" / "credentials.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert json.loads(stored.read_text())["servers"][base]["handle"] == handle
    assert "orp_" not in done.stdout  # the token goes to the config, not to the screen

    ws = home / "p1"
    pulled = _cli(home, "pull", "p1", "--server", base, "--dir", str(ws))
    assert pulled.exit_code == 0, pulled.output
    howto = (ws / "INSTRUCTIONS.md").read_text()
    agents = (ws / "AGENTS.md").read_text()
    for text in (howto, agents):
        assert "openrepro participants register <" in text and f"--server {base}" in text
        assert "openrepro submit ." in text and "openrepro status" in text
        assert "--as" not in text
    page = json.loads((ws / ".openrepro" / "workspace.json").read_text())
    assert page["server"] == base

    if propose is not None:
        done = _cli(home, "check", "propose", "p1/C1", "--json", json.dumps(propose),
                    "--dir", str(ws))  # fmt: skip
        assert done.exit_code == 0, done.output
    (ws / "train.py").write_text(TRAIN)
    logbook = json.loads((ws / ".trackio" / "logbook" / "logbook.json").read_text())
    assert logbook["paper"]["id"] == "p1"
    claim_page = next(iter(_pages(ws)))
    _trackio(home, ws, "logbook", "run", "--page", claim_page, "--", sys.executable, "train.py",
             values)  # fmt: skip

    submitted = _cli(home, "submit", str(ws), "-f", "json")
    assert submitted.exit_code == 0, submitted.output
    report = json.loads(submitted.stdout)
    assert (report["participant"], report["paper_id"], report["status"]) == (handle, "p1", "new")
    (claim,) = report["bindings"]  # the API answers the per-claim bindings, as a local submit
    assert claim["claim"] == "p1/C1" and claim["check"]
    (quantity,) = claim["quantities"]
    assert quantity["how"] == "key" and sorted(quantity["values"]) == sorted(
        float(v) for v in values.split(",")
    )
    again = _cli(home, "submit", str(ws))  # the people's format: the same lines as a local one
    assert again.exit_code == 0, again.output
    assert "unchanged" in again.stdout and "bindings" in again.stdout
    assert f"{quantity['quantity']}: key: {quantity['reason']}, 3 values" in again.stdout
    return int(report["logbook_id"])


def _pages(ws: Path) -> list[str]:
    pages = ws / ".trackio" / "logbook" / "pages"
    return sorted(p.name for p in pages.iterdir() if p.is_dir() and p.name.startswith("p1"))


def test_two_remote_participants_take_part_over_http(
    board: tuple[ChallengeContext, str], tmp_path: Path, browser: Any
) -> None:
    ctx, base = board
    ada = _participant(tmp_path / "ada", base, "ada", "lab-a", "95.1,95.3,94.9")
    bo = _participant(tmp_path / "bo", base, "bo", None, "85.2,85.0,84.9")

    # before the judge: status lists the logbook, the rule and the bindings, no verdict yet
    early = _cli(tmp_path / "ada", "status", "--server", base, "-f", "json")
    assert early.exit_code == 0, early.output
    (book,) = json.loads(early.stdout)["logbooks"]
    assert book["logbook_id"] == ada and book["claims"][0]["verdict"] is None

    judge_logbooks(ctx, None)  # the organizer, on the board's machine

    # self-registered under `open`: shown (the judge's value), not counted until a team is
    # confirmed by an organizer
    early = json.loads(_cli(tmp_path / "bo", "status", "--server", base, "-f", "json").stdout)
    assert early["counted"] is False and "confirms your team" in early["note"]
    (claim,) = early["logbooks"][0]["claims"]
    assert (claim["judge_value"], claim["verdict"]) == ("falsified", "inconclusive")
    set_team(ctx, "ada", "lab-a")
    set_team(ctx, "bo", "lab-b")

    seen = {}
    for handle, logbook_id in (("ada", ada), ("bo", bo)):
        home = tmp_path / handle
        ws_status = CliRunner().invoke(app, ["status", "-f", "json"],
                                       env={"HOME": str(home), "XDG_CONFIG_HOME": None,
                                            "OPENREPRO_TOKEN": None})  # fmt: skip
        assert ws_status.exit_code == 0, ws_status.output  # the one board it registered with
        status = json.loads(ws_status.stdout)
        assert status["handle"] == handle and status["server"] == base and status["counted"]
        (book,) = status["logbooks"]
        (claim,) = book["claims"]
        assert book["logbook_id"] == logbook_id and claim["claim"] == "p1/C1"
        assert claim["rule"] and claim["bindings"][0]["how"] == "key"
        seen[handle] = claim["verdict"]
    assert seen == {"ada": "verified", "bo": "falsified"}
    table = _cli(tmp_path / "bo", "status", "--server", base)
    assert table.exit_code == 0 and "falsified" in table.stdout and "p1/C1" in table.stdout

    # clear errors: a bad token, a handle taken, a board that is not there
    bad = _cli(tmp_path / "ada", "status", "--server", base, env={"OPENREPRO_TOKEN": "orp_bad"})
    assert isinstance(bad.exception, AuthError) and "refused the token" in str(bad.exception)
    anonymous = httpx.get(f"{base}/api/v1/me/logbooks", timeout=10)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["type"] == "AuthError"
    taken = _cli(tmp_path / "bo", "participants", "register", "ada", "--server", base)
    assert isinstance(taken.exception, PermissionDeniedError)
    assert "taken" in str(taken.exception)
    away = _cli(tmp_path / "bo", "participants", "register", "cy", "--server",
                f"http://127.0.0.1:{_port()}")  # fmt: skip
    assert isinstance(away.exception, SourceError)
    assert "cannot reach the board" in str(away.exception)
    lost = _cli(tmp_path / "cy-home", "status", "--server", base)
    assert isinstance(lost.exception, AuthError)
    assert "participants register" in str(lost.exception)

    # the upload reports its progress chunk by chunk (what the CLI's progress bar shows)
    sent: list[int] = []
    archive = pack_workspace(tmp_path / "ada" / "p1", tmp_path)
    token = json.loads((tmp_path / "ada/.config/openrepro/credentials.json").read_text())
    again = submit_remote(base, archive, token=token["servers"][base]["token"], advance=sent.append)
    assert again.status == "unchanged" and sum(sent) == archive.stat().st_size

    # and on the board, in a browser
    page = browser.new_page()
    for logbook_id, verdict in ((ada, "verified"), (bo, "falsified")):
        response = page.goto(f"{base}/logbooks/{logbook_id}")
        assert response is not None and response.status == 200
        assert verdict in page.inner_text("body")
    page.goto(f"{base}/papers/p1")
    body = page.inner_text("body")
    assert "ada" in body and "bo" in body
    page.close()


#: a participant's reading of the claim: accuracy above 90 (the drafted check says at least)
PROPOSAL = {
    "relation": "bound", "subject": "accuracy", "quantities": [{"name": "accuracy"}],
    "comparator": "gt", "constant": {"value": 90, "text": "90"}, "direction": "higher",
}  # fmt: skip


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in found]


@contextlib.contextmanager
def _paused(pid: int, database: Path) -> Iterator[None]:
    """The judge worker ``pid`` stopped (SIGSTOP) outside a write transaction, then let go."""
    import sqlite3

    while True:
        os.kill(pid, signal.SIGSTOP)
        probe = sqlite3.connect(database, timeout=0.2)
        try:
            probe.execute("BEGIN IMMEDIATE")  # fails while the stopped worker holds the lock
            probe.execute("ROLLBACK")
            break
        except sqlite3.OperationalError:
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.05)
        finally:
            probe.close()
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_submission_and_an_accepted_check_are_judged_by_themselves(
    judging_board: tuple[ChallengeContext, str, int], tmp_path: Path, browser: Any
) -> None:
    """No organizer types `judge`: `serve`'s worker judges the submission within 60 s
    (`status --wait`), and the accepted proposal's verdict again, after the paper page showed
    the claim awaiting re-judging."""
    ctx, base, server = judging_board
    started = time.monotonic()
    ada = _participant(tmp_path / "ada", base, "ada", "lab-a", "95.1,95.3,94.9", PROPOSAL)
    waited = _cli(tmp_path / "ada", "status", "--server", base, "--wait", "--timeout", "60",
                  "-f", "json")  # fmt: skip
    assert waited.exit_code == 0, waited.output
    assert time.monotonic() - started < 60 + 30  # 30 s: registering, pulling, two runs
    (book,) = json.loads(waited.stdout)["logbooks"]
    (claim,) = book["claims"]
    assert book["logbook_id"] == ada and book["queue_position"] is None
    assert (claim["queue"], claim["judge_value"]) == ("judged", "verified")
    assert "provisional" in claim["flags"]  # under ada's own, unconfirmed proposal
    first_at = claim["judged_at"]
    assert first_at is not None
    table = _cli(tmp_path / "ada", "status", "--server", base)
    assert table.exit_code == 0 and "judge queue" in table.stdout and "judged" in table.stdout

    (worker,) = _children(server)  # the judge worker `serve` started
    database = Path(ctx.settings.directory) / "openrepro.db"
    assert database.is_file()
    page = browser.new_page()
    with _paused(worker, database):
        with ctx.store.session() as session:  # the organizer accepts ada's proposal
            (proposal,) = list_proposals(session, ctx.challenge_id, claim="p1/C1")
            accept_proposal(session, ctx.challenge_id, proposal.id, editor="org")
        pending = json.loads(_cli(tmp_path / "ada", "status", "--server", base, "-f",
                                  "json").stdout)  # fmt: skip
        assert pending["logbooks"][0]["claims"][0]["queue"] == "queued"
        page.goto(f"{base}/papers/p1")
        assert "awaiting re-judging" in page.inner_text("#claim-C1")
    waited = _cli(tmp_path / "ada", "status", "--server", base, "--wait", "--timeout", "60",
                  "-f", "json")  # fmt: skip
    assert waited.exit_code == 0, waited.output
    (claim,) = json.loads(waited.stdout)["logbooks"][0]["claims"]
    assert (claim["queue"], claim["judge_value"]) == ("judged", "verified")
    assert "provisional" not in claim["flags"] and claim["judged_at"] > first_at
    page.goto(f"{base}/papers/p1")
    assert "awaiting re-judging" not in page.inner_text("#claim-C1")
    page.close()
    queue = _cli(tmp_path / "ada", "status", "--server", base, "--queue")
    assert isinstance(queue.exception, PermissionDeniedError)  # organizers only
    with ctx.store.session() as session:
        stats = queue_stats(session, ctx.challenge_id)
    assert (stats.queued, stats.judging, stats.failed) == (0, 0, 0) and stats.done >= 2
