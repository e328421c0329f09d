"""A folder of PDFs as a paper source: records, skipped files and the paper list in the folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pdfgen
import pytest

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources import SourceItem, resolve_source
from openrepro.papers.sources.pdf import read_pdf_folder

SETTINGS = Settings(name="test")


def _items(folder: Path) -> list[SourceItem]:
    return list(read_pdf_folder(folder, SETTINGS).items())


def _records(items: list[SourceItem]) -> dict[str, PaperRecord]:
    return {item.venue_id: item for item in items if isinstance(item, PaperRecord)}


def _skipped(items: list[SourceItem]) -> dict[str, str]:
    return {item.location: item.reason for item in items if isinstance(item, SkippedItem)}


@pytest.fixture(scope="module")
def pdf_bytes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files of :func:`folder`, generated once: writing PDFs with a TTF font is slow."""
    made = tmp_path_factory.mktemp("generated")
    writers = {
        "abc123XYZ.pdf": pdfgen.write_two_column_paper,
        "single01.pdf": pdfgen.write_single_column_paper,
        "notes.pdf": pdfgen.write_not_a_pdf,
        "cut.pdf": pdfgen.write_truncated_pdf,
        "locked.pdf": pdfgen.write_encrypted_pdf,
    }
    return {name: write(made / name).read_bytes() for name, write in writers.items()}


@pytest.fixture
def folder(tmp_path: Path, pdf_bytes: dict[str, bytes]) -> Path:
    """Two good papers, and a text file, a truncated and an encrypted PDF."""
    papers = tmp_path / "neurips-pdfs"
    papers.mkdir()
    for name, data in pdf_bytes.items():
        (papers / name).write_bytes(data)
    (papers / "readme.txt").write_text("not a paper", encoding="utf-8")
    return papers


def test_good_pdfs_are_read_and_bad_ones_skipped(folder: Path) -> None:
    reader = read_pdf_folder(folder, SETTINGS)
    items = list(reader.items())
    assert reader.total == 5 == len(items)
    assert reader.label == str(folder)
    assert sorted(_records(items)) == ["abc123XYZ", "single01"]
    skipped = _skipped(items)
    assert set(skipped) == {"cut.pdf", "locked.pdf", "notes.pdf"}
    assert "not a PDF" in skipped["notes.pdf"]
    assert "encrypted" in skipped["locked.pdf"]
    assert skipped["cut.pdf"]


def test_items_come_sorted_by_file_name(folder: Path) -> None:
    names = [
        item.venue_id + ".pdf" if isinstance(item, PaperRecord) else item.location
        for item in _items(folder)
    ]
    assert names == sorted(names)


def test_record_of_a_pdf_without_a_list(folder: Path) -> None:
    paper = _records(_items(folder))["abc123XYZ"]
    assert paper.title == pdfgen.TITLE
    assert paper.abstract == pdfgen.ABSTRACT
    assert paper.authors is None
    assert paper.full_text is not None
    assert pdfgen.LEFT_SENTENCES[0] in " ".join(paper.full_text.split())
    assert paper.source == "pdf:neurips-pdfs"
    assert paper.origin == str(folder / "abc123XYZ.pdf")


def test_paper_list_in_the_folder_names_title_authors_and_abstract(folder: Path) -> None:
    entries = [
        {
            "id": "abc123XYZ",
            "title": "The Listed Title",
            "author": "Ada Lovelace, Alan Turing",
            "abstract": "The listed abstract.",
            "status": "Poster",
        },
        {"id": "not-in-folder", "title": "A Paper Without PDF"},
        {"id": "no-title"},
    ]
    (folder / "papers.json").write_text(json.dumps(entries), encoding="utf-8")
    reader = read_pdf_folder(folder, SETTINGS)
    items = list(reader.items())
    assert reader.total == len(items) == 6  # five PDFs and the list's bad entry
    records = _records(items)
    assert sorted(records) == ["abc123XYZ", "single01"]
    listed = records["abc123XYZ"]
    assert listed.title == "The Listed Title"
    assert listed.authors == ["Ada Lovelace", "Alan Turing"]
    assert listed.abstract == "The listed abstract."
    assert listed.status == "Poster"
    assert listed.full_text is not None and "reproduction" in listed.full_text
    assert listed.source == "pdf:neurips-pdfs"
    assert listed.origin == str(folder / "abc123XYZ.pdf")
    guessed = records["single01"]  # not in the list: guesses
    assert guessed.title == pdfgen.SINGLE_TITLE
    assert guessed.abstract == pdfgen.SINGLE_ABSTRACT
    assert any("entry 3" in location for location in _skipped(items))


def test_csv_paper_list(folder: Path) -> None:
    (folder / "papers.csv").write_text(
        "id,title,author\nsingle01,Listed From CSV,Grace Hopper\n", encoding="utf-8"
    )
    paper = _records(_items(folder))["single01"]
    assert paper.title == "Listed From CSV"
    assert paper.authors == ["Grace Hopper"]
    assert paper.abstract is None  # the list does not know it; no guess overrides the list


def test_unreadable_paper_list_fails_the_source(folder: Path) -> None:
    (folder / "papers.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SourceError, match=r"papers\.json"):
        read_pdf_folder(folder, SETTINGS)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symbolic_links_and_folders_are_skipped(folder: Path, tmp_path: Path) -> None:
    outside = pdfgen.write_single_column_paper(tmp_path / "outside.pdf")
    (folder / "linked.pdf").symlink_to(outside)
    (folder / "folder.pdf").mkdir()
    skipped = _skipped(_items(folder))
    assert skipped["linked.pdf"] == "symbolic link (not followed)"
    assert skipped["folder.pdf"] == "not a regular file"


def test_upper_case_suffix_is_a_pdf(tmp_path: Path) -> None:
    pdfgen.write_single_column_paper(tmp_path / "UPPER.PDF")
    assert sorted(_records(_items(tmp_path))) == ["UPPER"]


def test_subfolders_are_not_searched(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    pdfgen.write_single_column_paper(tmp_path / "sub" / "deep.pdf")
    with pytest.raises(SourceError, match="no PDF files in"):
        read_pdf_folder(tmp_path, SETTINGS)


def test_folder_without_pdfs(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("nothing", encoding="utf-8")
    with pytest.raises(SourceError, match="no PDF files in"):
        read_pdf_folder(tmp_path, SETTINGS)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot list the folder"):
        read_pdf_folder(tmp_path / "missing", SETTINGS)


def test_resolve_source_opens_a_folder_as_pdfs(folder: Path) -> None:
    reader = resolve_source(str(folder), SETTINGS)
    assert reader.total == 5
    assert sorted(_records(list(reader.items()))) == ["abc123XYZ", "single01"]
