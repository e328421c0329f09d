"""Grounded claim extraction: candidates by code, choice by the LLM, grounding by code.

Per paper: code picks the sentences most likely to state a claim (abstract, introduction,
conclusion and results first) and numbers them; the model answers which sentences state the
core claims, a one-sentence paraphrase and a kind; code then checks every quote is verbatim in
the paper text (recording offsets), parses reported values and scale from the quotes, merges
near-duplicates and stores the claims in one transaction per paper. A claim without a verified
quote is dropped, never stored. The model never writes a quote or a number that is stored.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from difflib import SequenceMatcher
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import draft_for_claim
from openrepro.claims.prompts import load_prompt
from openrepro.claims.records import (
    CLAIM_CHARS,
    ExtractionOutput,
    ExtractionReport,
    PaperExtraction,
    Quote,
    output_model,
)
from openrepro.claims.text import Sentence, candidate_sentences, locate
from openrepro.claims.values import ReportedValue, Scale, parse_scale, parse_values
from openrepro.config import DEFAULT_CHECK_DRAFTING, CheckDrafting
from openrepro.errors import LLMOutputError, NotFoundError
from openrepro.identity.service import ensure_writable
from openrepro.llm import LLMClient, Message, Usage
from openrepro.store import Claim, ClaimEdit, ClaimExtraction, Paper

__all__ = [
    "PROMPT_VERSION",
    "GroundedClaim",
    "PaperText",
    "claim_text",
    "extract_claims",
    "extract_one",
    "extract_paper",
    "ground",
    "merge_duplicates",
    "next_key",
    "pending_papers",
    "record_extraction",
]

PROMPT_VERSION = "extract-v1"
MAX_CLAIMS = 8
DUPLICATE_RATIO = 0.85
#: Who a re-extraction's own removals are recorded as (an organizer's removal is final).
EXTRACTION_EDITOR = "openrepro"
CANDIDATES = 24
# Room for the longest reply the schema allows (a claim of CLAIM_CHARS at ~2 characters per
# token in the worst case, plus its sentence list and kind), so a grammar-constrained reply is
# never cut by the token limit.
TOKENS_PER_CLAIM = CLAIM_CHARS // 2 + 40
Progress = Callable[[PaperExtraction], None]


@dataclass(frozen=True)
class PaperText:
    """What extraction reads of a paper (a snapshot, so workers never touch the ORM)."""

    id: int
    venue_id: str
    title: str
    text: str
    field: str  # "full_text" or "abstract"


@dataclass
class GroundedClaim:
    text: str
    kind: str
    quotes: list[Quote]
    reported: list[ReportedValue] = field(default_factory=list)
    scale: dict[str, str] = field(default_factory=dict)


def _paper_text(paper: Paper) -> PaperText | None:
    if paper.full_text and paper.full_text.strip():
        return PaperText(paper.id, paper.venue_id, paper.title, paper.full_text, "full_text")
    if paper.abstract and paper.abstract.strip():
        return PaperText(paper.id, paper.venue_id, paper.title, paper.abstract, "abstract")
    return None


def build_messages(paper: PaperText, candidates: list[Sentence]) -> list[Message]:
    system, user = load_prompt(PROMPT_VERSION).render(
        title=paper.title,
        sentences="\n".join(
            f"[{i}] {' '.join(s.text.split())}" for i, s in enumerate(candidates, 1)
        ),
    )
    return [Message(role="system", content=system), Message(role="user", content=user)]


_WORD = re.compile(r"[^\W\d_]{2,}")


def claim_text(paraphrase: str, quote: str) -> str:
    """The model's one-sentence paraphrase, unless it is degenerate (fewer than three words, or
    mostly repeated characters, as small models produce): then the quote itself, which is
    grounded by construction."""
    text = " ".join(paraphrase.split())
    words = _WORD.findall(text)
    if len(words) >= 3 and len(set(text)) > 8:
        return text
    return " ".join(quote.split())[: CLAIM_CHARS - 1]


def ground(
    output: ExtractionOutput, candidates: list[Sentence], paper: PaperText
) -> tuple[list[GroundedClaim], int]:
    """Claims whose quotes are verbatim in the paper; the count of claims dropped."""
    grounded: list[GroundedClaim] = []
    dropped = 0
    for proposed in output.claims:
        quotes: list[Quote] = []
        for number in dict.fromkeys(proposed.sentences):
            if not 1 <= number <= len(candidates):
                continue
            span = locate(candidates[number - 1].text, paper.text)
            if span is None:
                continue
            start, end = span
            quotes.append(
                Quote(text=paper.text[start:end], start=start, end=end, field=paper.field)
            )
        if not quotes:
            dropped += 1
            continue
        reported = [value for quote in quotes for value in parse_values(quote.text)]
        scale = parse_scale(*(q.text for q in quotes), paper.text)
        grounded.append(
            GroundedClaim(
                text=claim_text(proposed.claim, quotes[0].text),
                kind=proposed.kind,
                quotes=quotes,
                reported=reported,
                scale=scale.model_dump(exclude_defaults=True),
            )
        )
    return grounded, dropped


def _same(a_text: str, a_quotes: Iterable[int], b_text: str, b_quotes: Iterable[int]) -> bool:
    if set(a_quotes) & set(b_quotes):
        return True
    return SequenceMatcher(None, a_text.lower(), b_text.lower()).ratio() >= DUPLICATE_RATIO


def merge_duplicates(claims: list[GroundedClaim]) -> tuple[list[GroundedClaim], int]:
    """Merge claims that share a quote or whose texts are near-identical (quotes are united)."""
    kept: list[GroundedClaim] = []
    merged = 0
    for claim in claims:
        starts = [q.start for q in claim.quotes]
        twin = next(
            (k for k in kept if _same(k.text, (q.start for q in k.quotes), claim.text, starts)),
            None,
        )
        if twin is None:
            kept.append(claim)
            continue
        merged += 1
        known = {q.start for q in twin.quotes}
        twin.quotes += [q for q in claim.quotes if q.start not in known]
        twin.reported += [v for v in claim.reported if v not in twin.reported]
    return kept[:MAX_CLAIMS], merged


Extracted = tuple[PaperExtraction, list[GroundedClaim], dict[str, Any]]


def extract_paper(client: LLMClient, paper: PaperText) -> Extracted:
    """Extract one paper (no database access: safe in worker threads)."""
    candidates = candidate_sentences(paper.text, limit=CANDIDATES)
    if not candidates:
        outcome = PaperExtraction(paper_id=paper.venue_id, status="skipped",
                                  reason="no sentence long enough to state a claim")  # fmt: skip
        return outcome, [], {}
    output = output_model(len(candidates))
    budget = min(client.max_tokens, TOKENS_PER_CLAIM * min(MAX_CLAIMS, len(candidates)) + 32)
    try:
        result = client.complete(
            build_messages(paper, candidates), output, prompt_version=PROMPT_VERSION,
            max_tokens=budget,
        )  # fmt: skip
    except LLMOutputError as exc:
        failed = PaperExtraction(paper_id=paper.venue_id, status="failed", reason=str(exc),
                                 usage=Usage.model_validate(exc.usage))  # fmt: skip
        return failed, [], {"model": client.backend.model}
    claims, dropped = ground(result.value, candidates, paper)
    claims, merged = merge_duplicates(claims)
    provenance = {
        "backend": result.backend,
        "model": result.model,
        "prompt_version": result.prompt_version,
        "extracted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "seconds": round(result.usage.seconds, 3),
        "cached": result.cached,
    }
    outcome = PaperExtraction(
        paper_id=paper.venue_id, status="done", stored=len(claims), dropped=dropped,
        merged=merged, usage=result.usage,
    )  # fmt: skip
    if not claims:
        outcome.reason = "no proposed claim could be grounded in the paper text"
    return outcome, claims, provenance


def next_key(session: Session, paper_id: int) -> int:
    """The next claim number of a paper: keys are never reused, removed claims included."""
    keys = session.scalars(select(Claim.key).where(Claim.paper_id == paper_id)).all()
    numbers = [int(k[1:]) for k in keys if k.startswith("C") and k[1:].isdigit()]
    return max(numbers, default=0) + 1


def _removed_by_organizer(claim: Claim) -> bool:
    """Whether the claim's newest removal was an organizer's (not re-extraction's own)."""
    removals = [e for e in claim.edits if e.field == "status" and e.new_value == "removed"]
    return bool(removals) and removals[-1].editor != EXTRACTION_EDITOR


def store_extraction(
    session: Session,
    paper: PaperText,
    outcome: PaperExtraction,
    claims: list[GroundedClaim],
    provenance: dict[str, Any],
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
) -> None:
    """Write one paper's claims and its extraction record (the caller's transaction); new
    claims' checks are drafted by the rules under ``drafting``."""
    rows = session.scalars(select(Claim).where(Claim.paper_id == paper.id)).all()
    existing = [c for c in rows if c.status == "active"]
    # claims an organizer removed stay removed: a re-extraction that finds them again skips
    # them instead of storing them under a new id (those re-extraction removed may come back)
    refused = [c for c in rows if c.status == "removed" and _removed_by_organizer(c)]
    matched: set[int] = set()
    number = next_key(session, paper.id)
    stored = 0
    for claim in claims:
        starts = [q.start for q in claim.quotes]
        twin = next(
            (c for c in existing
             if _same(c.text, (q["start"] for q in c.quotes), claim.text, starts)),
            None,
        )  # fmt: skip
        if twin is not None:
            matched.add(twin.id)  # already known (a re-run or a curated claim): keep its id
            continue
        if any(_same(c.text, (q["start"] for q in c.quotes), claim.text, starts)
               for c in refused):  # fmt: skip
            continue
        session.add(
            Claim(
                paper_id=paper.id, key=f"C{number}", text=claim.text, kind=claim.kind,
                quotes=[q.model_dump() for q in claim.quotes],
                reported=[v.model_dump(exclude_defaults=True) for v in claim.reported],
                scale=claim.scale, origin="llm", provenance=provenance,
                check=draft_for_claim([q.text for q in claim.quotes],
                                      f"{paper.venue_id}/C{number}",
                                      Scale.model_validate(claim.scale),
                                      drafting=drafting),
            )
        )  # fmt: skip
        number += 1
        stored += 1
    if outcome.status == "done":
        for old in existing:
            if old.origin == "llm" and old.id not in matched and not old.edits:
                old.status = "removed"
                old.edits.append(
                    ClaimEdit(field="status", old_value="active", new_value="removed",
                              editor=EXTRACTION_EDITOR,
                              reason=f"not found again by re-extraction ({PROMPT_VERSION})")
                )  # fmt: skip
    outcome.stored = stored
    record = session.scalar(select(ClaimExtraction).where(ClaimExtraction.paper_id == paper.id))
    if record is None:
        record = ClaimExtraction(paper_id=paper.id, status=outcome.status)
        session.add(record)
    record.status = outcome.status
    record.model = str(provenance.get("model", ""))
    record.prompt_version = PROMPT_VERSION
    record.claims_stored = len(claims)
    record.claims_dropped = outcome.dropped
    record.error = outcome.reason or None
    record.usage = outcome.usage.model_dump()
    record.created_at = datetime.now(UTC)


def _targets(ctx: ChallengeContext, venue_ids: list[str] | None, redo: bool) -> list[int]:
    with ctx.store.session() as session:
        query = select(Paper.id, Paper.venue_id).where(Paper.challenge_id == ctx.challenge_id)
        if venue_ids:
            rows = session.execute(query.where(Paper.venue_id.in_(venue_ids))).all()
            missing = sorted(set(venue_ids) - {r.venue_id for r in rows})
            if missing:
                raise NotFoundError(f"no paper with id {', '.join(map(repr, missing))}")
            order = {v: i for i, v in enumerate(venue_ids)}
            rows = sorted(rows, key=lambda r: order[r.venue_id])
        else:
            rows = session.execute(query.order_by(Paper.venue_id)).all()
        if redo:
            return [r.id for r in rows]
        done = set(
            session.scalars(
                select(ClaimExtraction.paper_id).where(ClaimExtraction.status == "done")
            )
        )
        return [r.id for r in rows if r.id not in done]


def _snapshots(ctx: ChallengeContext, ids: list[int], batch: int = 32) -> Iterator[PaperText | str]:
    """Papers to extract, loaded a batch at a time (full texts can be large); a venue id string
    stands for a paper without any text."""
    for offset in range(0, len(ids), batch):
        chunk = ids[offset : offset + batch]
        with ctx.store.session() as session:
            papers = {p.id: p for p in session.scalars(select(Paper).where(Paper.id.in_(chunk)))}
            for paper_id in chunk:
                paper = papers[paper_id]
                yield _paper_text(paper) or paper.venue_id


def pending_count(ctx: ChallengeContext, venue_ids: list[str] | None, redo: bool) -> int:
    return len(_targets(ctx, venue_ids, redo))


def pending_papers(ctx: ChallengeContext, venue_ids: list[str] | None, redo: bool) -> list[int]:
    """Ids (store keys) of the papers to extract, in order; done ones left out unless ``redo``."""
    return _targets(ctx, venue_ids, redo)


def record_extraction(
    ctx: ChallengeContext,
    paper: PaperText,
    outcome: PaperExtraction,
    claims: list[GroundedClaim],
    provenance: dict[str, Any],
) -> None:
    """Store one paper's extraction in its own transaction (nothing for a skipped paper)."""
    if outcome.status != "skipped":
        with ctx.store.session() as session:
            store_extraction(session, paper, outcome, claims, provenance,
                             ctx.settings.check_drafting)  # fmt: skip


def extract_one(ctx: ChallengeContext, client: LLMClient, paper_id: int) -> PaperExtraction:
    """Extract and store one paper (by store id): the work item of the Ray engine, made of the
    same steps as the local path (:func:`extract_paper`, then :func:`record_extraction`)."""
    for item in _snapshots(ctx, [paper_id]):
        if isinstance(item, str):
            return PaperExtraction(paper_id=item, status="skipped",
                                   reason="no abstract or full text")  # fmt: skip
        outcome, claims, provenance = extract_paper(client, item)
        record_extraction(ctx, item, outcome, claims, provenance)
        return outcome
    raise NotFoundError(f"no paper with store id {paper_id}")


def extract_claims(
    ctx: ChallengeContext,
    client: LLMClient,
    venue_ids: list[str] | None = None,
    *,
    redo: bool = False,
    progress: Progress | None = None,
) -> ExtractionReport:
    """Extract claims for the given papers (all when None), skipping papers already done
    unless ``redo``. Each paper is stored in its own transaction as soon as it is ready, so an
    interrupted run loses at most the papers in flight and a re-run resumes."""
    ensure_writable(ctx)
    started = time.perf_counter()
    report = ExtractionReport()
    usage_before = client.usage.model_copy()
    ids = _targets(ctx, venue_ids, redo)

    def finish(paper: PaperText, outcome: PaperExtraction, claims: list[GroundedClaim],
               provenance: dict[str, Any]) -> None:  # fmt: skip
        record_extraction(ctx, paper, outcome, claims, provenance)
        report.papers.append(outcome)
        if progress is not None:
            progress(outcome)

    workers = max(1, client.concurrency)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="extract") as pool:
        inflight: dict[Future[Any], PaperText] = {}
        for item in _snapshots(ctx, ids):
            if isinstance(item, str):
                outcome = PaperExtraction(paper_id=item, status="skipped",
                                          reason="no abstract or full text")  # fmt: skip
                report.papers.append(outcome)
                if progress is not None:
                    progress(outcome)
                continue
            inflight[pool.submit(extract_paper, client, item)] = item
            while len(inflight) >= 2 * workers:
                _drain(inflight, finish)
        while inflight:
            _drain(inflight, finish)
    report.usage = _usage_since(usage_before, client.usage)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _drain(inflight: dict[Future[Any], PaperText], finish: Callable[..., None]) -> None:
    """Store whatever finished first; an error (endpoint down) propagates and stops the run."""
    done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
    for future in done:
        paper = inflight.pop(future)
        outcome, claims, provenance = future.result()  # LLMUnavailableError etc. propagate
        finish(paper, outcome, claims, provenance)


def _usage_since(before: Usage, now: Usage) -> Usage:
    return Usage(
        calls=now.calls - before.calls,
        cached=now.cached - before.cached,
        prompt_tokens=now.prompt_tokens - before.prompt_tokens,
        completion_tokens=now.completion_tokens - before.completion_tokens,
        seconds=round(now.seconds - before.seconds, 6),
    )
