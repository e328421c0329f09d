"""The archive `openrepro submit` uploads holds what a board reads: submitted on the board it is
the same revision (same record, same files) as the folder submitted locally."""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.remote import pack_workspace
from openrepro.workspace import pull_paper
from test_participant_flow import TRAIN, _trackio

ABSTRACT = "On GLUE, the method reaches 88.1 average accuracy with a 350M-parameter backbone."


def _challenge(folder: Path) -> ChallengeContext:
    ctx = init_challenge(folder, "pack")
    record = PaperRecord(venue_id="p1", title="Sparse", abstract=ABSTRACT)
    import_papers(ctx.store, ctx.challenge_id, [record], source="t")
    with ctx.store.session() as s:
        add_claim(s, ctx.challenge_id, "p1", text="88.1 on GLUE.", kind="result",
                  quotes=["reaches 88.1 average accuracy"], editor="org",
                  drafting="rules")  # fmt: skip
    return ctx


def test_the_uploaded_archive_is_the_same_revision_as_the_folder(tmp_path: Path) -> None:
    here, board = _challenge(tmp_path / "here"), _challenge(tmp_path / "board")
    ws = tmp_path / "ws"
    page = pull_paper(here, "p1", ws).pages["p1/C1"]
    (ws / "train.py").write_text(TRAIN, encoding="utf-8")
    (ws / "data").mkdir()
    (ws / "data" / "big.bin").write_bytes(b"\0" * 4096)  # not named by the logbook: left out
    ok = _trackio(ws, "logbook", "run", "--page", page, "--", sys.executable, "train.py")
    assert ok.returncode == 0, ok.stderr
    local = submit_logbook(here, ws, handle="ada")
    archive = pack_workspace(ws, tmp_path)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "results.csv" in names and ".trackio/logbook/logbook.json" in names
    assert not any(n.startswith("data") for n in names)
    uploaded = submit_logbook(board, archive, handle="ada")
    assert (uploaded.revision, uploaded.files, uploaded.bytes) == (
        local.revision, local.files, local.bytes
    )  # fmt: skip
    here.close()
    board.close()
