"""The paper index: importers (paper lists, OpenReview, arXiv, PDF folders), queries and search."""

from openrepro.papers.records import (
    ImportReport,
    PaperDetail,
    PaperRecord,
    PaperSummary,
    SearchHit,
    SkippedItem,
    StoredText,
)
from openrepro.papers.service import (
    MAX_QUERY_CHARS,
    get_paper,
    import_papers,
    list_papers,
    paper_details,
    search_papers,
    search_terms,
    stored_text,
    upsert_batch,
)
from openrepro.papers.sources import SourceReader, resolve_source

__all__ = [
    "MAX_QUERY_CHARS",
    "ImportReport",
    "PaperDetail",
    "PaperRecord",
    "PaperSummary",
    "SearchHit",
    "SkippedItem",
    "SourceReader",
    "StoredText",
    "get_paper",
    "import_papers",
    "list_papers",
    "paper_details",
    "resolve_source",
    "search_papers",
    "search_terms",
    "stored_text",
    "upsert_batch",
]
