"""A PDF folder imported into the store (SQLite and PostgreSQL) after a paper list."""

from __future__ import annotations

import json
from pathlib import Path

import pdfgen

from openrepro.challenge import ChallengeContext
from openrepro.papers import get_paper, import_papers, resolve_source, search_papers


def _import(ctx: ChallengeContext, spec: str) -> tuple[int, int, list[str]]:
    reader = resolve_source(spec, ctx.settings)
    report = import_papers(ctx.store, ctx.challenge_id, reader.items(), source=reader.label)
    return report.created, report.updated, [s.location for s in report.skipped]


def test_pdfs_add_searchable_full_text_without_clobbering_list_titles(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    listing = tmp_path / "accepted.json"
    listing.write_text(
        json.dumps([{"id": "abc123XYZ", "title": "The Official Title", "author": "Ada, Alan"}]),
        encoding="utf-8",
    )
    assert _import(challenge, str(listing)) == (1, 0, [])

    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    pdfgen.write_two_column_paper(pdfs / "abc123XYZ.pdf")
    pdfgen.write_single_column_paper(pdfs / "new0001.pdf")
    pdfgen.write_truncated_pdf(pdfs / "broken.pdf")
    assert _import(challenge, str(pdfs)) == (1, 1, ["broken.pdf"])

    with challenge.store.session() as s:
        known = get_paper(s, challenge.challenge_id, "abc123XYZ")
        new = get_paper(s, challenge.challenge_id, "new0001")
        hits = search_papers(s, challenge.challenge_id, pdfgen.LEFT_SENTENCES[0])
    # the list's title and authors survive; the PDF only adds the full text
    assert (known.title, known.authors) == ("The Official Title", ["Ada", "Alan"])
    assert known.full_text_chars > 500
    # a paper known only from its PDF takes the first page's title
    assert new.title == pdfgen.SINGLE_TITLE
    assert [h.venue_id for h in hits][:1] == ["abc123XYZ"]
