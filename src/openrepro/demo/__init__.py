"""The bundled demo: a small sample challenge that runs offline on the embedded defaults."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from pydantic import BaseModel

from openrepro.challenge import ChallengeContext, init_challenge, open_challenge
from openrepro.config import CONFIG_FILE
from openrepro.papers import ImportReport, SearchHit, import_papers, list_papers, search_papers
from openrepro.papers.sources.paperlist import read_paper_list

__all__ = ["DemoSummary", "run_demo"]

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


def _open_or_create(folder: Path) -> ChallengeContext:
    if (folder / CONFIG_FILE).exists():
        return open_challenge(folder)
    return init_challenge(folder, DEMO_NAME, venue="openrepro/Demo", title="openrepro demo")


def run_demo(folder: Path) -> DemoSummary:
    """Create (or reuse) the demo challenge in ``folder``, import the sample twice, summarise."""
    challenge = _open_or_create(folder)
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
        with challenge.store.session() as session:
            papers, total = list_papers(session, challenge.challenge_id, limit=None)
            hits = search_papers(session, challenge.challenge_id, DEMO_QUERY, limit=5)
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
        )
    finally:
        challenge.close()
