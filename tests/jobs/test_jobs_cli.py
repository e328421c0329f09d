"""`openrepro jobs` end to end through the CLI (local backend, real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from openrepro.challenge import init_challenge
from openrepro.cli import app
from openrepro.errors import BudgetError


def test_jobs_cli_round_trip(tmp_path: Path) -> None:
    folder = tmp_path / "ch"
    init_challenge(folder, "test", database_url=f"sqlite:///{tmp_path / 's.db'}").close()
    runner = CliRunner()

    def call(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, ["--dir", str(folder), "jobs", *args])
        return result.exit_code, result.stdout

    code, out = call("run", "--as", "ada", "--timeout", "30", "-f", "json", "--", "sh", "-c",
                     "echo hello-cli")  # fmt: skip
    assert code == 0, out
    job = json.loads(out)
    assert job["participant"] == "ada" and job["command"] == ["sh", "-c", "echo hello-cli"]
    code, out = call("wait", job["id"], "--timeout", "15", "-f", "json")
    assert code == 0 and json.loads(out)["status"] == "completed"
    code, out = call("logs", job["id"])
    assert out == "hello-cli\n"
    code, out = call("ls", "-f", "json")
    assert [j["id"] for j in json.loads(out)] == [job["id"]]
    code, out = call("grant", "ada", "2.5", "--reason", "more", "-f", "json")
    assert code == 0 and json.loads(out)["granted_usd"] == 2.5
    code, out = call("balance", "ada", "-f", "json")
    money = json.loads(out)
    assert money["reserved_usd"] == 0 and money["available_usd"] <= 22.5
    result = runner.invoke(
        app, ["--dir", str(folder), "jobs", "run", "--as", "ada", "--timeout", "1e7", "--", "x"]
    )
    assert isinstance(result.exception, BudgetError) and "needs $277.7778" in str(result.exception)
    code, out = call("reconcile", "-f", "json")
    assert code == 0 and json.loads(out)["settled"] == []
