"""The arXiv reader, run with the real huggingface_hub client against a local fake Papers API.

Hugging Face cannot be reached from the test machines; :mod:`fake_services` stands in for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_services import FakeHfPapers, closed_port_url, serve

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources import SourceItem, resolve_source
from openrepro.papers.sources.arxiv import normalize_arxiv_id, read_arxiv


def paper(arxiv_id: str, title: str, authors: list[str], summary: str) -> dict[str, Any]:
    """A paper as ``GET /api/papers/{id}`` returns it."""
    return {
        "id": arxiv_id,
        "authors": [
            {"_id": f"6777{i:020x}", "name": name, "hidden": False}
            for i, name in enumerate(authors)
        ],
        "mediaUrls": [],
        "publishedAt": "2024-12-31T18:32:05.000Z",
        "submittedOnDailyAt": "2025-01-02T00:11:46.291Z",
        "title": title,
        "summary": summary,
        "upvotes": 54,
        "discussionId": "6775f6d1e0a8c3f3e5d0a1b2",
        "ai_summary": "An AI-written summary.",
        "ai_keywords": ["memory", "attention"],
        "submittedOnDailyBy": {
            "_id": "60f1abe7544c2adfd699860c",
            "avatarUrl": "/avatars/a.svg",
            "isPro": False,
            "fullname": "AK",
            "user": "akhaliq",
            "type": "user",
        },
        "numComments": 3,
    }


TITANS = paper(
    "2501.00663",
    "Titans: Learning to Memorize at\n  Test Time",
    ["Ali Behrouz", "Peilin Zhong", "Vahab Mirrokni"],
    "Over more than a decade there has been an extensive research effort\non recurrence.\n",
)
LATEX = paper(
    "2502.01234",
    r"$\mathcal{O}(\log n)$ Sampling for Gödel Machines",
    ["Zoë Müller", "Jiří Novák", "李明"],
    "We prove $\\Omega(n)$ lower bounds… «really».",
)
OLD_STYLE = paper("hep-th/9901001", "Black Holes and Branes", ["Édouard Brézin"], "Old paper.")


@pytest.fixture
def service() -> FakeHfPapers:
    papers = {p["id"]: p for p in (TITANS, LATEX, OLD_STYLE)}
    return FakeHfPapers(papers=papers)


@pytest.fixture
def url(service: FakeHfPapers) -> Iterator[str]:
    with serve(service) as base:
        yield base


@pytest.fixture
def settings(url: str) -> Settings:
    return Settings(name="t", hf_endpoint=url)


def split(items: list[SourceItem]) -> tuple[list[PaperRecord], list[SkippedItem]]:
    records = [i for i in items if isinstance(i, PaperRecord)]
    return records, [i for i in items if isinstance(i, SkippedItem)]


def test_reads_papers_by_id_and_maps_every_field(service: FakeHfPapers, settings: Settings) -> None:
    reader = read_arxiv("2501.00663,2502.01234", settings)
    records, skipped = split(list(reader.items()))

    assert skipped == []
    assert reader.total == 2
    titans, latex = records
    assert titans.model_dump() == {
        "venue_id": "arxiv:2501.00663",
        "title": "Titans: Learning to Memorize at Test Time",
        "authors": ["Ali Behrouz", "Peilin Zhong", "Vahab Mirrokni"],
        "abstract": "Over more than a decade there has been an extensive research effort\n"
        "on recurrence.",
        "status": None,
        "track": None,
        "decision": None,
        "site_url": "https://arxiv.org/abs/2501.00663",
        "pdf_url": "https://arxiv.org/pdf/2501.00663",
        "arxiv_id": "2501.00663",
        "keywords": None,
        "full_text": None,
        "licence": None,
        "source": "arxiv",
    }
    assert titans.origin == "arxiv:2501.00663"
    assert latex.title == r"$\mathcal{O}(\log n)$ Sampling for Gödel Machines"
    assert latex.authors == ["Zoë Müller", "Jiří Novák", "李明"]
    assert latex.abstract == "We prove $\\Omega(n)$ lower bounds… «really»."
    assert [r.path for r in service.requests] == [
        "/api/papers/2501.00663",
        "/api/papers/2502.01234",
    ]


def test_resolve_source_dispatches_arxiv(settings: Settings) -> None:
    records, _ = split(list(resolve_source("arxiv:2502.01234", settings).items()))
    assert [r.venue_id for r in records] == ["arxiv:2502.01234"]


def test_version_and_prefixes_are_dropped(service: FakeHfPapers, settings: Settings) -> None:
    spec = "arXiv:2501.00663v3, https://arxiv.org/abs/2502.01234v1"
    records, skipped = split(list(read_arxiv(spec, settings).items()))

    assert skipped == []
    assert [(r.venue_id, r.arxiv_id) for r in records] == [
        ("arxiv:2501.00663", "2501.00663"),
        ("arxiv:2502.01234", "2502.01234"),
    ]
    assert records[0].origin == "arxiv:arXiv:2501.00663v3"
    assert {r.path for r in service.requests} == {
        "/api/papers/2501.00663",
        "/api/papers/2502.01234",
    }


def test_an_unknown_paper_is_skipped_and_the_rest_read(settings: Settings) -> None:
    records, skipped = split(list(read_arxiv("2412.99999,2501.00663", settings).items()))

    assert [r.venue_id for r in records] == ["arxiv:2501.00663"]
    assert [(s.location, s.reason) for s in skipped] == [
        ("arxiv:2412.99999", "not found in the Hugging Face Papers API (HTTP 404)")
    ]


def test_an_invalid_id_is_skipped_without_a_request(
    service: FakeHfPapers, settings: Settings
) -> None:
    records, skipped = split(list(read_arxiv("2501.00663,not-an-id,2513.00001", settings).items()))

    assert [r.venue_id for r in records] == ["arxiv:2501.00663"]
    assert [(s.location, s.reason) for s in skipped] == [
        ("arxiv:not-an-id", "not an arXiv id: 'not-an-id'"),
        ("arxiv:2513.00001", "not an arXiv id: '2513.00001'"),  # there is no month 13
    ]
    assert [r.path for r in service.requests] == ["/api/papers/2501.00663"]


def test_another_http_error_skips_that_paper_only(
    service: FakeHfPapers, settings: Settings, url: str
) -> None:
    service.statuses["2502.01234"] = 500
    records, skipped = split(list(read_arxiv("2502.01234,2501.00663", settings).items()))

    assert [r.venue_id for r in records] == ["arxiv:2501.00663"]
    assert len(skipped) == 1
    assert skipped[0].location == "arxiv:2502.01234"
    assert skipped[0].reason.startswith(f"HTTP 500 from {url}/api/papers/2502.01234")


def test_a_paper_without_title_is_skipped(service: FakeHfPapers, settings: Settings) -> None:
    service.papers["2503.00001"] = {"id": "2503.00001", "authors": [], "summary": "x"}
    _, skipped = split(list(read_arxiv("2503.00001", settings).items()))
    assert [(s.location, s.reason) for s in skipped] == [
        ("arxiv:2503.00001", "the Papers API gives no title")
    ]


def test_a_duplicate_id_is_skipped(service: FakeHfPapers, settings: Settings) -> None:
    records, skipped = split(list(read_arxiv("2501.00663,2501.00663v2", settings).items()))

    assert len(records) == 1
    assert [(s.location, s.reason) for s in skipped] == [
        ("arxiv:2501.00663v2", "2501.00663 is listed twice (first at arxiv:2501.00663)")
    ]
    assert len(service.requests) == 1


def test_file_of_ids_with_comments_and_blank_lines(
    service: FakeHfPapers, settings: Settings, tmp_path: Path
) -> None:
    listing = tmp_path / "ids.txt"
    listing.write_text(
        "# papers to reproduce\n\n2501.00663\n  hep-th/9901001  # old-style id\n\n"
        "bogus\n2502.01234v2\n",
        encoding="utf-8",
    )
    reader = read_arxiv(f"@{listing}", settings)
    records, skipped = split(list(reader.items()))

    assert reader.total == 4
    assert [(r.venue_id, r.origin) for r in records] == [
        ("arxiv:2501.00663", "ids.txt: line 3 (2501.00663)"),
        ("arxiv:hep-th/9901001", "ids.txt: line 4 (hep-th/9901001)"),
        ("arxiv:2502.01234", "ids.txt: line 7 (2502.01234v2)"),
    ]
    assert records[1].title == "Black Holes and Branes"
    assert records[1].site_url == "https://arxiv.org/abs/hep-th/9901001"
    assert [(s.location, s.reason) for s in skipped] == [
        ("ids.txt: line 6 (bogus)", "not an arXiv id: 'bogus'")
    ]
    assert "/api/papers/hep-th/9901001" in [r.path for r in service.requests]


def test_a_missing_file_is_a_source_error(settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        read_arxiv(f"@{tmp_path / 'missing.txt'}", settings)


def test_a_file_without_ids_is_a_source_error(settings: Settings, tmp_path: Path) -> None:
    listing = tmp_path / "ids.txt"
    listing.write_text("# nothing yet\n\n", encoding="utf-8")
    with pytest.raises(SourceError, match="no arXiv ids"):
        read_arxiv(f"@{listing}", settings)


def test_an_empty_list_is_a_source_error(settings: Settings) -> None:
    with pytest.raises(SourceError, match="expects ID"):
        read_arxiv(" , ", settings)


def test_an_unreachable_endpoint_fails_fast_with_a_source_error() -> None:
    url = closed_port_url()
    started = time.monotonic()
    with pytest.raises(SourceError, match="cannot reach") as info:
        read_arxiv("2501.00663", Settings(name="t", hf_endpoint=url))
    assert time.monotonic() - started < 5
    assert url in str(info.value)


def test_an_endpoint_that_stops_answering_skips_then_stops(service: FakeHfPapers) -> None:
    ids = "2501.00663,2502.01234,2503.00001,2503.00002,2503.00003"
    with serve(service) as base:
        reader = read_arxiv(ids, Settings(name="t", hf_endpoint=base))
    items = reader.items()  # the server is gone; the first paper was fetched when opening

    first = next(items)
    assert isinstance(first, PaperRecord)
    assert first.venue_id == "arxiv:2501.00663"
    for _ in range(2):
        skipped = next(items)
        assert isinstance(skipped, SkippedItem)
        assert skipped.reason.startswith(f"no answer from {base}/api/papers/")
    with pytest.raises(SourceError, match="stopped answering"):
        next(items)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2501.01234", "2501.01234"),
        ("2501.01234v12", "2501.01234"),
        ("0704.0001", "0704.0001"),
        ("arXiv:2501.01234", "2501.01234"),
        ("https://arxiv.org/abs/2501.01234v2", "2501.01234"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136v1", "math.GT/0309136"),
        ("cond-mat/0102536", "cond-mat/0102536"),
        ("2501.123", None),
        ("2500.01234", None),
        ("hep-th/991301", None),
        ("2501.01234; DROP TABLE", None),
        ("", None),
    ],
)
def test_normalize_arxiv_id(text: str, expected: str | None) -> None:
    assert normalize_arxiv_id(text) == expected
