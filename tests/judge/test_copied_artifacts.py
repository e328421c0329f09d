"""A byte-identical copy of another participant's produced file: the copy was judged
verified with no flag. Now the later logbook's values from it do not count (``artifact_copied``);
the earlier one keeps its verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_judge_bindings import _judged, _run, _workspace, claims  # noqa: F401 (a fixture)

from openrepro.challenge import ChallengeContext
from openrepro.logbooks.submit import submit_logbook

COPY = """
import os, shutil, sys
os.makedirs("outputs", exist_ok=True)
shutil.copy(sys.argv[1], "outputs/results.csv")
print("copied")
"""


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_copied_artifact_does_not_count(
    challenge: ChallengeContext,
    claims: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "alice")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3,94.9", "outputs/results.csv")
    alice = submit_logbook(challenge, ws, handle="alice").logbook_id
    copier, copier_pages = _workspace(challenge, tmp_path, "mallory")
    (copier / "copy.py").write_text(COPY)
    _run(copier, copier_pages["p1/C1"], "copy.py", str(ws / "outputs" / "results.csv"))
    mallory = submit_logbook(challenge, copier, handle="mallory").logbook_id

    copied = _judged(challenge, mallory)["C1"]
    assert copied["verdict"] != "verified" and "artifact_copied" in copied["flags"], copied
    assert _judged(challenge, alice)["C1"]["verdict"] == "verified"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_produced_file_edited_to_the_same_size_is_caught_by_its_hash(
    challenge: ChallengeContext,
    claims: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The attack: a file edited after the run with the same size was judged verified."""
    ws, pages = _workspace(challenge, tmp_path, "alice")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:85.1,85.3,84.9", "outputs/results.csv")
    first = submit_logbook(challenge, ws, handle="alice").logbook_id
    assert _judged(challenge, first)["C1"]["verdict"] == "falsified"
    path = ws / "outputs" / "results.csv"
    edited = path.read_bytes().replace(b"85.", b"95.").replace(b"84.", b"94.")
    assert len(edited) == path.stat().st_size
    path.write_bytes(edited)
    second = submit_logbook(challenge, ws, handle="alice").logbook_id
    got = _judged(challenge, second)["C1"]
    assert got["verdict"] != "verified" and "artifact_changed_after_run" in got["flags"], got
