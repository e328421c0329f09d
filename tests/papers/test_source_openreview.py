"""The OpenReview reader, run with the real openreview-py client against a local fake API v2.

OpenReview cannot be reached from the test machines; :mod:`fake_services` stands in for it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_services import FakeOpenReview, closed_port_url, serve

from openrepro.config import Settings
from openrepro.errors import SourceError
from openrepro.papers.records import PaperRecord, SkippedItem
from openrepro.papers.sources import SourceItem, resolve_source
from openrepro.papers.sources import openreview as openreview_source
from openrepro.papers.sources.openreview import presentation_status, read_openreview, web_url

VENUE = "ICML.cc/2025/Conference"


def note(note_id: str, title: str | None, *, venueid: str = VENUE, **fields: Any) -> dict[str, Any]:
    """An API v2 submission note as the API returns it (content values wrapped in ``value``)."""
    number = sum(map(ord, note_id)) % 5000
    content: dict[str, Any] = {
        "authors": {"value": ["Ada Lovelace", "Alan Turing"]},
        "authorids": {"value": ["~Ada_Lovelace1", "~Alan_Turing1"]},
        "abstract": {"value": f"Abstract of {note_id}."},
        "keywords": {"value": ["learning theory"]},
        "pdf": {"value": f"/pdf/{note_id.lower():0<40}.pdf"},
        "venue": {"value": "ICML 2025 poster"},
        "venueid": {"value": venueid},
        "primary_area": {"value": "theory->learning_theory"},
        "_bibtex": {"value": f"@inproceedings{{x{number},\n title={{{title}}}\n}}"},
    }
    if title is not None:
        content["title"] = {"value": title}
    for key, value in fields.items():
        content[key] = {"value": value}
    return {
        "id": note_id,
        "forum": note_id,
        "number": number,
        "cdate": 1738000000000,
        "pdate": 1746000000000,
        "odate": 1746000000000,
        "mdate": 1746100000000,
        "tcdate": 1738000000000,
        "tmdate": 1746100000000,
        "invitations": [f"{VENUE}/-/Submission", f"{VENUE}/-/Post_Submission"],
        "domain": VENUE,
        "readers": ["everyone"],
        "writers": [VENUE],
        "signatures": [f"{VENUE}/Submission{number}/Authors"],
        "license": "CC BY 4.0",
        "content": content,
    }


LATEX_TITLE = r"$\mathcal{O}(\sqrt{T})$ Regret for Schrödinger Bridges with $\varepsilon$-Noise"
NOTES = [
    note(
        "Bx7QmZ2k4L",
        LATEX_TITLE,
        authors=["Zoë Müller", "Jiří Novák", "李明", "Siddharth Ñuñez-O'Brien"],
        keywords=["optimal transport", "diffusion"],
        abstract="We show $\\tilde{O}(\\sqrt{T})$ regret… «quotes» and\nnew lines.",
    ),
    note("Cq1oral0aa", "An Oral Paper", venue="ICML 2025 oral"),
    note("Dspot11111", "A Spotlight Paper", venue="ICML 2025 spotlightposter"),
    note(
        "Ewithdrawn",
        "A Withdrawn Paper",
        venueid=f"{VENUE}/Withdrawn_Submission",
        venue="ICML 2025 Conference Withdrawn Submission",
    ),
    note("Fnotitle00", None),
    note(
        "Grejected0",
        "A Rejected Paper",
        venueid=f"{VENUE}/Rejected_Submission",
        venue="Submitted to ICML 2025",
    ),
    note("Hposter222", "Plain Poster Two"),
    note("Iposter333", "Plain Poster Three"),
]
ACCEPTED_IDS = ["Bx7QmZ2k4L", "Cq1oral0aa", "Dspot11111", "Hposter222", "Iposter333"]


@pytest.fixture(autouse=True)
def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def service() -> FakeOpenReview:
    # A page of 2 notes (the real API allows 1000) so the 6 accepted notes take 3 pages.
    return FakeOpenReview(notes=list(NOTES), groups={VENUE}, page_size=2)


@pytest.fixture
def settings(service: FakeOpenReview) -> Iterator[Settings]:
    with serve(service) as url:
        yield Settings(name="t", openreview_baseurl=url)


def split(items: list[SourceItem]) -> tuple[list[PaperRecord], list[SkippedItem]]:
    records = [i for i in items if isinstance(i, PaperRecord)]
    return records, [i for i in items if isinstance(i, SkippedItem)]


def test_reads_only_accepted_notes_across_pages(
    service: FakeOpenReview, settings: Settings
) -> None:
    reader = read_openreview(VENUE, settings)
    records, skipped = split(list(reader.items()))

    assert [r.venue_id for r in records] == ACCEPTED_IDS
    assert [(s.location, s.reason) for s in skipped] == [
        (f"openreview:{VENUE} note Fnotitle00", "note has no title")
    ]
    assert reader.total == 6  # the accepted notes, the one without a title included
    assert reader.label == f"openreview:{VENUE}"
    pages = service.requests_to("/notes")
    assert len(pages) == 4  # 2 + 2 + 2 notes, then the empty page that ends the listing
    assert pages[0].query == {
        "content.venueid": VENUE,
        "sort": "id",
        "limit": "1000",
        "count": "true",
    }
    assert [p.query.get("after") for p in pages] == [None, "Cq1oral0aa", "Fnotitle00", "Iposter333"]


def test_maps_every_field_of_a_note_exactly(settings: Settings) -> None:
    records, _ = split(list(read_openreview(VENUE, settings).items()))
    first = records[0]
    base = settings.openreview_baseurl

    assert first.model_dump(exclude={"origin"}) == {
        "venue_id": "Bx7QmZ2k4L",
        "title": LATEX_TITLE,
        "authors": ["Zoë Müller", "Jiří Novák", "李明", "Siddharth Ñuñez-O'Brien"],
        "abstract": "We show $\\tilde{O}(\\sqrt{T})$ regret… «quotes» and\nnew lines.",
        "status": "Poster",
        "track": None,
        "decision": "ICML 2025 poster",
        "site_url": f"{base}/forum?id=Bx7QmZ2k4L",
        "pdf_url": f"{base}/pdf/{'bx7qmz2k4l':0<40}.pdf",
        "arxiv_id": None,
        "keywords": ["optimal transport", "diffusion"],
        "full_text": None,
        "licence": "CC BY 4.0",
        "source": f"openreview:{VENUE}",
    }
    assert first.origin == f"openreview:{VENUE} note Bx7QmZ2k4L"
    statuses = {r.venue_id: (r.status, r.decision) for r in records}
    assert statuses["Cq1oral0aa"] == ("Oral", "ICML 2025 oral")
    assert statuses["Dspot11111"] == ("Spotlight", "ICML 2025 spotlightposter")


def test_resolve_source_dispatches_openreview(settings: Settings) -> None:
    reader = resolve_source(f"openreview:{VENUE}", settings)
    assert [r.venue_id for r in split(list(reader.items()))[0]] == ACCEPTED_IDS


def test_notes_of_another_venueid_are_never_imported(
    service: FakeOpenReview, settings: Settings
) -> None:
    service.ignore_venue_filter = True  # a server that answers every note of the domain
    records, skipped = split(list(read_openreview(VENUE, settings).items()))

    assert [r.venue_id for r in records] == ACCEPTED_IDS
    reasons = {s.location.rsplit(" ", 1)[1]: s.reason for s in skipped}
    assert reasons["Ewithdrawn"] == f"not accepted (venueid '{VENUE}/Withdrawn_Submission')"
    assert reasons["Grejected0"] == f"not accepted (venueid '{VENUE}/Rejected_Submission')"


def test_guest_reads_without_login_or_other_requests(
    service: FakeOpenReview, settings: Settings
) -> None:
    list(read_openreview(VENUE, settings).items())

    assert {r.path for r in service.requests} == {"/notes"}
    assert all("authorization" not in r.headers for r in service.requests)


def test_logs_in_with_username_and_password_from_the_environment(
    service: FakeOpenReview, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.users = {"reader@example.org": "s3cret"}
    service.require_login = True
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reader@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", "s3cret")

    records, _ = split(list(read_openreview(VENUE, settings).items()))

    assert len(records) == len(ACCEPTED_IDS)
    logins = service.requests_to("/login")
    assert len(logins) == 1
    assert logins[0].body["id"] == "reader@example.org"
    assert logins[0].body["password"] == "s3cret"
    assert {r.headers["authorization"] for r in service.requests_to("/notes")} == {
        "Bearer token-reader@example.org"
    }


def test_wrong_password_is_a_source_error(
    service: FakeOpenReview, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.users = {"reader@example.org": "s3cret"}
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reader@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", "wrong")

    with pytest.raises(SourceError, match=re.escape("cannot log in as reader@example.org")) as info:
        read_openreview(VENUE, settings)
    assert "Invalid username or password" in str(info.value)
    assert service.requests_to("/notes") == []


def test_username_without_password_is_a_source_error(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reader@example.org")
    with pytest.raises(SourceError, match="OPENREVIEW_PASSWORD"):
        read_openreview(VENUE, settings)


def test_token_from_the_environment_is_sent_without_login(
    service: FakeOpenReview, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.tokens.add("tok-123")
    service.require_login = True
    monkeypatch.setenv("OPENREVIEW_TOKEN", "Bearer tok-123")

    records, _ = split(list(read_openreview(VENUE, settings).items()))

    assert len(records) == len(ACCEPTED_IDS)
    assert service.requests_to("/login") == []
    assert {r.headers["authorization"] for r in service.requests_to("/notes")} == {"Bearer tok-123"}


def test_forbidden_notes_are_a_source_error_naming_the_url(
    service: FakeOpenReview, settings: Settings
) -> None:
    service.require_login = True
    with pytest.raises(SourceError, match="HTTP 403 ForbiddenError") as info:
        read_openreview(VENUE, settings)
    assert settings.openreview_baseurl in str(info.value)


def test_unreachable_service_fails_fast_with_a_source_error() -> None:
    url = closed_port_url()
    started = time.monotonic()
    with pytest.raises(SourceError, match="cannot connect") as info:
        read_openreview(VENUE, Settings(name="t", openreview_baseurl=url))
    assert time.monotonic() - started < 5
    assert url in str(info.value)


def test_a_transient_503_is_retried(service: FakeOpenReview, settings: Settings) -> None:
    service.fail_notes_with = [503]
    records, _ = split(list(read_openreview(VENUE, settings).items()))

    assert [r.venue_id for r in records] == ACCEPTED_IDS
    assert service.requests_to("/notes")[0].query == service.requests_to("/notes")[1].query


def test_a_long_retry_after_is_capped(
    service: FakeOpenReview, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openreview_source, "MAX_RETRY_AFTER_S", 0.2)
    service.fail_notes_with = [429]
    service.retry_after = "3"  # uncapped, the retry would wait 3 s
    started = time.monotonic()
    records, _ = split(list(read_openreview(VENUE, settings).items()))

    assert len(records) == len(ACCEPTED_IDS)
    assert 0.2 <= time.monotonic() - started < 2


def test_a_persistent_server_error_is_a_source_error_after_few_retries(
    service: FakeOpenReview, settings: Settings
) -> None:
    service.fail_notes_with = [500] * 10
    started = time.monotonic()
    with pytest.raises(SourceError, match="HTTP 500"):
        read_openreview(VENUE, settings)
    assert time.monotonic() - started < 5
    assert len(service.requests_to("/notes")) == 3  # the request and 2 retries


def test_a_failing_later_page_stops_the_import_with_a_source_error(
    service: FakeOpenReview, settings: Settings
) -> None:
    service.fail_pages_after_first = 500
    items = read_openreview(VENUE, settings).items()

    assert [i.venue_id for i in (next(items), next(items)) if isinstance(i, PaperRecord)] == [
        "Bx7QmZ2k4L",
        "Cq1oral0aa",
    ]
    with pytest.raises(SourceError, match="failed after note Cq1oral0aa"):
        next(items)


def test_unknown_venue_is_a_source_error(settings: Settings) -> None:
    with pytest.raises(SourceError, match=re.escape("unknown venue 'ICML.cc/2099/Conference'")):
        read_openreview("ICML.cc/2099/Conference", settings)


def test_known_venue_without_accepted_papers_is_empty(
    service: FakeOpenReview, settings: Settings
) -> None:
    service.groups.add("ICML.cc/2026/Conference")
    reader = read_openreview("ICML.cc/2026/Conference", settings)
    assert reader.total == 0
    assert list(reader.items()) == []


def test_blank_venue_is_a_source_error(settings: Settings) -> None:
    with pytest.raises(SourceError, match="expects a venue id"):
        read_openreview("  ", settings)


@pytest.mark.parametrize(
    ("label", "status"),
    [
        ("ICML 2025 poster", "Poster"),
        ("ICLR 2025 Oral", "Oral"),
        ("ICML 2025 spotlightposter", "Spotlight"),
        ("NeurIPS 2024 spotlight", "Spotlight"),
        ("TMLR", None),
        (None, None),
    ],
)
def test_presentation_status(label: str | None, status: str | None) -> None:
    assert presentation_status(label) == status


@pytest.mark.parametrize(
    ("baseurl", "site"),
    [
        ("https://api2.openreview.net", "https://openreview.net"),
        ("https://api2.openreview.net/", "https://openreview.net"),
        ("https://api2.dev.openreview.net", "https://dev.openreview.net"),
        ("http://127.0.0.1:3001/", "http://127.0.0.1:3001"),
        ("https://api2.example.net", "https://api2.example.net"),
    ],
)
def test_web_url(baseurl: str, site: str) -> None:
    assert web_url(baseurl) == site
