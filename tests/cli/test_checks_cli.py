"""`openrepro claims eval` and `openrepro claims check draft` as a subprocess (no challenge)."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import run

LABELS = Path(__file__).parent.parent / "data" / "check_labels.jsonl"


def test_claims_eval_reports_coverage_accuracy_and_confusion(tmp_path: Path) -> None:
    result = run("claims", "eval", str(LABELS), "--limit", "40", "-f", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (report,) = json.loads(result.stdout)
    assert report["drafter"] == "rules" and report["labels"] == 40
    assert 0 < report["coverage"] <= 1
    assert sum(sum(row.values()) for row in report["confusion"].values()) == 40
    table = run("claims", "eval", str(LABELS), "--limit", "40", cwd=tmp_path)
    assert table.returncode == 0 and "coverage" in table.stdout and "gold" in table.stdout


def test_claims_eval_names_a_bad_labels_file(tmp_path: Path) -> None:
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    result = run("claims", "eval", str(bad), cwd=tmp_path, fresh=True)
    assert result.returncode != 0
    assert "line 1" in result.stderr and "Traceback" not in result.stderr


def test_check_draft_from_a_quote(tmp_path: Path) -> None:
    quote = "APT converged about 8x faster than the LoRA+Prune baseline"
    result = run(
        "claims", "check", "draft", "--quote", quote, "--claim", "p1/C1", "-f", "json", cwd=tmp_path
    )
    # the confidence gate withholds a ratio: no check, the reason, and the rules' reading
    assert result.returncode == 1, result.stderr
    draft = json.loads(result.stdout)
    assert draft["check"] is None and "not sure" in draft["reason"]
    check = draft["withheld"]
    assert check["relation"] == "ratio" and check["origin"] == "rules"
    assert {q["key"] for q in check["quantities"]} == {
        "claims/p1/C1/apt",
        "claims/p1/C1/lora_prune_baseline",
    }
    vague = run(
        "claims", "check", "draft", "--quote", "The images look mostly right.", cwd=tmp_path
    )
    assert vague.returncode == 1 and "no check" in vague.stderr


def test_stored_checks_show_set_rm_redraft(tmp_path: Path) -> None:
    """A claim's stored check through the CLI: drafted when the claim is added, replaced by an
    organizer's (grounded, kept in the history), removed, and drafted again."""
    assert run("init", "ch", cwd=tmp_path).returncode == 0
    folder = tmp_path / "ch"
    papers = tmp_path / "papers.json"
    abstract = "Our method reaches at least 90% accuracy on CIFAR-10."
    papers.write_text(json.dumps([{"venue_id": "p1", "title": "T", "abstract": abstract}]))
    assert run("papers", "import", str(papers), cwd=folder).returncode == 0
    added = run("claims", "add", "p1", "--text", "At least 90% accuracy.", "--kind", "result",
                "--quote", "reaches at least 90% accuracy", cwd=folder)  # fmt: skip
    assert added.returncode == 0, added.stderr
    # check_drafting is off by default: no drafted check is stored unreviewed
    assert run("claims", "check", "show", "p1/C1", cwd=folder).returncode == 1
    off = run("claims", "check", "redraft", "p1/C1", cwd=folder)
    assert off.returncode == 1 and "check_drafting is off" in off.stderr
    # the organizer reviews the rules' reading (a dry run stores nothing) and keeps it
    preview = run("claims", "check", "redraft", "--drafting", "rules", "--dry-run", "-f", "json",
                  cwd=folder)  # fmt: skip
    assert json.loads(preview.stdout)["p1/C1"]["relation"] == "bound", preview.stderr
    assert run("claims", "check", "show", "p1/C1", cwd=folder).returncode == 1
    kept = run("claims", "check", "redraft", "p1/C1", "--drafting", "rules", "-f", "json",
               cwd=folder)  # fmt: skip
    assert json.loads(kept.stdout) == {"p1/C1": True}, kept.stderr
    shown = run("claims", "check", "show", "p1/C1", "-f", "json", cwd=folder)
    drafted = json.loads(shown.stdout)
    assert drafted["relation"] == "bound" and drafted["origin"] == "rules"

    mine = {**drafted, "comparator": "gt", "quantities": [{"name": "accuracy", "unit": "%"}],
            "subject": "accuracy"}  # fmt: skip
    (tmp_path / "check.json").write_text(json.dumps(mine))
    done = run("claims", "check", "set", "p1/C1", "--file", str(tmp_path / "check.json"),
               "--reason", "strict bound", "-f", "json", cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stderr
    stored = json.loads(done.stdout)
    assert (stored["origin"], stored["comparator"], stored["revision"]) == ("organizer", "gt", 2)
    assert stored["quantities"][0]["key"] == "claims/p1/C1/accuracy"

    ungrounded = {**mine, "constant": {"value": 95, "text": "95%"}}
    (tmp_path / "bad.json").write_text(json.dumps(ungrounded))
    refused = run("claims", "check", "set", "p1/C1", "--file", str(tmp_path / "bad.json"),
                  "--reason", "x", cwd=folder)  # fmt: skip
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    # an organizer's check is never replaced by the rules
    kept = run("claims", "check", "redraft", "--replace", "--drafting", "rules", "-f", "json",
               cwd=folder)  # fmt: skip
    assert json.loads(kept.stdout) == {"p1/C1": True}
    assert json.loads(run("claims", "check", "show", "p1/C1", "-f", "json", cwd=folder).stdout)[
        "origin"] == "organizer"  # fmt: skip

    assert run("claims", "check", "rm", "p1/C1", "--reason", "wrong", cwd=folder).returncode == 0
    assert run("claims", "check", "show", "p1/C1", cwd=folder).returncode == 1
    again = run(
        "claims",
        "check",
        "redraft",
        "-f",
        "json",
        cwd=folder,
        env={"OPENREPRO_CHECK_DRAFTING": "rules"},
    )  # the setting, from the environment
    assert json.loads(again.stdout) == {"p1/C1": True}
    history = json.loads(run("claims", "show", "p1/C1", "-f", "json", cwd=folder).stdout)
    assert [e["field"] for e in history["edits"]].count("check") == 4
