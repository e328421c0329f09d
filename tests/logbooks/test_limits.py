"""Logbook amplification: small uploads that named one file or page many times, or a metrics
"table" that computes rows, are refused while being read; a participant's stored bytes are
capped; and a failing submission never deletes a blob that an accepted one shares. On SQLite and
PostgreSQL (the ``challenge`` fixture)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError, NotFoundError
from openrepro.logbooks import submit as submit_module
from openrepro.logbooks import trackio_reader
from openrepro.logbooks.limits import MAX_PAGES, MAX_TEXT_BYTES, check_record
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.submit import blob_path, read_logbook, submit_logbook
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Logbook

MiB = 1024 * 1024


@pytest.fixture
def paper_ctx(challenge: ChallengeContext) -> ChallengeContext:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="Paper one")], source="test")  # fmt: skip
    return challenge


def _books(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return int(session.scalar(select(func.count(Logbook.id))) or 0)


def _trackio(root: Path, pages: list[dict[str, Any]], page_text: str) -> Path:
    folder = root / "project"
    logbook = folder / ".trackio" / "logbook"
    (logbook / "pages").mkdir(parents=True)
    (logbook / "pages" / "index.md").write_text(page_text, encoding="utf-8")
    root_page = {"slug": "index", "title": "Claim C1", "file": "pages/index.md",
                 "children": pages}  # fmt: skip
    manifest = {"schema_version": 2, "title": "Repro", "paper": "p1", "root": root_page}
    (logbook / "logbook.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def _metrics_db(folder: Path, sql: str, rows: list[tuple[Any, ...]] | None = None) -> Path:
    conn = sqlite3.connect(folder / ".trackio" / "repro.db")
    conn.executescript(sql)
    if rows:
        conn.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    return folder


PAGE = '---\n<!-- trackio-cell\n{"type": "markdown"}\n-->\n' + "Notes on the run. " * 1_700 + "\n"


def test_runs_naming_one_log_many_times_are_refused(
    paper_ctx: ChallengeContext, tmp_path: Path
) -> None:
    """The attack: 60 runs naming one 4.8 MB log (a 3.6 MB upload) became a 288 MB row."""
    folder = make_bundle(tmp_path / "b")
    (folder / "logs" / "big.txt").write_text("loss 0.1\n" * (MiB // 9), encoding="utf-8")
    runs = [{"id": f"r{i}", "command": ["python", "train.py"], "exit_code": 0,
             "log": "logs/big.txt"} for i in range(60)]  # fmt: skip
    (folder / "manifest.json").write_text(
        json.dumps({"openrepro_bundle": 1, "paper": "p1", "runs": runs}), encoding="utf-8"
    )
    with pytest.raises(LogbookError, match=r"manifest\.json: more than [\d,]+ bytes of text"):
        submit_logbook(paper_ctx, folder, handle="mallory")
    assert _books(paper_ctx) == 0


def test_page_entries_pointing_at_one_page_are_refused(
    paper_ctx: ChallengeContext, tmp_path: Path
) -> None:
    """The attack: 2,000 page entries pointing at one 31 KB page (a 10 KB upload) made a 96.5 MB
    logbook page that took seconds to render."""
    entries = [{"slug": f"s{i}", "title": "x", "file": "pages/index.md"} for i in range(600)]
    folder = _trackio(tmp_path, entries, PAGE)
    assert len(entries) > MAX_PAGES
    with pytest.raises(LogbookError, match=r"more than [\d,]+ pages"):
        submit_logbook(paper_ctx, folder, handle="mallory")
    assert _books(paper_ctx) == 0
    # a logbook below the caps is read as before
    honest = _trackio(tmp_path / "honest", entries[:20], PAGE)
    assert len(read_logbook(honest).pages) == 21


RECURSIVE_VIEW = """
CREATE VIEW metrics AS
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
SELECT i AS id, 'r' AS run_name, i AS step, NULL AS timestamp,
       '{"claims/p1/C1/acc": 0.5}' AS metrics FROM n;
"""


def test_metrics_are_read_only_from_a_real_table(
    paper_ctx: ChallengeContext, tmp_path: Path
) -> None:
    """The attack: a 575-byte .trackio database whose `metrics` is a recursive VIEW cost 23 s
    of CPU and stored 600,000 metrics."""
    folder = _metrics_db(_trackio(tmp_path, [], PAGE), RECURSIVE_VIEW)
    with pytest.raises(LogbookError, match=r"repro\.db: `metrics` is a view, not a table"):
        submit_logbook(paper_ctx, folder, handle="mallory")
    assert _books(paper_ctx) == 0


def test_metrics_rows_and_time_are_capped(
    paper_ctx: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = "CREATE TABLE metrics (id, run_name, step, timestamp, metrics);"
    rows = [(i, "r", i, None, '{"claims/p1/C1/acc": 0.5}') for i in range(1, 202)]
    folder = _metrics_db(_trackio(tmp_path, [], PAGE), table, rows)
    monkeypatch.setattr(trackio_reader, "MAX_METRIC_ROWS", 200)
    with pytest.raises(LogbookError, match=r"repro\.db: more than 200 metrics rows"):
        submit_logbook(paper_ctx, folder, handle="mallory")
    monkeypatch.setattr(trackio_reader, "MAX_METRIC_ROWS", 1_000)
    monkeypatch.setattr(trackio_reader, "METRICS_SECONDS", 0.0)
    with pytest.raises(LogbookError, match=r"repro\.db: reading the metrics took longer than"):
        submit_logbook(paper_ctx, folder, handle="mallory")
    monkeypatch.undo()
    assert len(read_logbook(folder).metrics) == 201


def test_a_record_over_the_text_cap_is_refused_whatever_its_reader(tmp_path: Path) -> None:
    record = read_logbook(make_bundle(tmp_path / "b"))
    big = record.runs[0].model_copy(update={"output": "x" * (MAX_TEXT_BYTES + 1)})
    with pytest.raises(LogbookError, match=r"space:o/n: more than [\d,]+ bytes of text"):
        check_record(record.model_copy(update={"runs": [big]}), "space:o/n")
    assert check_record(record) > 0


def test_a_participants_stored_bytes_are_capped(
    paper_ctx: ChallengeContext, tmp_path: Path
) -> None:
    first = submit_logbook(paper_ctx, make_bundle(tmp_path / "a"), handle="mallory")
    with paper_ctx.store.session() as session:
        used = session.scalar(select(Logbook.stored_bytes).where(Logbook.id == first.logbook_id))
    assert used is not None and used > first.bytes
    paper_ctx.settings.participant_max_bytes = used + 10
    with pytest.raises(LogbookError, match=r"would pass the participant's limit"):
        submit_logbook(paper_ctx, make_bundle(tmp_path / "b", title="Another"), handle="mallory")
    assert _books(paper_ctx) == 1
    # someone else is not affected
    assert submit_logbook(paper_ctx, make_bundle(tmp_path / "c"), handle="ada").status == "new"


def test_a_failing_submission_keeps_a_blob_an_accepted_one_shares(
    paper_ctx: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: a failing submission's cleanup deleted a content-addressed file that a
    concurrent accepted submission shared. Here the accepted one runs inside the failing one's
    transaction, after the failing one has its files and before it fails."""
    failing = make_bundle(tmp_path / "failing", paper="no-such-paper")
    accepted = make_bundle(tmp_path / "accepted")
    original = submit_module.store_logbook
    done: list[int] = []

    def interleaved(session: Any, ctx: ChallengeContext, staged: Any) -> Any:
        if staged.record.paper_id == "no-such-paper" and not done:
            done.append(submit_logbook(ctx, accepted, handle="ada").logbook_id)
        return original(session, ctx, staged)

    monkeypatch.setattr(submit_module, "store_logbook", interleaved)
    with pytest.raises(NotFoundError):
        submit_logbook(paper_ctx, failing, handle="mallory")
    files_dir = paper_ctx.settings.resolved_files_dir()
    with paper_ctx.store.session() as session:
        record = load_logbook(session, paper_ctx.challenge_id, done[0])
    missing = [f.path for f in record.files if not blob_path(files_dir, f.sha256).is_file()]
    assert missing == []
    assert not any(p.name.startswith(".incoming") for p in files_dir.iterdir())
