"""Which jobs a logbook cites: one grammar for the board (jobs_cited_by) and for attestation
(jobs_cited_by_run). Records are built by hand here because what is under test is the grammar
over the normalised record; real Trackio logbooks citing real jobs are in tests/provenance."""

from __future__ import annotations

import pytest

from openrepro.jobs import JOB_ID_RE, jobs_cited_by, jobs_cited_by_run
from openrepro.logbooks.records import Cell, LogbookRecord, Page, Run

HUB_ID = "6734a1b2c3d4e5f601234567"


def _record(
    cells: list[Cell], runs: list[Run], traces: list[dict[str, object]] | None = None
) -> LogbookRecord:
    return LogbookRecord(
        format="trackio", format_version="2", pages=[Page(slug="p", title="P", cells=cells)],
        runs=runs, traces=traces or [],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("openrepro: job local:12 started", ["local:12"]),
        (f"submitted hf:{HUB_ID} on a10g", [f"hf:{HUB_ID}"]),
        ("hf:13 and local:4", ["hf:13", "local:4"]),
        ("see https://example.org/local:12 or file.local:12", []),  # part of a URL or a word
        ("hf:abc (not an id), local:x, xlocal:3, local:12abc", []),
        ("local:1234567890123456789 is too long", []),
    ],
)
def test_mentions_in_a_run(text: str, found: list[str]) -> None:
    run = Run(id="r1", page="p", title="train", command=["python", "train.py"], output=text)
    record = _record([], [run])
    assert jobs_cited_by_run(record, run) == found
    assert jobs_cited_by(record) == found


def test_headers_runs_and_traces_use_one_grammar() -> None:
    run_cell = Cell(id="r1", type="code", page="p", body="$ python train.py\nexit 0 · 1.0s",
                    meta={"job_id": "local:7", "job": "hf:9"})  # fmt: skip
    note = Cell(id="n1", type="markdown", page="p", body="notes",
                meta={"job_ids": ["local:8", "bogus", 5, f"hf:{HUB_ID}"]})  # fmt: skip
    run = Run(id="r1", page="p", title="on local:7 again", command=["python", "train.py"])
    record = _record([run_cell, note], [run], traces=[{"job_id": "local:9"}, {"job_id": "x:1"}])
    assert jobs_cited_by_run(record, run) == ["local:7", "hf:9"]
    # the board shows every job the record cites; the run's own come first, each once
    assert jobs_cited_by(record) == ["local:7", "hf:9", "local:8", f"hf:{HUB_ID}", "local:9"]
    # everything the board lists is a well-formed id the jobs package can look up
    assert all(JOB_ID_RE.match(job) for job in jobs_cited_by(record))
