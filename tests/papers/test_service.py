"""Importing into the store (SQLite and PostgreSQL): idempotency, batches, enrichment, search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError
from openrepro.papers import (
    PaperRecord,
    SkippedItem,
    get_paper,
    import_papers,
    list_papers,
    search_papers,
)
from openrepro.papers.sources.paperlist import read_paper_list
from openrepro.store import Claim, Paper

DATA = Path(__file__).parent.parent / "data"


def _import(ctx: ChallengeContext, path: Path, batch_size: int = 500) -> tuple[int, int, int]:
    reader = read_paper_list(path)
    report = import_papers(
        ctx.store, ctx.challenge_id, reader.items(), source=reader.label, batch_size=batch_size
    )
    return report.created, report.updated, len(report.skipped)


def test_icml2025_twice_gives_one_paper_per_entry_byte_identical(
    challenge: ChallengeContext,
) -> None:
    raw = json.loads((DATA / "icml2025.json").read_text(encoding="utf-8"))
    assert _import(challenge, DATA / "icml2025.json") == (3340, 0, 0)
    assert _import(challenge, DATA / "icml2025.json", batch_size=333) == (0, 3340, 0)
    with challenge.store.session() as s:
        rows = s.execute(select(Paper.venue_id, Paper.title, Paper.authors)).all()
    assert len(rows) == len(raw)
    stored = {vid: (title, authors) for vid, title, authors in rows}
    for entry in raw:
        title, authors = stored[entry["id"]]
        assert title.encode("utf-8") == entry["title"].encode("utf-8")
        assert ", ".join(authors).encode("utf-8") == entry["author"].encode("utf-8")


def test_bad_rows_are_reported_and_the_rest_lands(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    raw = json.loads((DATA / "icml2025.json").read_text(encoding="utf-8"))[:50]
    raw[3] = {"id": raw[3]["id"]}  # no title
    raw[10] = ["garbage"]
    raw[20] = dict(raw[21])  # duplicate id
    path = tmp_path / "corrupt.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    reader = read_paper_list(path)
    report = import_papers(challenge.store, challenge.challenge_id, reader.items(), source="x")
    assert report.created == 47
    locations = [s.location for s in report.skipped]
    assert locations[:2] == [f"corrupt.json: entry 4 (id {raw[3]['id']})", "corrupt.json: entry 11"]
    assert "duplicate id" in report.skipped[2].reason
    with challenge.store.session() as s:
        assert s.scalar(select(func.count(Paper.id))) == 47


def test_unknown_fields_never_overwrite_known_ones(challenge: ChallengeContext) -> None:
    first = PaperRecord(venue_id="p", title="T", authors=["A"], abstract="abs", status="Poster")
    import_papers(challenge.store, challenge.challenge_id, [first], source="list")
    later = PaperRecord(venue_id="p", title="T (camera ready)", full_text="body text")
    import_papers(challenge.store, challenge.challenge_id, [later], source="pdf")
    with challenge.store.session() as s:
        paper = get_paper(s, challenge.challenge_id, "p")
    assert (paper.title, paper.authors, paper.abstract, paper.status) == (
        "T (camera ready)", ["A"], "abs", "Poster"
    )  # fmt: skip
    assert paper.full_text_chars == len("body text")
    assert paper.source == "pdf"


def test_a_failing_batch_rolls_back_only_itself(challenge: ChallengeContext) -> None:
    def items() -> object:
        yield PaperRecord(venue_id="a", title="A")
        yield PaperRecord(venue_id="b", title="B")
        raise RuntimeError("source died")

    with pytest.raises(RuntimeError):
        import_papers(challenge.store, challenge.challenge_id, items(), source="x", batch_size=1)  # type: ignore[arg-type]
    with challenge.store.session() as s:
        assert sorted(s.scalars(select(Paper.venue_id))) == ["a", "b"]


def test_list_filters_and_claim_counts(challenge: ChallengeContext) -> None:
    records = [
        PaperRecord(venue_id=f"p{i}", title=f"Paper {i}", status=s, track="main")
        for i, s in enumerate(["Poster", "Oral", "Poster", "Spotlight"])
    ]
    import_papers(challenge.store, challenge.challenge_id, records, source="x")
    with challenge.store.session() as s:
        paper_id = s.scalar(select(Paper.id).where(Paper.venue_id == "p2"))
        assert paper_id is not None
        s.add(Claim(paper_id=paper_id, key="c1", text="x", kind="result"))
    with challenge.store.session() as s:
        posters, total = list_papers(s, challenge.challenge_id, status="poster")
        assert [p.venue_id for p in posters] == ["p0", "p2"] and total == 2
        with_claims, _ = list_papers(s, challenge.challenge_id, has_claims=True)
        assert [(p.venue_id, p.claims) for p in with_claims] == [("p2", 1)]
        without, _ = list_papers(s, challenge.challenge_id, has_claims=False)
        assert [p.venue_id for p in without] == ["p0", "p1", "p3"]
        page, total = list_papers(s, challenge.challenge_id, limit=2, offset=1)
        assert [p.venue_id for p in page] == ["p1", "p2"] and total == 4
        with pytest.raises(NotFoundError):
            get_paper(s, challenge.challenge_id, "nope")


def test_full_text_search_ranks_and_survives_hostile_queries(challenge: ChallengeContext) -> None:
    records = [
        PaperRecord(venue_id="a", title="Reverse KL distillation", abstract="students learn"),
        PaperRecord(venue_id="b", title="Vision", abstract="we use distillation once"),
        PaperRecord(
            venue_id="c", title="Graphs", full_text="A long body that mentions distillation."
        ),
        PaperRecord(venue_id="d", title="Unrelated", abstract="nothing here"),
    ]
    import_papers(challenge.store, challenge.challenge_id, records, source="x")
    with challenge.store.session() as s:
        hits = search_papers(s, challenge.challenge_id, "distillation")
        assert hits[0].venue_id == "a"
        assert {h.venue_id for h in hits} == {"a", "b", "c"}
        for hostile in ['"', "NEAR(", "a OR", "*", "title:x", "'; DROP TABLE papers; --", ""]:
            search_papers(s, challenge.challenge_id, hostile)  # must not raise
        assert search_papers(s, challenge.challenge_id, "students distillation")[0].venue_id == "a"
    # the index follows updates
    import_papers(
        challenge.store,
        challenge.challenge_id,
        [PaperRecord(venue_id="d", title="Unrelated", abstract="now about distillation")],
        source="x",
    )
    with challenge.store.session() as s:
        assert "d" in {h.venue_id for h in search_papers(s, challenge.challenge_id, "distillation")}


def test_skipped_items_pass_through(challenge: ChallengeContext) -> None:
    items = [SkippedItem(location="f:1", reason="bad"), PaperRecord(venue_id="x", title="X")]
    report = import_papers(challenge.store, challenge.challenge_id, items, source="x")
    assert report.created == 1
    assert report.skipped == [SkippedItem(location="f:1", reason="bad")]
