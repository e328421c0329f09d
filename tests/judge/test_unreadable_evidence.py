"""One bad logbook never stops the judge: a produced CSV with a field over the csv
module's limit, or a Parquet file with a corrupted page header, gave an exception that aborted
``judge run --all`` on every rerun. Now the claim gets ``inconclusive`` with the reason and the
flag ``evidence_unreadable``, and the logbooks after it are judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from test_judge_bindings import _run, _workspace, claims  # noqa: F401 (a fixture)

from openrepro.challenge import ChallengeContext
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.submit import submit_logbook
from openrepro.store import Claim, Verdict

# a CSV above the 4 MiB fast path (pyarrow counts its rows) whose every row has a 200 KB field:
# the csv module that reads the column for binding refuses each of them
WIDE_CSV = """
import os
os.makedirs("outputs", exist_ok=True)
with open("outputs/results.csv", "w") as handle:
    handle.write("method,seed,accuracy,notes\\n")
    for seed in range(25):
        handle.write(f"ours,{seed},95.{seed % 3},{'x' * 200_000}\\n")
print("wrote")
"""
# a Parquet file whose footer is fine (its shape is read) but whose first page header is not
BROKEN_PARQUET = """
import os
import pyarrow as pa, pyarrow.parquet as pq
os.makedirs("outputs", exist_ok=True)
pq.write_table(pa.table({"seed": [0, 1, 2], "accuracy": [95.1, 95.3, 94.9]}),
               "outputs/results.parquet")
with open("outputs/results.parquet", "r+b") as handle:
    handle.seek(4)
    handle.write(b"\\xff" * 12)
print("wrote")
"""


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_unreadable_produced_file_is_inconclusive_and_the_run_goes_on(
    challenge: ChallengeContext,
    claims: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    books = []
    for name, script in (("wide", WIDE_CSV), ("broken", BROKEN_PARQUET)):
        ws, pages = _workspace(challenge, tmp_path, name)
        (ws / "make.py").write_text(script)
        _run(ws, pages["p1/C1"], "make.py")
        books.append(submit_logbook(challenge, ws, handle=name).logbook_id)
    ws, pages = _workspace(challenge, tmp_path, "good")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3,94.9", "outputs/results.csv")
    good = submit_logbook(challenge, ws, handle="good").logbook_id

    report = judge_logbooks(challenge, None)  # judge run --all
    got = {(r.logbook_id, r.claim_id.rsplit("/", 1)[-1]): r for r in report.verdicts}
    assert got[(good, "C1")].verdict == "verified"
    for book, path in zip(books, ("results.csv", "results.parquet"), strict=True):
        row = got[(book, "C1")]
        assert row.verdict == "inconclusive", row
        assert "evidence_unreadable" in row.flags
        assert path in row.rationale
    again = judge_logbooks(challenge, None)  # a rerun finds nothing left to do
    assert again.judged == 0
    with challenge.store.session() as s:
        stored = dict(
            s.execute(
                select(Verdict.logbook_id, Verdict.verdict)
                .join(Claim, Claim.id == Verdict.claim_id)
                .where(Claim.key == "C1")
            ).all()
        )
    assert stored == {books[0]: "inconclusive", books[1]: "inconclusive", good: "verified"}
