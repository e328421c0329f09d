"""A human check end to end through the store: a real Trackio logbook whose recorded run saved
the images, a blinded task made from it, scripted reviewers answering over the review page's
HTTP (the real FastAPI app), the judge deciding from the stored answers, the board's logbook
page and the frozen dataset."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from review_images import brightness_of
from review_logbook import USABLE_BRIGHTNESS, image_logbook
from sqlalchemy import func, select
from typer.testing import CliRunner

from openrepro.board.assemble import logbook_data
from openrepro.board.catalogue import Links
from openrepro.board.pages import Renderer
from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Relation
from openrepro.cli import app
from openrepro.errors import ConfigError, NotFoundError
from openrepro.freeze import export_dataset
from openrepro.identity.service import register
from openrepro.judge.service import judge_logbooks
from openrepro.papers import PaperRecord, import_papers
from openrepro.review import (
    StoredAnswerLog,
    create_stored_task,
    load_task,
    read_answers,
    schedule,
)
from openrepro.review.server import create_app
from openrepro.store.tables_review import ReviewAnswerRow

QUOTE = "the images generated under 2-bit quantization stay visually usable"


@pytest.fixture
def perceptual(challenge: ChallengeContext) -> None:
    paper = PaperRecord(venue_id="p1", title="Tiny quantized diffusion",
                        abstract=f"We show that {QUOTE}.")  # fmt: skip
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, "p1", text="2-bit images stay usable.",
                         kind="qualitative", quotes=[QUOTE], editor="org",
                         drafting="rules")  # fmt: skip
    assert view.check is not None and view.check.relation is Relation.human  # rule H1
    assert view.check.rule == "H1" and view.check.human is not None
    register(challenge, "org", role="organizer")


def _reviewer(ctx: ChallengeContext, folder: Path, handle: str) -> TestClient:
    task = load_task(folder)
    return TestClient(
        create_app(folder, handle, StoredAnswerLog(ctx, task, handle)),
        base_url="http://127.0.0.1:8765",
    )


def _answer(client: TestClient, *, honest: bool, limit: int | None = None) -> int:
    """Look at the shown image and answer ``usable`` when it is bright enough (``honest``), or
    ``usable`` whatever it shows; returns the number answered."""
    done = 0
    while limit is None or done < limit:
        page = client.get("/").text
        if 'id="done"' in page:
            break
        slot = re.search(r'name="slot" value="(\d+)"', page)
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        image = re.search(r'id="left" src="(/img/[0-9a-f]+)"', page)
        assert slot and csrf and image and 'id="right"' not in page  # one output per item
        bright = brightness_of(client.get(image.group(1)).content) >= USABLE_BRIGHTNESS
        choice = "usable" if bright or not honest else "not usable"
        form = {"slot": slot.group(1), "choice": choice, "csrf": csrf.group(1)}
        sent = client.post("/answer", data=form, follow_redirects=False)
        assert sent.status_code == 303
        done += 1
    return done


def _verdict(ctx: ChallengeContext, logbook: int) -> dict[str, object]:
    report = judge_logbooks(ctx, None, logbook_ids=[logbook])
    row = next(r for r in report.verdicts if r.claim_id == "p1/C1")
    return row.model_dump()


def test_self_review_then_an_organizer_decides_through_store_judge_board_and_freeze(
    challenge: ChallengeContext, perceptual: None, tmp_path: Path
) -> None:
    logbook = image_logbook(challenge, tmp_path, "alice", paper="p1", claim="p1/C1", count=20,
                            dark=2)  # fmt: skip
    folder = tmp_path / "task"
    made = create_stored_task(challenge, "p1/C1", logbook, folder, pattern="outputs/int2.npy",
                              reviewers=["alice", "org"], seed=5, repeat_share=0.2)  # fmt: skip
    assert made.items == 20 and made.reviewers == {"alice": "self", "org": "organizer"}
    none_yet = _verdict(challenge, logbook)
    assert (none_yet["verdict"], none_yet["rule"]) == ("inconclusive", "K:H0")

    # the participant reviews their own outputs and calls every one usable
    assert _answer(_reviewer(challenge, folder, "alice"), honest=False) == 24
    mine = _verdict(challenge, logbook)
    assert (mine["verdict"], mine["rule"], mine["provenance"]) == ("verified", "K:H4",
                                                                   "self-recorded")  # fmt: skip
    assert "self_reviewed" in mine["flags"]

    # the organizer looks honestly; the server is restarted halfway (answers are in the store)
    assert _answer(_reviewer(challenge, folder, "org"), honest=True, limit=7) == 7
    assert _answer(_reviewer(challenge, folder, "org"), honest=True) == 24 - 7
    with challenge.store.session() as s:
        stored = s.scalar(select(func.count(ReviewAnswerRow.id)))
        seconds = list(s.scalars(select(ReviewAnswerRow.seconds)))
    assert stored == 48  # every slot once, for both reviewers
    assert sum(v is None for v in seconds) <= 1  # only the slot shown before the restart
    csv_copy = read_answers(folder / "answers.csv")
    assert len(csv_copy) == 48 and {a.reviewer for a in csv_copy} == {"alice", "org"}

    theirs = _verdict(challenge, logbook)
    assert (theirs["verdict"], theirs["rule"], theirs["provenance"]) == ("falsified", "K:H5",
                                                                         "reviewed")  # fmt: skip
    assert "too_fast" in theirs["flags"]  # a script answers in milliseconds: flagged, counted

    # the board's logbook page shows the task, the figures and the decision
    html = Renderer(challenge).render("logbook.html", Links.live(), static=False,
                                      data=logbook_data(challenge, logbook), jobs=[])  # fmt: skip
    section = html[html.index('id="human-review"') :]
    assert made.name in section and "falsified" in section and "[H5]" in section
    assert "organizer" in section and "self-agreement" in section.lower()
    assert "independent reviewers decide" in section  # alice is not counted

    # the freeze carries every answer, reviewers pseudonymised, and the figures
    export_dataset(challenge, tmp_path / "frozen")
    answers = (tmp_path / "frozen" / "json" / "review_answers.jsonl").read_text()
    rows = [json.loads(line) for line in answers.splitlines()]
    assert len(rows) == 48 and {r["reviewer"] for r in rows} == {"reviewer-1", "reviewer-2"}
    assert {r["role"] for r in rows} == {"self", "organizer"}
    assert '"alice"' not in answers and '"org"' not in answers
    tasks = [json.loads(x) for x in (tmp_path / "frozen/json/review_tasks.jsonl").open()]
    figures = tasks[0]["figures"]
    assert figures["verdict"] == "falsified" and figures["numbers"]["k"] == 10
    assert {r["reviewer"] for r in figures["reviewers"]} == {"reviewer-1", "reviewer-2"}
    print(f"\nstored review: participant-only verified ({mine['provenance']}); organizer "
          f"{figures['numbers']['k']}/{figures['numbers']['n']} usable, interval "
          f"[{figures['numbers']['low']:.2f}, {figures['numbers']['high']:.2f}] -> "
          f"{figures['verdict']}; self-agreement "
          f"{[r['self_agreement'] for r in figures['reviewers']]}")  # fmt: skip


def test_tasks_only_from_runs_and_only_for_registered_reviewers(
    challenge: ChallengeContext, perceptual: None, tmp_path: Path
) -> None:
    logbook = image_logbook(challenge, tmp_path, "alice", paper="p1", claim="p1/C1", count=4)
    with pytest.raises(ConfigError, match="matches"):
        create_stored_task(challenge, "p1/C1", logbook, tmp_path / "t1", pattern="nothing/*",
                           reviewers=["org"])  # fmt: skip
    with pytest.raises(NotFoundError, match="no registered reviewer 'mallory'"):
        create_stored_task(challenge, "p1/C1", logbook, tmp_path / "t2",
                           pattern="outputs/int2.npy", reviewers=["mallory"])  # fmt: skip
    made = create_stored_task(challenge, "p1/C1", logbook, tmp_path / "t3",
                              pattern="outputs/int2.npy", reviewers=["org"])  # fmt: skip
    task = load_task(tmp_path / "t3")
    assert task.stored_id == made.id and len(schedule(task, "org")) == 4 + 1  # one repeat
    with pytest.raises(NotFoundError, match="not a reviewer"):
        StoredAnswerLog(challenge, task, "alice")  # registered, but not invited to this task


def test_cli_creates_a_task_from_a_logbook_and_invites_a_reviewer(
    challenge: ChallengeContext, perceptual: None, tmp_path: Path
) -> None:
    logbook = image_logbook(challenge, tmp_path, "alice", paper="p1", claim="p1/C1", count=6)
    register(challenge, "bob")
    runner = CliRunner()
    folder = tmp_path / "cli-task"
    base = ["--dir", str(tmp_path / "ch"), "review"]
    made = runner.invoke(app, [*base, "create", str(folder), "--claim", "p1/C1", "--logbook",
                               str(logbook), "--pattern", "outputs/int2.npy", "--reviewer",
                               "alice", "--format", "json"])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["reviewers"] == {"alice": "self"}
    invited = runner.invoke(app, [*base, "invite", str(folder), "--reviewer", "bob"])
    assert invited.exit_code == 0 and "bob reviews as invited" in invited.output
    StoredAnswerLog(challenge, load_task(folder), "bob")  # bob may answer now
    wrong = runner.invoke(app, [*base, "create", str(tmp_path / "x"), "--claim", "p1/C1"])
    assert wrong.exit_code != 0 and "--claim and --logbook go together" in str(wrong.exception)
