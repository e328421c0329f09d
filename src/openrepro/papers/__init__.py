"""The paper index: importers (paper lists, OpenReview, arXiv, PDF folders), queries and search."""

from openrepro.papers.records import (
    ImportReport,
    PaperDetail,
    PaperRecord,
    PaperSummary,
    SearchHit,
    SkippedItem,
)
from openrepro.papers.service import (
    get_paper,
    import_papers,
    list_papers,
    search_papers,
    upsert_batch,
)
from openrepro.papers.sources import SourceReader, resolve_source

__all__ = [
    "ImportReport",
    "PaperDetail",
    "PaperRecord",
    "PaperSummary",
    "SearchHit",
    "SkippedItem",
    "SourceReader",
    "get_paper",
    "import_papers",
    "list_papers",
    "resolve_source",
    "search_papers",
    "upsert_batch",
]
