"""`openrepro submit --paper` and `openrepro logbook value`: a table cell read by its pointer."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import run


def test_submit_then_read_a_table_cell(tmp_path: Path) -> None:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    folder = tmp_path / "c"
    papers = tmp_path / "papers.json"
    papers.write_text(json.dumps([{"id": "p1", "title": "T", "arxiv_id": "2511.03548"}]))
    assert run("papers", "import", str(papers), cwd=folder).returncode == 0
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "results.csv").write_text("seed,accuracy\n0,0.81\n1,0.83\n", encoding="utf-8")
    (bundle / "manifest.json").write_text(json.dumps({
        "openrepro_bundle": 1, "paper": "arXiv:2511.03548v2", "participant": "ada",
        "runs": [{"id": "r1", "command": ["python", "t.py"], "exit_code": 0,
                  "produced": ["results.csv"]}],
    }))  # fmt: skip
    done = run("submit", str(bundle), "-f", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["paper_id"] == "p1" and report["linked_by"].startswith("arxiv_id '2511.03548'")
    (table,) = report["evidence"]["tables"]
    assert (table["path"], table["rows"], table["columns"]) == (
        "results.csv",
        2,
        ["seed", "accuracy"],
    )
    value = run("logbook", "value", str(report["logbook_id"]), table["table"][:12], "2", "accuracy",
                cwd=folder)  # fmt: skip
    assert value.returncode == 0, value.stderr
    assert value.stdout.strip() == "0.83"
    missing = run("logbook", "value", str(report["logbook_id"]), table["table"], "3", "accuracy",
                  cwd=folder)  # fmt: skip
    assert missing.returncode != 0 and "no row 3" in missing.stderr
    explicit = run("submit", str(bundle), "--paper", "nope", cwd=folder)
    assert explicit.returncode != 0 and "'nope' is not a paper of this challenge" in explicit.stderr
