"""Review tasks without a browser: creation, blinded schedule, durable answers, check, export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from review_images import make_pairs, truth

from openrepro.errors import ConfigError
from openrepro.review import (
    AnswerLog,
    check_task,
    create_task,
    export_task,
    load_task,
    read_answers,
    schedule,
)
from openrepro.review.server import create_app


def test_task_schedule_blinding_and_durable_answers(tmp_path: Path) -> None:
    a_dir, b_dir = make_pairs(tmp_path, 20)
    task = create_task(tmp_path / "task", a_dir, b_dir, question="Which is brighter?",
                       seed=7, repeat_share=0.25)  # fmt: skip
    assert len(task.items) == 20  # only_here.png has no partner
    with pytest.raises(ConfigError):
        create_task(tmp_path / "task", a_dir, b_dir, question="again")
    task = load_task(tmp_path / "task")
    slots = schedule(task, "alice")
    assert len(slots) == 25 and sum(s.repeat for s in slots) == 5
    assert slots == schedule(task, "alice")  # seeded: a restart shows the same
    assert [s.item for s in slots] != [s.item for s in schedule(task, "bob")]
    assert {s.order for s in slots} == {"AB", "BA"}

    client = TestClient(create_app(tmp_path / "task", "alice"), base_url="http://127.0.0.1:8765")
    page = client.get("/")
    assert "pair_" not in page.text and "quantized" not in page.text  # blinded
    assert "default-src 'none'" in page.headers["content-security-policy"]
    first = slots[0]
    left = page.text.split('id="left" src="')[1].split('"')[0]
    assert (
        client.get(left).content
        == Path(
            task.items[[i.id for i in task.items].index(first.item)].a
            if first.order == "AB"
            else task.items[[i.id for i in task.items].index(first.item)].b
        ).read_bytes()
    )
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    for choice, status in (("left", 200), ("right", 200), ("nonsense", 400)):
        form = {"slot": 0, "choice": choice, "csrf": csrf}
        assert client.post("/answer", data=form).status_code == status
    answers = read_answers(task.answers_path)
    assert len(answers) == 1  # a resubmitted slot is not written twice
    assert answers[0].shown_answer == "left" and answers[0].answer == first.order[0]
    assert "1 / 25 answered" in client.get("/").text

    # a line cut short by a kill is dropped when the log reopens
    with task.answers_path.open("a", encoding="utf-8") as handle:
        handle.write("1,pair_0")
    log = AnswerLog(task)
    assert len(log.answers) == 1
    assert task.answers_path.read_text(encoding="utf-8").endswith("\n")


def test_check_and_export(tmp_path: Path) -> None:
    a_dir, b_dir = make_pairs(tmp_path, 12)
    folder = tmp_path / "task"
    task = create_task(folder, a_dir, b_dir, question="Brighter?", repeat_share=0.5)
    log = AnswerLog(task)
    index = {f"pair_{i:03d}.png": i for i in range(12)}
    for reviewer in ("alice", "bob"):
        for slot in schedule(task, reviewer):
            right = truth(index[slot.item])
            if reviewer == "bob" and index[slot.item] < 3:
                right = "same" if right != "same" else "A"  # bob differs on 3 items
            shown = right if right == "same" else ("left", "right")[slot.order.index(right)]
            log.record(slot, reviewer, shown)
    report = check_task(folder)
    assert report.problems == []
    alice, bob = report.reviewers
    assert (alice.answers, alice.repeats, alice.self_agreement) == (18, 6, 1.0)
    assert bob.answers == 18 and bob.self_agreement == 1.0
    pair = report.pairs[0]
    assert pair.items == 12 and pair.percent == pytest.approx(9 / 12)
    assert pair.kappa is not None and 0.5 < pair.kappa < 0.9
    assert report.alpha is not None and 0.5 < report.alpha < 0.9

    logbook = tmp_path / "logbook"
    logbook.mkdir()
    (logbook / "manifest.json").write_text(json.dumps({"openrepro_bundle": 1, "paper": "p"}))
    files = export_task(folder, logbook)
    summary = json.loads(files[1].read_text())
    assert summary["evidence"] == "human-judged" and summary["judged_by"] == "human"
    with files[0].open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 36
    manifest = json.loads((logbook / "manifest.json").read_text())
    assert [a["path"] for a in manifest["artifacts"]] == [
        "human_review/task/answers.csv", "human_review/task/summary.json"
    ]  # fmt: skip
