"""Import a claim list made elsewhere (another event's claim set), each claim anchored in the
paper's text automatically.

Input: a JSON file (a list of objects, or ``{"claims": [...]}``) or a CSV file with a header.
Each claim names its paper (``paper``, ``paper_id``, ``venue_id``, ``openreview_id`` or
``forum``: a venue id, else an arXiv id), its text (``claim``, ``text`` or ``statement``) and
optionally a ``quote`` and a ``kind`` (default ``result``).

Anchoring: a quote found verbatim in the paper (:func:`~openrepro.claims.text.locate`) anchors
the claim with similarity 1. Otherwise the claim (or its quote) is compared with every sentence
of the paper's full text, else abstract (:func:`~openrepro.claims.text.split_sentences`), and
the best-matching sentence becomes the claim's quote when its similarity (difflib's ratio on
normalised text) reaches the threshold. Below it the claim is stored without a quote and
flagged ``unanchored`` for an organizer to fix (``claims edit --quote``). Either way the claim
records ``origin="imported"`` and, in ``provenance``, the file, the row, the given quote, the
anchor and its similarity.

The file is hostile until proven otherwise: above :data:`MAX_IMPORT_BYTES`, nested too deeply,
with more than :data:`MAX_IMPORT_CLAIMS` claims, with a spreadsheet formula in a CSV cell
(``=``, ``+``, ``-``, ``@`` at the start of a non-number), or naming a paper the challenge does
not have, it is refused whole with an error naming the row, and nothing is stored. Importing
the same file again adds nothing (a claim with the same paper and text is skipped).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.claims.checks import draft_for_claim
from openrepro.claims.extract import next_key
from openrepro.claims.records import Quote
from openrepro.claims.service import derived_values, ground_quotes
from openrepro.claims.text import normalize_with_map, split_sentences
from openrepro.claims.values import Scale
from openrepro.config import DEFAULT_CHECK_DRAFTING, CheckDrafting
from openrepro.errors import ClaimError
from openrepro.identity.service import check_not_frozen
from openrepro.papers.sources.arxiv import normalize_arxiv_id
from openrepro.store import CLAIM_KINDS, Claim, ClaimEdit, Paper

__all__ = [
    "DEFAULT_THRESHOLD",
    "MAX_IMPORT_BYTES",
    "MAX_IMPORT_CLAIMS",
    "ImportReport",
    "ImportedClaim",
    "import_claims",
    "read_claim_file",
]

DEFAULT_THRESHOLD = 0.6
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_IMPORT_CLAIMS = 100_000
MAX_TEXT_CHARS = 5_000
_PAPER_KEYS = ("paper", "paper_id", "venue_id", "openreview_id", "forum")
_TEXT_KEYS = ("claim", "text", "statement", "claim_text")
_QUOTE_KEYS = ("quote", "evidence", "quote_text")
_FORMULA_RE = re.compile(r"^\s*[=+\-@\t\r]")
_NUMBER_RE = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?\s*$")


class ImportedClaim(BaseModel):
    """One row of the file, as read."""

    row: int  # 1-based, data rows (the CSV header is not a row)
    paper: str
    text: str
    quote: str = ""
    kind: str = "result"


class ImportReport(BaseModel):
    source: str
    claims: int = 0  # rows read
    added: list[str] = Field(default_factory=list)  # claim ids
    unanchored: list[str] = Field(default_factory=list)  # claim ids flagged for an organizer
    skipped: list[str] = Field(default_factory=list)  # already imported (same paper and text)
    similarities: dict[str, float] = Field(default_factory=dict)  # claim id -> anchor's


def _field(row: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = row.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value).strip()
            if text:
                return text
    return ""


def _rows_json(data: bytes, name: str) -> list[dict[str, Any]]:
    try:
        parsed = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ClaimError(f"{name}: not UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise ClaimError(f"{name}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise ClaimError(f"{name}: JSON nested too deeply") from exc
    except ValueError as exc:
        raise ClaimError(f"{name}: unreadable JSON ({exc})") from exc
    if isinstance(parsed, dict):
        parsed = parsed.get("claims")
    if not isinstance(parsed, list):
        raise ClaimError(f"{name}: expected a list of claims (or an object with 'claims')")
    if len(parsed) > MAX_IMPORT_CLAIMS:
        raise ClaimError(f"{name}: {len(parsed):,} claims, more than {MAX_IMPORT_CLAIMS:,}")
    for number, item in enumerate(parsed, start=1):
        if not isinstance(item, dict):
            raise ClaimError(f"{name}, claim {number}: not an object")
    return parsed


def _rows_csv(data: bytes, name: str) -> list[dict[str, Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClaimError(f"{name}: not UTF-8 ({exc.reason})") from exc
    rows: list[dict[str, Any]] = []
    try:
        for number, row in enumerate(csv.DictReader(io.StringIO(text, newline="")), start=1):
            if number > MAX_IMPORT_CLAIMS:
                raise ClaimError(f"{name}: more than {MAX_IMPORT_CLAIMS:,} claims")
            for column, value in row.items():
                if (
                    isinstance(value, str)
                    and _FORMULA_RE.match(value)
                    and not _NUMBER_RE.match(value)
                ):
                    raise ClaimError(
                        f"{name}, row {number}, column {column!r}: a spreadsheet formula "
                        f"({value[:40]!r}); refused, as a formula could run when opened"
                    )
            rows.append(row)
    except csv.Error as exc:
        raise ClaimError(f"{name}: not a readable CSV ({exc})") from exc
    return rows


def read_claim_file(path: Path) -> list[ImportedClaim]:
    """The claims of a JSON or CSV file (see the module docstring); refuses the whole file on
    the first problem, naming it."""
    name = path.name
    if not path.is_file():
        raise ClaimError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_IMPORT_BYTES:
        raise ClaimError(f"{name}: {size:,} bytes, above the limit of {MAX_IMPORT_BYTES:,}")
    data = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == ".json":
        rows = _rows_json(data, name)
    elif suffix == ".csv":
        rows = _rows_csv(data, name)
    else:
        raise ClaimError(f"{name}: a claim list is a .json or .csv file")
    claims: list[ImportedClaim] = []
    for number, row in enumerate(rows, start=1):
        paper, text = _field(row, _PAPER_KEYS), _field(row, _TEXT_KEYS)
        if not paper or not text:
            raise ClaimError(f"{name}, claim {number}: needs a paper id and a claim text")
        kind = _field(row, ("kind",)) or "result"
        if kind not in CLAIM_KINDS:
            raise ClaimError(f"{name}, claim {number}: unknown kind {kind!r}")
        quote = _field(row, _QUOTE_KEYS)
        if len(text) > MAX_TEXT_CHARS or len(quote) > MAX_TEXT_CHARS or "\x00" in text + quote:
            raise ClaimError(f"{name}, claim {number}: text too long or with a NUL character")
        claims.append(ImportedClaim(row=number, paper=paper, text=text, quote=quote, kind=kind))
    return claims


# ---- anchoring ----


def _norm(text: str) -> str:
    return normalize_with_map(text)[0].strip().lower()


def _anchor(paper: Paper, claim: ImportedClaim) -> tuple[Quote | None, float]:
    """The best quote for the claim and its similarity (1.0 for a verbatim quote)."""
    if claim.quote:
        try:
            return ground_quotes(paper, [claim.quote])[0], 1.0
        except ClaimError:
            pass
    field = "full_text" if paper.full_text else "abstract"
    text = getattr(paper, field) or ""
    targets = [_norm(t) for t in (claim.quote, claim.text) if t]
    best: tuple[float, int, int] = (0.0, 0, 0)
    for sentence in split_sentences(text):
        candidate = _norm(sentence.text)
        for target in targets:
            matcher = difflib.SequenceMatcher(None, target, candidate, autojunk=False)
            if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
                continue
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, sentence.start, sentence.end)
    ratio, start, end = best
    if end <= start:
        return None, 0.0
    quote = Quote(text=text[start:end], start=start, end=end, field=field)
    return quote, round(ratio, 4)


_TEXT_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?![\w])")


def _numbers(text: str) -> dict[float, str]:
    found: dict[float, str] = {}
    for literal in _TEXT_NUMBER_RE.findall(text):
        try:
            found.setdefault(abs(float(literal.replace(",", "").rstrip("."))), literal)
        except ValueError:
            continue
    return found


def _uncovered(text: str, quotes: list[str]) -> list[str]:
    """The numbers the claim's text states that none of its quotes does. A check drafted from
    the quote alone would not test the claim as written (a text saying "+20 points over every
    baseline" on a quote saying "The error is at least 0." drafted ``error >= 0``): such a
    claim gets no check from the rules (a wrong check is worse than none)."""
    quoted = {value for quote in quotes for value in _numbers(quote)}
    return [literal for value, literal in _numbers(text).items() if value not in quoted]


def _paper(session: Session, challenge_id: int, ref: str, where: str) -> Paper:
    paper = session.scalar(
        select(Paper).where(Paper.challenge_id == challenge_id, Paper.venue_id == ref)
    )
    arxiv = normalize_arxiv_id(ref)
    if paper is None and arxiv:
        found = [
            p
            for p in session.scalars(
                select(Paper).where(
                    Paper.challenge_id == challenge_id, Paper.arxiv_id.like(f"{arxiv}%")
                )
            )
            if normalize_arxiv_id(p.arxiv_id or "") == arxiv
        ]
        if len(found) > 1:
            raise ClaimError(f"{where}: arXiv id {ref!r} matches several papers")
        paper = found[0] if found else None
    if paper is None:
        raise ClaimError(f"{where}: paper {ref!r} is not in this challenge")
    return paper


def import_claims(
    session: Session,
    challenge_id: int,
    path: Path,
    *,
    editor: str,
    threshold: float = DEFAULT_THRESHOLD,
    drafting: CheckDrafting = DEFAULT_CHECK_DRAFTING,
) -> ImportReport:
    """Import ``path``'s claims in the caller's transaction (nothing is stored on an error);
    each anchored claim's check is drafted by the rules under ``drafting``."""
    check_not_frozen(session, challenge_id)
    claims = read_claim_file(path)
    report = ImportReport(source=path.name, claims=len(claims))
    papers = {c.paper: _paper(session, challenge_id, c.paper, f"{path.name}, claim {c.row}")
              for c in claims}  # fmt: skip
    for item in claims:
        paper = papers[item.paper]
        existing = session.scalar(
            select(Claim.key).where(Claim.paper_id == paper.id, Claim.text == item.text)
        )
        if existing is not None:
            report.skipped.append(f"{paper.venue_id}/{existing}")
            continue
        quote, similarity = _anchor(paper, item)
        anchored = quote is not None and similarity >= threshold
        quotes = [quote] if anchored and quote is not None else []
        key = f"C{next_key(session, paper.id)}"
        reported, scale = derived_values(paper, quotes)
        check = draft_for_claim([q.text for q in quotes], f"{paper.venue_id}/{key}",
                                Scale.model_validate(scale), drafting=drafting)  # fmt: skip
        uncovered = _uncovered(item.text, [q.text for q in quotes]) if check else []
        claim = Claim(
            paper_id=paper.id, key=key, text=item.text, kind=item.kind,
            quotes=[q.model_dump() for q in quotes], reported=reported, scale=scale,
            check=None if uncovered else check,
            origin="imported",
            provenance={
                "imported_from": path.name, "row": item.row, "given_quote": item.quote,
                "anchor": quote.model_dump() if quote else None, "similarity": similarity,
                "threshold": threshold, "unanchored": not anchored, "imported_by": editor,
                **({"check_abstained": "the claim's text states "
                    f"{', '.join(uncovered)}, which its quote does not"} if uncovered else {}),
            },
        )  # fmt: skip
        reason = f"imported from {path.name}"
        claim.edits.append(ClaimEdit(field="created", old_value=None, new_value=key,
                                     editor=editor, reason=reason))  # fmt: skip
        session.add(claim)
        session.flush()
        claim_id = f"{paper.venue_id}/{key}"
        report.added.append(claim_id)
        report.similarities[claim_id] = similarity
        if not anchored:
            report.unanchored.append(claim_id)
    return report
