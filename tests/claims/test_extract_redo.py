"""Re-extraction (``claims extract --redo``) keeps an organizer's curation: a claim an
organizer removed never comes back, under its id or a new one."""

from __future__ import annotations

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import list_claims, remove_claim
from openrepro.claims.extract import GroundedClaim, PaperText, store_extraction
from openrepro.claims.records import PaperExtraction, Quote
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Paper

ABSTRACT = (
    "We introduce sparse adapters. On GLUE, the method reaches 88.1 average accuracy with a "
    "350M-parameter backbone. Training is 1.9x faster per step on a single A100."
)


def _claim(text: str, quote: str) -> GroundedClaim:
    start = ABSTRACT.index(quote)
    return GroundedClaim(text=text, kind="result",
                         quotes=[Quote(text=quote, start=start, end=start + len(quote),
                                       field="abstract")])  # fmt: skip


def _extract(challenge: ChallengeContext, paper: PaperText, claims: list[GroundedClaim]) -> None:
    with challenge.store.session() as s:
        outcome = PaperExtraction(paper_id=paper.venue_id, status="done")
        store_extraction(s, paper, outcome, claims, {"model": "test"})


def test_redo_never_revives_a_claim_an_organizer_removed(challenge: ChallengeContext) -> None:
    record = PaperRecord(venue_id="p1", title="Sparse", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [record], source="test")
    with challenge.store.session() as s:
        row_id = s.scalar(select(Paper.id).where(Paper.venue_id == "p1"))
    assert row_id is not None
    paper = PaperText(row_id, "p1", "Sparse", ABSTRACT, "abstract")
    found = [
        _claim("The method reaches 88.1 GLUE accuracy.", "reaches 88.1 average accuracy"),
        _claim("Training is 1.9x faster per step.", "Training is 1.9x faster per step"),
    ]
    _extract(challenge, paper, found)
    with challenge.store.session() as s:
        remove_claim(s, challenge.challenge_id, "p1/C2", editor="ana", reason="not a claim")
    _extract(challenge, paper, found)  # --redo finds both again
    with challenge.store.session() as s:
        active = [(c.id, c.text) for c in list_claims(s, challenge.challenge_id, paper="p1")]
        every = list_claims(s, challenge.challenge_id, paper="p1", include_removed=True)
    assert active == [("p1/C1", "The method reaches 88.1 GLUE accuracy.")]
    assert [(c.id, c.status) for c in every] == [("p1/C1", "active"), ("p1/C2", "removed")]
