"""`openrepro participants invite|approve|confirm-team|team`: the organizer's side of the
registration policy and of team confirmation, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import run


def test_invite_approve_and_confirm_from_the_command_line(tmp_path: Path) -> None:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    folder = tmp_path / "c"
    done = run("participants", "invite", "--uses", "2", "--format", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["code"].startswith("inv_")
    assert run("participants", "register", "ada", "--team", "lab", cwd=folder).returncode == 0
    done = run("participants", "team", "ada", "other", "--format", "json", cwd=folder)
    assert json.loads(done.stdout)["team_confirmed"] is True  # the organizer set it
    done = run("participants", "confirm-team", "ada", "--format", "json", cwd=folder)
    assert done.returncode == 0 and json.loads(done.stdout)["team"] == "other"
    done = run("participants", "approve", "ada", "--format", "json", cwd=folder)
    assert done.returncode == 0 and json.loads(done.stdout)["status"] == "active"
    done = run("participants", "approve", "nobody", cwd=folder, fresh=True)
    assert done.returncode != 0 and "nobody" in done.stderr + done.stdout
