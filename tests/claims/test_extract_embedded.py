"""Claim extraction end to end with the real embedded model (SmolLM2 through llama.cpp).

Asserts plumbing, never that the tiny model's claims are right: every stored quote is verbatim
at its offsets, failures are recorded as failures, and a re-run makes no model call.
"""

from __future__ import annotations

import json
from importlib.resources import files

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import extract_claims, list_claims
from openrepro.llm import LLMClient
from openrepro.llm.embedded import EmbeddedBackend
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import ClaimExtraction, Paper


def _sample(n: int) -> list[PaperRecord]:
    raw = json.loads(files("openrepro.demo").joinpath("sample_papers.json").read_text("utf-8"))
    return [
        PaperRecord(venue_id=p["id"], title=p["title"], abstract=p["abstract"])
        for p in raw["papers"][:n]
    ]


def test_extraction_stores_only_grounded_claims_and_reruns_cost_nothing(
    challenge: ChallengeContext, embedded_backend: EmbeddedBackend
) -> None:
    records = _sample(3)
    records.append(PaperRecord(venue_id="empty", title="A paper with no text at all"))
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    client = LLMClient(embedded_backend, store=challenge.store, max_tokens=512)

    first = extract_claims(challenge, client)
    statuses = {p.paper_id: p.status for p in first.papers}
    assert statuses["empty"] == "skipped"
    assert {statuses[r.venue_id] for r in records[:3]} <= {"done", "failed"}
    assert first.usage.calls >= 3 and first.usage.completion_tokens > 0

    with challenge.store.session() as s:
        abstracts = {v: a for v, a in s.execute(select(Paper.venue_id, Paper.abstract))}
        claims = list_claims(s, challenge.challenge_id)
        recorded = s.scalars(select(ClaimExtraction)).all()
    assert len(recorded) == 3  # one record per attempted paper, failures included
    for claim in claims:
        assert claim.quotes, claim.id
        for quote in claim.quotes:
            assert quote.field == "abstract"
            assert abstracts[claim.paper_id][quote.start : quote.end] == quote.text
        assert claim.provenance["prompt_version"] == "extract-v1"
        assert claim.provenance["model"] == embedded_backend.model
    assert sum(p.stored for p in first.papers) == len(claims)

    resumed = extract_claims(challenge, client)  # done papers are skipped
    assert resumed.usage.calls == 0
    assert {p.paper_id for p in resumed.papers} <= {"empty"} | {
        p.paper_id for p in first.papers if p.status == "failed"
    }
    redone = extract_claims(challenge, client, redo=True)  # answered from the cache
    assert redone.usage.calls == 0
    assert redone.usage.cached == 3
    with challenge.store.session() as s:
        again = list_claims(s, challenge.challenge_id)
    assert [c.id for c in again] == [c.id for c in claims]  # same claims, same ids
