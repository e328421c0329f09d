"""`openrepro pull --server URL` writes the same workspace as a local pull."""

from __future__ import annotations

import json
from pathlib import Path

from board_fixtures import live_board
from sqlalchemy import select
from test_cli import run

from openrepro.challenge import init_challenge
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Claim, Paper
from openrepro.workspace import pull_paper


def test_pull_from_a_board_matches_a_local_pull(tmp_path: Path) -> None:
    ctx = init_challenge(tmp_path / "ch", "pull-test", title="Pull test")
    records = [PaperRecord(venue_id="abc/1", title="Sorting", full_text="We sort in O(n log n).")]
    import_papers(ctx.store, ctx.challenge_id, records, source="test")
    with ctx.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == "abc/1"))
        assert paper is not None
        session.add(Claim(paper_id=paper.id, key="C1", text="We sort in O(n log n).",
                          kind="theory"))  # fmt: skip
    local = pull_paper(ctx, "abc/1", tmp_path / "local")
    with live_board(ctx) as base:
        done = run("pull", "abc/1", "--server", base, "--dir", str(tmp_path / "remote"),
                   cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        missing = run("pull", "nope", "--server", base, "--dir", str(tmp_path / "x"), cwd=tmp_path)
        assert missing.returncode == 3 and "no paper 'nope'" in missing.stderr
    told = {"INSTRUCTIONS.md", "AGENTS.md", ".openrepro/workspace.json"}  # where to submit
    for name in local.files:
        if name.startswith(".trackio/") or name in told:
            continue  # Trackio stamps creation times into its own files
        assert (tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    # a board's workspace remembers the board and tells its own commands; a local one, `--as`
    remote = json.loads((tmp_path / "remote" / ".openrepro/workspace.json").read_text())
    assert remote.pop("server") == base
    assert remote == json.loads((tmp_path / "local" / ".openrepro/workspace.json").read_text())
    for name in ("INSTRUCTIONS.md", "AGENTS.md"):
        mine, theirs = ((tmp_path / d / name).read_text() for d in ("remote", "local"))
        assert f"openrepro participants register <handle> --server {base}" in mine.replace(
            "<your handle>", "<handle>"
        )
        assert "--as" not in mine and "openrepro submit . --as <" in theirs
    unreachable = run("pull", "abc/1", "--server", "http://127.0.0.1:9", "--dir",
                      str(tmp_path / "y"), cwd=tmp_path)  # fmt: skip
    assert unreachable.returncode != 0 and "cannot reach the board" in unreachable.stderr
    ctx.close()
