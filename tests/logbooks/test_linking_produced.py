"""A file is produced when a recorded run is shown to write it and its timing fits."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from openrepro.logbooks.bundle import file_ref
from openrepro.logbooks.linking import link_produced, run_writes
from openrepro.logbooks.records import Run

END = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _run(command: list[str], scripts: dict[str, str] | None = None, rid: str = "r1") -> Run:
    return Run(id=rid, command=command, exit_code=0, duration_s=60.0,
               created_at=END.isoformat(), scripts=scripts or {})  # fmt: skip


def _file(base: Path, path: str, when: datetime = END) -> None:
    target = base / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("a,b\n1,2\n", encoding="utf-8")
    os.utime(target, (when.timestamp(), when.timestamp()))


def test_what_a_command_and_a_script_are_shown_to_write() -> None:
    files, folders, _ = run_writes(_run(["python", "-m", "pkg.cli", "--output-dir", "evidence",
                                         "--out", "results.csv"]))  # fmt: skip
    assert files == {"results.csv"} and folders == {"evidence"}
    files, _, _ = run_writes(
        _run(["bash", "-c", "python t.py > out.txt && python u.py >> log.csv"])
    )
    assert files == {"out.txt", "log.csv"}
    script = 'import json\nwith open(f"{d}/metrics.json", "w") as f:\n    json.dump(x, f)\n'
    assert run_writes(_run(["python", "t.py"], {"t.py": script}))[2] == {"metrics.json"}
    reads_only = 'import pandas as pd\ndf = pd.read_csv("data.csv")\nprint(df)\n'
    assert run_writes(_run(["python", "t.py"], {"t.py": reads_only}))[2] == set()


def test_files_the_run_writes_become_produced_the_rest_stay_unlinked(tmp_path: Path) -> None:
    for path in ("evidence/a.csv", "evidence/sub/b.json", "results.csv", "notes/hand.csv"):
        _file(tmp_path, path)
    run = _run(["python", "-m", "pkg.cli", "--output-dir", "evidence", "--out", "results.csv"])
    refs = [file_ref(tmp_path, p, "test") for p in
            ("evidence/a.csv", "evidence/sub/b.json", "results.csv", "notes/hand.csv")]  # fmt: skip
    unlinked = link_produced(tmp_path, [run], refs)
    assert [f.path for f in unlinked] == ["notes/hand.csv"]
    assert [f.path for f in run.produced] == ["evidence/a.csv", "evidence/sub/b.json",
                                              "results.csv"]  # fmt: skip


def test_a_file_older_than_the_run_was_not_written_by_it(tmp_path: Path) -> None:
    _file(tmp_path, "evidence/old.csv", when=datetime(2026, 4, 1, tzinfo=UTC))
    run = _run(["python", "t.py", "--output-dir", "evidence"])
    unlinked = link_produced(tmp_path, [run], [file_ref(tmp_path, "evidence/old.csv", "t")])
    assert [f.path for f in unlinked] == ["evidence/old.csv"] and run.produced == []


def test_the_run_naming_the_file_most_exactly_gets_it(tmp_path: Path) -> None:
    _file(tmp_path, "outputs/gd/summary.json")
    broad = _run(["python", "a.py", "--output-dir", "outputs"], rid="broad")
    exact = _run(["python", "b.py", "--output", "outputs/gd"], rid="exact")
    link_produced(tmp_path, [exact, broad], [file_ref(tmp_path, "outputs/gd/summary.json", "t")])
    assert [f.path for f in exact.produced] == ["outputs/gd/summary.json"] and not broad.produced
