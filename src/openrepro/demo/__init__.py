"""The bundled demo: a small sample challenge that runs offline on the embedded defaults."""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import as_file, files
from pathlib import Path

from pydantic import BaseModel

from openrepro.challenge import ChallengeContext, init_challenge, open_challenge
from openrepro.claims import (
    ClaimView,
    ExtractionReport,
    PaperExtraction,
    extract_claims,
    list_claims,
)
from openrepro.config import CONFIG_FILE
from openrepro.llm import open_client
from openrepro.papers import ImportReport, SearchHit, import_papers, list_papers, search_papers
from openrepro.papers.sources.paperlist import read_paper_list

__all__ = ["DemoSummary", "run_demo"]

Progress = Callable[[PaperExtraction], None]

DEMO_NAME = "demo"
DEMO_QUERY = "distillation"


class DemoSummary(BaseModel):
    folder: str
    database: str
    imported: ImportReport
    reimported: ImportReport
    papers: int
    by_status: dict[str, int]
    search_query: str
    search_hits: list[SearchHit]
    extraction: ExtractionReport
    extraction_rerun: ExtractionReport
    claims: list[ClaimView]


def _open_or_create(folder: Path) -> ChallengeContext:
    if (folder / CONFIG_FILE).exists():
        return open_challenge(folder)
    return init_challenge(folder, DEMO_NAME, venue="openrepro/Demo", title="openrepro demo")


def run_demo(folder: Path, progress: Progress | None = None) -> DemoSummary:
    """Create (or reuse) the demo challenge in ``folder``, import the sample twice, extract
    grounded claims with the configured LLM (embedded by default) twice, and summarise: the
    second import updates and never duplicates, the second extraction makes no model call."""
    challenge = _open_or_create(folder)
    client = open_client(challenge.settings, challenge.store)
    try:
        resource = files("openrepro.demo").joinpath("sample_papers.json")
        with as_file(resource) as sample:
            reports = []
            for _ in range(2):  # the second import shows idempotency: all updates, no new rows
                reader = read_paper_list(sample)
                reports.append(
                    import_papers(
                        challenge.store, challenge.challenge_id, reader.items(), source="demo"
                    )
                )
        extraction = extract_claims(challenge, client, redo=True, progress=progress)
        rerun = extract_claims(challenge, client, redo=True)  # answered by the cache
        with challenge.store.session() as session:
            papers, total = list_papers(session, challenge.challenge_id, limit=None)
            hits = search_papers(session, challenge.challenge_id, DEMO_QUERY, limit=5)
            claims = list_claims(session, challenge.challenge_id)
        by_status: dict[str, int] = {}
        for paper in papers:
            key = paper.status or "unknown"
            by_status[key] = by_status.get(key, 0) + 1
        return DemoSummary(
            folder=str(folder),
            database=challenge.store.safe_url,
            imported=reports[0],
            reimported=reports[1],
            papers=total,
            by_status=dict(sorted(by_status.items())),
            search_query=DEMO_QUERY,
            search_hits=hits,
            extraction=extraction,
            extraction_rerun=rerun,
            claims=claims,
        )
    finally:
        client.close()
        challenge.close()
