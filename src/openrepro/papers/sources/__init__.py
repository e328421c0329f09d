"""Paper sources: each turns a SOURCE argument into a stream of records and skipped items.

A source never raises for one bad row or file: it yields a :class:`SkippedItem` naming the
location and the reason, and goes on. It raises :class:`~openrepro.errors.SourceError` only when
the source as a whole cannot be read (unknown scheme, unreachable service, unreadable file).

SOURCE forms:
- ``openreview:VENUE_ID`` (e.g. ``openreview:ICML.cc/2025/Conference``): accepted papers of an
  OpenReview API v2 venue;
- ``arxiv:ID[,ID...]`` or ``arxiv:@FILE`` (one id per line): metadata and abstract through the
  Hugging Face Papers API;
- a ``.json`` or ``.csv`` paper list (papercopilot/paperlists format or the plain fields of
  :class:`PaperRecord`);
- a folder of PDFs (``*.pdf``; full text extracted, title/abstract from the first page unless a
  ``papers.json``/``papers.csv`` list in the folder names them).
"""

from __future__ import annotations

from pathlib import Path

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.sources.base import SourceItem, SourceReader

__all__ = ["SourceItem", "SourceReader", "resolve_source"]


def resolve_source(spec: str, settings: Settings) -> SourceReader:
    """Open the source named by ``spec`` (see the module docstring). Each source's module is
    imported when used: the OpenReview and Hub clients are slow to import."""
    if spec.startswith("openreview:"):
        from openrepro.papers.sources.openreview import read_openreview

        return read_openreview(spec.removeprefix("openreview:"), settings)
    if spec.startswith("arxiv:"):
        from openrepro.papers.sources.arxiv import read_arxiv

        return read_arxiv(spec.removeprefix("arxiv:"), settings)
    path = Path(spec)
    if path.is_dir():
        from openrepro.papers.sources.pdf import read_pdf_folder

        return read_pdf_folder(path, settings)
    if path.suffix.lower() in {".json", ".csv"}:
        from openrepro.papers.sources.paperlist import read_paper_list

        return read_paper_list(path)
    if not path.exists():
        raise SourceError(f"{spec}: no such file or folder, and not an openreview:/arxiv: source")
    raise SourceError(
        f"{spec}: unsupported source (expected .json, .csv, a PDF folder, "
        "openreview:VENUE or arxiv:ID)"
    )
