"""The corpus: every quirk seen in the event's real logbooks submits, links to the right paper
and exposes its runs and tabular evidence with pointers that read the right values (SQLite and
PostgreSQL). Hostile variants of the new inputs are refused and store nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from corpus import LOGBOOK, MANIFEST, ORID, OTHER_ORID, PAPERS, QUIRKS, build_base
from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError, NotFoundError
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.render import render_logbook
from openrepro.logbooks.service import load_logbook, locator
from openrepro.logbooks.submit import blob_path, submit_logbook
from openrepro.logbooks.tables import read_value
from openrepro.papers import import_papers
from openrepro.store import Logbook


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_base(tmp_path_factory.mktemp("corpus"))


@pytest.fixture
def papers(challenge: ChallengeContext) -> None:
    import_papers(challenge.store, challenge.challenge_id, PAPERS, source="corpus")


def _copy(base: Path, target: Path) -> Path:
    shutil.copytree(base, target, symlinks=True)
    return target


def _count(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return session.scalar(select(func.count(Logbook.id))) or 0


def _stored(ctx: ChallengeContext, logbook_id: int) -> LogbookRecord:
    with ctx.store.session() as session:
        return load_logbook(session, ctx.challenge_id, logbook_id)


def _value(ctx: ChallengeContext, record: LogbookRecord, table: str, row: int, column: str) -> str:
    locate = locator(ctx.settings.resolved_files_dir())
    return read_value(record.tables, record.runs, record.pages, table, row, column, locate).text


@pytest.mark.parametrize("quirk", list(QUIRKS))
def test_quirk_submits_links_and_exposes_evidence(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path, quirk: str
) -> None:
    root = _copy(base, tmp_path / quirk)
    expect = QUIRKS[quirk](root)
    report = submit_logbook(challenge, root, handle="ada", paper=expect.explicit)
    assert report.paper_id == expect.paper
    assert report.linked_by.split()[0] == expect.linked_by
    for fragment in expect.warnings:
        assert any(fragment in w for w in report.warnings), (fragment, report.warnings)
    assert sorted(s["kind"] for s in report.side_files) == sorted(expect.side_kinds)

    record = _stored(challenge, report.logbook_id)
    assert record.paper_id == expect.paper
    assert f"{expect.paper}/C1" in record.claims  # the page "Claim 1: accuracy"
    (run,) = record.runs
    assert run.exit_code == 0 and run.command[-1] == "train.py"
    produced = {f.path: f for f in run.produced}
    assert set(produced) == {
        "outputs/results.csv", "outputs/results.tsv", "outputs/summary.json",
        "outputs/rows.jsonl", "outputs/results.parquet",
    }  # fmt: skip
    tables = {t.path or t.table: t for t in record.tables}
    # every produced table file is addressable by (sha256, row, column), read by code
    for path, column, row, text in (
        ("outputs/results.csv", "accuracy", 2, "0.81"),
        ("outputs/results.tsv", "accuracy", 3, "0.8200000000000001"),
        ("outputs/rows.jsonl", "loss", 1, "0.5"),
        ("outputs/results.parquet", "seed", 3, "2"),
        ("outputs/summary.json", "accuracy.mean", 1, "0.81"),
    ):
        table = tables[path]
        assert table.table == produced[path].sha256 and table.run == run.id and table.run_ok
        assert _value(challenge, record, table.table, row, column) == text
    printed = [t for t in record.tables if t.source == "output"]
    assert [t.columns for t in printed] == [["seed", "accuracy", "loss"], ["method", "accuracy"]]
    assert _value(challenge, record, printed[0].table, 3, "loss") == "0.300"
    assert _value(challenge, record, printed[1].table, 2, "accuracy") == "0.702"
    # the figure: its raw CSV is a table of the cell, its image a stored file, not inlined
    (raw,) = [t for t in record.tables if t.source == "cell"]
    assert _value(challenge, record, raw.table, 3, "accuracy") == "0.8125"
    figure = next(c for p in record.pages for c in p.cells if c.id == raw.cell)
    assert "base64" not in figure.body
    (image,) = [a for a in record.artifacts if a.kind == "figure"]
    assert image.cell == figure.id and image.file.path in figure.body
    stored = blob_path(challenge.settings.resolved_files_dir(), image.file.sha256)
    assert stored.read_bytes().startswith(b"\x89PNG")
    assert "base64" not in json.dumps(record.model_dump(mode="json"))
    page = render_logbook(record, file_url=lambda ref: f"/files/{ref.sha256}")
    assert f'<img src="/files/{image.file.sha256}"' in page and "base64" not in page


def test_side_files_are_testimony_and_the_pdf_is_not_kept(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    root = _copy(base, tmp_path / "sides")
    QUIRKS["side_files"](root)
    report = submit_logbook(challenge, root, handle="ada")
    record = _stored(challenge, report.logbook_id)
    kept = {f.path for f in record.files}
    assert {"claims_snapshot.json", "STATUS.md"} <= kept and "paper/paper.pdf" not in kept
    copy = next(s for s in record.side_files if s.kind == "claims-copy")
    assert copy.summary.startswith("5 claims")
    assert any(t.cell == "STATUS.md" and "5/5 verified" in t.text for t in record.testimony)
    assert not any(t.path == "claims_snapshot.json" for t in record.tables)


def test_two_papers_matched_is_an_error_naming_both(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    root = _copy(base, tmp_path / "ambiguous")
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    data.update(schema_version=1, paper=None, tags=[f"paper-{ORID}", f"paper-{OTHER_ORID}"])
    (root / MANIFEST).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LogbookError, match=rf"{ORID}.* and .*{OTHER_ORID}"):
        submit_logbook(challenge, root, handle="ada")
    assert _count(challenge) == 0
    assert submit_logbook(challenge, root, handle="ada", paper=ORID).paper_id == ORID


def test_no_match_names_what_was_tried(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    root = _copy(base, tmp_path / "unknown")
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    data.update(paper={"arxiv_id": "2401.00001"}, tags=["paper-nope123"])
    (root / MANIFEST).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(NotFoundError) as caught:
        submit_logbook(challenge, root, handle="ada")
    assert "2401.00001" in str(caught.value) and "nope123" in str(caught.value)
    assert _count(challenge) == 0


# ---- hostile variants ----


def test_ten_thousand_tags_are_refused(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    root = _copy(base, tmp_path / "tags")
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    data["tags"] = [f"paper-{i}" for i in range(10_000)]
    (root / MANIFEST).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LogbookError, match=r"10,000 tags"):
        submit_logbook(challenge, root, handle="ada")
    assert _count(challenge) == 0
    assert not list((challenge.settings.resolved_files_dir()).rglob("*"))


def test_json_bomb_result_is_a_file_not_a_table(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    """A produced JSON nested 100,000 deep: kept as a file, never parsed into a table."""
    root = _copy(base, tmp_path / "bomb")
    (root / "outputs" / "summary.json").write_text("[" * 100_000 + "]" * 100_000)
    report = submit_logbook(challenge, root, handle="ada", paper=ORID)
    record = _stored(challenge, report.logbook_id)
    assert not any(t.path == "outputs/summary.json" for t in record.tables)
    assert any("summary.json" in w and "not read as a table" in w for w in report.warnings)


def test_formula_cell_is_text_never_a_number(
    challenge: ChallengeContext, papers: None, base: Path, tmp_path: Path
) -> None:
    root = _copy(base, tmp_path / "formula")
    (root / "outputs" / "results.csv").write_text(
        'seed,accuracy,loss\n0,"=HYPERLINK(""http://x"",""0.99"")",0.5\n', encoding="utf-8"
    )
    report = submit_logbook(challenge, root, handle="ada", paper=ORID)
    record = _stored(challenge, report.logbook_id)
    table = next(t for t in record.tables if t.path == "outputs/results.csv")
    locate = locator(challenge.settings.resolved_files_dir())
    value = read_value(record.tables, record.runs, record.pages, table.table, 1, "accuracy", locate)
    assert value.text.startswith("=HYPERLINK") and value.value is None


def test_unknown_future_schema_names_its_version(base: Path, tmp_path: Path) -> None:
    from openrepro.logbooks.trackio_reader import read_trackio_logbook

    root = _copy(base, tmp_path / "future")
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    data["schema_version"] = 3
    (root / MANIFEST).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LogbookError, match=r"unsupported schema_version 3 .*knows 1, 2"):
        read_trackio_logbook(root)
    assert (root / LOGBOOK / "pages" / "index.md").is_file()
