"""Crash safety: `judge --all` and `claims extract --all` killed with SIGKILL, then resumed.

Each test starts the real CLI (``python -m openrepro``) on a store large enough that a run lasts
a few seconds, kills it with SIGKILL 20 times, each once it has written a random number of rows
(fixed seed; by progress, not wall time, so a loaded machine moves no kill past the end), lets it
resume, then runs it to the end and checks the store: on SQLite and on PostgreSQL,

* judge: every (current logbook, active claim) holds exactly one verdict under the run's judge
  config, with the value its logged metrics imply (nothing lost, duplicated or half-written), and
  no verdict on an older revision or a removed claim;
* extract: every paper holds exactly one extraction record, marked done, with as many active
  claims as the record says, and no claim key twice.

The judge runs the deterministic path (``--no-llm``: the logbooks log ``claims/<paper>/<key>/
accuracy`` during successful runs, stored as matched replays, the claims report a value, so the
rules decide). Extraction
needs an LLM: a local OpenAI-compatible server on 127.0.0.1 (:class:`fake_openai.FakeOpenAI`)
answers every request at once with the same valid choice of sentences. A real model is not
needed: the property under test is about storage (what a killed process leaves behind and what
the resumed one makes of it), not about what the model says.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, completion
from sqlalchemy import func, insert, select

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check, Constant, Quantity, Relation
from openrepro.judge.engine import judge_config
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.store import Claim, ClaimExtraction, Logbook, Paper, Participant, Verdict
from openrepro.store.tables_provenance import Replay

KILLS = 20
REPORTED = 80.0  # every claim reports accuracy 80.0


FORKSERVER = Path(__file__).with_name("cli_forkserver.py")


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    return full | (extra or {})


def _count(ctx: ChallengeContext, model: Any) -> int:
    with ctx.store.session() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def _kill_and_resume(
    ctx: ChallengeContext,
    folder: Path,
    args: list[str],
    model: Any,
    total: int,
    seed: int,
    env: dict[str, str] | None = None,
) -> list[tuple[int, int]]:
    """Start the CLI and SIGKILL it once it has written a random number of rows, 20 times; then
    run it to the end with ``python -m openrepro``. Returns (rows before, rows after) for each
    killed run.

    The killed runs are children forked by :mod:`cli_forkserver` (the CLI's own entry point,
    without 1.5 s of imports each); the last run is the real command line."""
    rng = random.Random(seed)
    progress: list[tuple[int, int]] = []
    full = [*args, "-f", "json"]
    log = folder.parent / "child.stderr"
    server = subprocess.Popen([sys.executable, str(FORKSERVER)], env=_env(None), text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    try:
        for _ in range(KILLS):
            before = _count(ctx, model)
            request = {"args": ["--dir", str(folder), *full], "env": env or {}, "stderr": str(log)}
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            pid = json.loads(server.stdout.readline())["pid"]
            # Kill by progress, not by wall time: once this run has written a random share of
            # what is left (up to 1/(kills left + 1)), so every kill lands mid-work however
            # loaded the machine is; then a few ms of jitter so it lands at varied points of the
            # next transaction.
            share = (total - before) / (KILLS - len(progress) + 1)
            target = before + max(1, round(share * rng.uniform(0.2, 1.0)))
            deadline = time.monotonic() + 120
            while _count(ctx, model) < target and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.01))
            with contextlib.suppress(ProcessLookupError):  # it may have finished
                os.kill(pid, signal.SIGKILL)
            status = json.loads(server.stdout.readline())["status"]
            if os.WIFEXITED(status):
                assert os.WEXITSTATUS(status) == 0, log.read_text()
            else:
                assert os.WTERMSIG(status) == signal.SIGKILL
                progress.append((before, _count(ctx, model)))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    last = subprocess.run([sys.executable, "-m", "openrepro", "--dir", str(folder), *full],
                          env=_env(env), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert last.returncode == 0, last.stderr
    return progress


# ---- judge -----------------------------------------------------------------------------------

PAPERS, CLAIMS, PEOPLE_PER_PAPER = 25, 6, 6


def _expected(book: int, key: int) -> str:
    return ("verified", "falsified", "inconclusive")[(book + key) % 3]


def _manifest(venue: str, book: int, stale: bool) -> dict[str, Any]:
    metrics = []
    for key in range(1, CLAIMS + 1):
        wanted = _expected(book, key)
        if wanted == "inconclusive":
            continue  # not logged: with --no-llm the claim is inconclusive
        value = REPORTED if wanted == "verified" else REPORTED / 2
        metrics.append(Metric(run="seed0", key=f"claims/{venue}/C{key}/accuracy", step=0,
                              value=value - 10 * stale, source="bundle"))  # fmt: skip
    record = LogbookRecord(
        format="bundle", format_version="1", paper_id=venue, title=f"Attempt {book}",
        claims=[f"{venue}/C{k}" for k in range(1, CLAIMS + 1)],
        runs=[Run(id="seed0", command=["python", "train.py"], exit_code=0, duration_s=3.0)],
        metrics=metrics,
    )  # fmt: skip
    return record.model_dump(mode="json")


def _judge_store(ctx: ChallengeContext) -> int:
    """Papers with five active claims and one removed; per paper eight participants, every
    third with an older revision too. Returns the number of (current logbook, active claim)."""
    cid = ctx.challenge_id
    start = datetime(2026, 7, 1, tzinfo=UTC)
    papers = [{"id": p, "challenge_id": cid, "venue_id": f"p{p:03d}", "title": f"Paper {p}",
               "abstract": "A paper.", "source": "test"} for p in range(1, PAPERS + 1)]  # fmt: skip
    people = [{"id": i, "challenge_id": cid, "handle": f"user{i:03d}", "name": ""}
              for i in range(1, PEOPLE_PER_PAPER + 1)]  # fmt: skip
    reported = [{"metric": "accuracy", "value": REPORTED, "text": f"{REPORTED}"}]
    claims = [
        {"paper_id": p, "key": f"C{k}", "text": f"The method reaches {REPORTED} accuracy ({k}).",
         "kind": "result", "reported": reported,
         "status": "removed" if k > CLAIMS else "active",
         "check": _check(f"p{p:03d}/C{k}")}
        for p in range(1, PAPERS + 1) for k in range(1, CLAIMS + 2)
    ]  # fmt: skip
    books: list[dict[str, Any]] = []
    for p in range(1, PAPERS + 1):
        for person in range(1, PEOPLE_PER_PAPER + 1):
            for stale in (True, False) if person % 3 == 0 else (False,):
                n = len(books) + 1
                books.append({
                    "id": n, "paper_id": p, "participant_id": person, "revision": f"r{n:05d}",
                    "format": "bundle", "title": f"Attempt {n}",
                    "manifest": _manifest(f"p{p:03d}", n, stale),
                    "submitted_at": start + timedelta(minutes=n),
                })  # fmt: skip
    with ctx.store.engine.begin() as conn:
        conn.execute(insert(Paper), papers)
        conn.execute(insert(Participant), people)
        conn.execute(insert(Claim), claims)
        conn.execute(insert(Logbook), books)
        # a bundle's run is its manifest's word: it counts once a replay matched it
        conn.execute(insert(Replay), [{"logbook_id": b["id"], "run_id": "seed0", "kind": "replay",
                                       "status": "matched", "level": "replayed", "details": {}}
                                      for b in books])  # fmt: skip
    return PAPERS * PEOPLE_PER_PAPER * CLAIMS


def _check(claim_id: str) -> dict[str, Any]:
    """Every claim's check: accuracy = 80.0 (nothing is judged without a check)."""
    check = Check(relation=Relation.equal, subject="accuracy",
                  quantities=[Quantity(name="accuracy")],
                  constant=Constant(value=REPORTED, text=f"{REPORTED}"))  # fmt: skip
    return check.for_claim(claim_id).model_dump(mode="json")


def test_judge_survives_sigkill(challenge: ChallengeContext, tmp_path: Path) -> None:
    total = _judge_store(challenge)
    folder = tmp_path / "ch"
    progress = _kill_and_resume(
        challenge, folder, ["judge", "--all", "--no-llm"], Verdict, total, seed=9
    )
    mid_run = [p for p in progress if p[0] < p[1] < total]
    assert len(mid_run) == KILLS, progress  # every kill landed while verdicts were being written

    config = judge_config("")
    with challenge.store.session() as session:
        verdicts = session.execute(
            select(Verdict.logbook_id, Claim.key, Claim.status, Verdict.verdict, Verdict.evidence)
            .join(Claim, Claim.id == Verdict.claim_id)
            .where(Verdict.judge_config == config)
        ).all()
        assert session.scalar(select(func.count(Verdict.id))) == len(verdicts)
        books = session.execute(
            select(Logbook.id, Logbook.paper_id, Logbook.participant_id).order_by(Logbook.id)
        ).all()
    current: dict[tuple[int, int], int] = {}
    for book in books:
        current[(book.paper_id, book.participant_id)] = book.id
    wanted = {(b, f"C{k}") for b in current.values() for k in range(1, CLAIMS + 1)}
    counts = Counter((v.logbook_id, v.key) for v in verdicts)
    assert len(wanted) == total
    assert set(counts) == wanted  # none lost; none on an old revision or a removed claim
    assert set(counts.values()) == {1}  # none duplicated
    for v in verdicts:
        assert v.verdict == _expected(v.logbook_id, int(v.key[1:])), v
        assert bool(v.evidence) == (v.verdict != "inconclusive"), v


# ---- extract ---------------------------------------------------------------------------------

EXTRACT_PAPERS = 200
ABSTRACT = (
    "We propose a sparse attention method for long documents. "
    "On GLUE, the method reaches {acc:.1f} average accuracy with a 350M-parameter backbone. "
    "Training is {speed:.1f}x faster per step on a single A100 than dense attention. "
    "The code and the checkpoints are released under an open licence."
)
#: The same answer to every paper: sentences 2 and 3 state the claims (verbatim by construction).
ANSWER = json.dumps({"claims": [
    {"claim": "The method reaches the reported average accuracy on GLUE.", "sentences": [2],
     "kind": "result"},
    {"claim": "Training is faster per step than dense attention on one A100.",
     "sentences": [3], "kind": "efficiency"},
]})  # fmt: skip


def test_extract_survives_sigkill(challenge: ChallengeContext, tmp_path: Path) -> None:
    cid = challenge.challenge_id
    with challenge.store.engine.begin() as conn:
        conn.execute(insert(Paper), [
            {"challenge_id": cid, "venue_id": f"x{i:04d}", "title": f"Sparse attention {i}",
             "abstract": ABSTRACT.format(acc=60 + i / 20, speed=1 + i / 100), "source": "test"}
            for i in range(EXTRACT_PAPERS)
        ])  # fmt: skip
    folder = tmp_path / "ch"
    with FakeOpenAI(default=completion(ANSWER)) as server:
        env = {"OPENREPRO_LLM_URL": server.url, "OPENREPRO_LLM_MODEL": "fake-model",
               "OPENREPRO_LLM_CONCURRENCY": "4"}  # fmt: skip
        progress = _kill_and_resume(challenge, folder, ["claims", "extract", "--all"],
                                    ClaimExtraction, EXTRACT_PAPERS, seed=11, env=env)  # fmt: skip
        calls = server.count("/v1/chat/completions")
    mid_run = [p for p in progress if p[0] < p[1] < EXTRACT_PAPERS]
    assert len(mid_run) == KILLS, progress
    assert calls >= EXTRACT_PAPERS

    with challenge.store.session() as session:
        records = session.execute(
            select(Paper.venue_id, ClaimExtraction.status, ClaimExtraction.claims_stored).join(
                ClaimExtraction, ClaimExtraction.paper_id == Paper.id
            )
        ).all()
        claims = session.execute(
            select(Paper.venue_id, Claim.key, Claim.status, Claim.quotes).join(
                Claim, Claim.paper_id == Paper.id
            )
        ).all()
    per_paper = Counter(r.venue_id for r in records)
    assert len(per_paper) == EXTRACT_PAPERS and set(per_paper.values()) == {1}
    assert {r.status for r in records} == {"done"}
    keys = Counter((c.venue_id, c.key) for c in claims)
    assert set(keys.values()) == {1}  # no key twice
    active = Counter(c.venue_id for c in claims if c.status == "active")
    assert all(active[r.venue_id] == r.claims_stored == 2 for r in records), records[:3]
    assert all(c.status == "active" for c in claims)  # a resumed run removed nothing it had kept
