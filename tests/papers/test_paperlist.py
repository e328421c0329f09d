"""Paper lists in JSON and CSV: exact round-trip of messy strings, bad rows named and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openrepro.errors import SourceError
from openrepro.papers import PaperRecord, SkippedItem
from openrepro.papers.sources.paperlist import read_paper_list

DATA = Path(__file__).parent.parent / "data"


def _split(path: Path) -> tuple[list[PaperRecord], list[SkippedItem]]:
    items = list(read_paper_list(path).items())
    return (
        [i for i in items if isinstance(i, PaperRecord)],
        [i for i in items if isinstance(i, SkippedItem)],
    )


def test_icml2025_list_maps_every_entry_exactly() -> None:
    raw = json.loads((DATA / "icml2025.json").read_text(encoding="utf-8"))
    records, skipped = _split(DATA / "icml2025.json")
    assert skipped == []
    assert len(records) == len(raw) == 3340
    for entry, record in zip(raw, records, strict=True):
        assert record.venue_id == entry["id"]
        assert record.title == entry["title"]
        assert ", ".join(record.authors or []) == entry["author"]
        assert record.status == entry["status"]
        assert record.track == entry["track"]
        assert record.site_url == entry["site"]


def test_corrupted_json_rows_are_named_and_the_rest_is_read(tmp_path: Path) -> None:
    rows = [
        {"id": "ok1", "title": "Fine", "author": "A B"},
        {"id": "nt", "author": "no title"},
        "not an object",
        {"title": "no id"},
        {"id": "bad-author", "title": "T", "author": 42},
        {"id": "nul", "title": "T\x00"},
        {"id": "ok2", "title": "Ünïcødé “quoted” $x^2$", "author": "Zoë Ø, 李雷"},
    ]
    path = tmp_path / "list.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    records, skipped = _split(path)
    assert [r.venue_id for r in records] == ["ok1", "ok2"]
    assert records[1].authors == ["Zoë Ø", "李雷"]
    reasons = {s.location: s.reason for s in skipped}
    assert reasons == {
        "list.json: entry 2 (id nt)": "no title",
        "list.json: entry 3": "expected an object, got str",
        "list.json: entry 4": "no id (expected 'id' or 'venue_id')",
        "list.json: entry 5 (id bad-author)": "author: expected a string or a list of strings",
        "list.json: entry 6 (id nul)": "title: Value error, contains a NUL character",
    }


def test_plain_openrepro_fields_and_papers_wrapper(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(
        json.dumps(
            {
                "papers": [
                    {
                        "venue_id": "abc",
                        "title": "T",
                        "authors": ["Last, First", "X"],
                        "arxiv_id": "https://arxiv.org/abs/2501.00001",
                        "keywords": ["a", "b"],
                    }
                ]
            }
        )
    )
    (record,), _ = _split(path)
    assert record.authors == ["Last, First", "X"]
    assert record.arxiv_id == "2501.00001"
    assert record.keywords == ["a", "b"]


def test_csv_with_quotes_newlines_and_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    path.write_text(
        "id,title,author,status\n"
        'p1,"Title with ""quotes"", a comma, and\na newline","Ana Pérez, Bo Li",Poster\n'
        "p2,short row\n"
        "p3,T,A,Oral,extra\n"
        "p4,$\\mathcal{O}(n)$ time,,Poster\n",
        encoding="utf-8",
    )
    records, skipped = _split(path)
    assert [r.venue_id for r in records] == ["p1", "p4"]
    assert records[0].title == 'Title with "quotes", a comma, and\na newline'
    assert records[0].authors == ["Ana Pérez", "Bo Li"]
    assert records[1].title == "$\\mathcal{O}(n)$ time"
    assert records[1].authors is None
    assert [(s.location, s.reason) for s in skipped] == [
        ("list.csv: line 4", "fewer cells than header columns"),
        ("list.csv: line 5", "more cells than header columns"),
    ]


def test_csv_semicolon_authors_column(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text(
        "venue_id,title,authors\nx,T,Doe, Jane; Roe, Rick\n".replace(
            "Doe, Jane; Roe, Rick", '"Doe, Jane; Roe, Rick"'
        ),
        encoding="utf-8",
    )
    (record,), _ = _split(path)
    assert record.authors == ["Doe, Jane", "Roe, Rick"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[{"id": 1,', "invalid JSON at line 1"),
        (b'{"a": 1}', "expected a list of papers"),
        (b"\xff\xfe[]", "not UTF-8"),
    ],
)
def test_unreadable_json_is_a_source_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=message):
        read_paper_list(path)


def test_missing_file_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        read_paper_list(tmp_path / "nope.json")
