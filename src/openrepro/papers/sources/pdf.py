"""A folder of paper PDFs as a paper source.

Name each PDF by the paper's venue id (``abc123XYZ.pdf`` for the OpenReview paper
``abc123XYZ``): the file stem becomes the venue id, so importing the folder attaches the full
text to papers already imported from a paper list or from OpenReview.

Every ``*.pdf`` file directly in the folder is read (sorted by name, case-insensitive suffix, no
subfolders). Symbolic links and other non-regular files are not followed but reported as
skipped, and so is every PDF that cannot be read (encrypted, broken, scanned without text).

Title and abstract come from a paper list in the folder, ``papers.json`` (or else
``papers.csv``), in any format :func:`~openrepro.papers.sources.paperlist.read_paper_list`
reads: a PDF whose stem the list names takes the list's title, authors, abstract and other
fields. Only papers with a PDF are imported; the list's rows that cannot be read are reported as
skipped. A PDF the list does not name gets the title and abstract guessed from its first page
(see :mod:`openrepro.papers.pdftext`); guesses fill a new paper but never overwrite a title or
abstract already stored from a list or OpenReview.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from openrepro.config import Settings
from openrepro.errors import PdfTextError, SourceError
from openrepro.papers.pdftext import PdfText, extract_text
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources.base import SourceItem, SourceReader

__all__ = ["LIST_FILES", "read_pdf_folder"]

LIST_FILES = ("papers.json", "papers.csv")


def read_pdf_folder(folder: Path, settings: Settings) -> SourceReader:
    """Open ``folder`` as a source of papers with full text (see the module docstring).

    The PDFs are listed and the paper list is read at once, so a folder without PDFs or with an
    unreadable list raises :class:`SourceError` here; the PDFs are extracted one by one while
    the items are iterated. ``settings`` is accepted for the common source signature.
    """
    del settings  # no setting applies to PDF folders yet
    pdfs = _pdf_files(folder)
    listed, list_skipped = _paper_list(folder)
    source = f"pdf:{folder.resolve().name}"

    def items() -> Iterator[SourceItem]:
        yield from list_skipped
        for path in pdfs:
            yield _read_one(path, listed.get(path.stem), source)

    return SourceReader(label=str(folder), items=items, total=len(pdfs) + len(list_skipped))


def _pdf_files(folder: Path) -> list[Path]:
    try:
        paths = sorted(
            (path for path in folder.iterdir() if path.suffix.lower() == ".pdf"),
            key=lambda path: path.name,
        )
    except OSError as exc:
        raise SourceError(f"{folder}: cannot list the folder: {exc.strerror or exc}") from exc
    if not paths:
        raise SourceError(f"no PDF files in {folder}")
    return paths


def _paper_list(folder: Path) -> tuple[dict[str, PaperRecord], list[SkippedItem]]:
    """The records of the folder's paper list by venue id (first wins), and its skipped rows."""
    path = next((folder / name for name in LIST_FILES if (folder / name).is_file()), None)
    if path is None:
        return {}, []
    from openrepro.papers.sources.paperlist import read_paper_list

    records: dict[str, PaperRecord] = {}
    skipped: list[SkippedItem] = []
    for item in read_paper_list(path).items():
        if isinstance(item, SkippedItem):
            skipped.append(item)
        else:
            records.setdefault(item.venue_id, item)
    return records, skipped


def _read_one(path: Path, listed: PaperRecord | None, source: str) -> SourceItem:
    if path.is_symlink():
        return SkippedItem(location=path.name, reason="symbolic link (not followed)")
    if not path.is_file():
        return SkippedItem(location=path.name, reason="not a regular file")
    try:
        extracted = extract_text(path)
    except PdfTextError as exc:
        return SkippedItem(location=path.name, reason=str(exc))
    try:
        return _record(path, extracted, listed, source)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in err['loc']) or 'record'}: {err['msg']}"
            for err in exc.errors()
        )
        return SkippedItem(location=path.name, reason=problems)


def _record(path: Path, extracted: PdfText, listed: PaperRecord | None, source: str) -> PaperRecord:
    """The paper of one PDF: the list's fields when it names the paper, else the guesses."""
    found = {"full_text": extracted.text, "source": source, "origin": str(path)}
    if listed is not None:
        return PaperRecord.model_validate({**listed.model_dump(), **found})
    return PaperRecord(
        venue_id=path.stem,
        title=extracted.title_guess or path.stem,
        abstract=extracted.abstract_guess,
        guessed=frozenset({"title", "abstract"}),
        **found,
    )
