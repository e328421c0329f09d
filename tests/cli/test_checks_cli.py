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
    result = run("claims", "eval", str(bad), cwd=tmp_path)
    assert result.returncode != 0
    assert "line 1" in result.stderr and "Traceback" not in result.stderr


def test_check_draft_from_a_quote(tmp_path: Path) -> None:
    quote = "APT converged about 8x faster than the LoRA+Prune baseline"
    result = run(
        "claims", "check", "draft", "--quote", quote, "--claim", "p1/C1", "-f", "json", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    check = json.loads(result.stdout)["check"]
    assert check["relation"] == "ratio" and check["origin"] == "rules"
    assert {q["key"] for q in check["quantities"]} == {
        "claims/p1/C1/apt",
        "claims/p1/C1/lora_prune_baseline",
    }
    vague = run(
        "claims", "check", "draft", "--quote", "The images look mostly right.", cwd=tmp_path
    )
    assert vague.returncode == 1 and "no check" in vague.stderr
