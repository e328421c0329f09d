"""`claims import`: another event's claim list, each claim anchored in the paper's text
(SQLite and PostgreSQL); hostile files are refused whole and store nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.claims.importer import import_claims
from openrepro.claims.service import ClaimError
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim

TEXT = (
    "Introduction. Ridge regression can grok. We show that the generalization delay grows "
    "linearly with the inverse of the regularization strength. On the synthetic benchmark, "
    "the test loss falls below 0.01 after 22,871 steps. Two-layer ReLU networks grok in 36 of "
    "42 configurations."
)


@pytest.fixture
def papers(challenge: ChallengeContext) -> None:
    import_papers(
        challenge.store, challenge.challenge_id,
        [PaperRecord(venue_id="5nNNVY8NW4", title="Grok", abstract="Grokking.",
                     arxiv_id="2601.19791", full_text=TEXT)],
        source="t",
    )  # fmt: skip


def _write(path: Path, claims: object) -> Path:
    path.write_text(json.dumps(claims), encoding="utf-8")
    return path


def _import(ctx: ChallengeContext, path: Path, **kwargs: float) -> object:
    with ctx.store.session() as session:
        return import_claims(
            session, ctx.challenge_id, path, editor="org", **kwargs, drafting="rules"
        )


def _claims(ctx: ChallengeContext) -> list[Claim]:
    with ctx.store.session() as session:
        found = list(session.scalars(select(Claim).order_by(Claim.id)))
        session.expunge_all()
        return found


def test_claims_are_anchored_or_flagged(
    challenge: ChallengeContext, papers: None, tmp_path: Path
) -> None:
    path = _write(tmp_path / "claims.json", {"claims": [
        {"paper": "5nNNVY8NW4", "claim": "Delay is linear in 1/lambda.",
         "quote": "the test loss falls below 0.01 after 22,871 steps"},
        {"paper_id": "arXiv:2601.19791v3",
         "text": "We show the generalisation delay grows linearly with inverse regularisation "
                 "strength."},
        {"paper": "5nNNVY8NW4", "claim": "Transformers trained on CIFAR-100 beat every CNN."},
    ]})  # fmt: skip
    report = _import(challenge, path)
    assert report.added == ["5nNNVY8NW4/C1", "5nNNVY8NW4/C2", "5nNNVY8NW4/C3"]  # type: ignore[attr-defined]
    assert report.unanchored == ["5nNNVY8NW4/C3"]  # type: ignore[attr-defined]
    first, second, third = _claims(challenge)
    assert first.provenance["similarity"] == 1.0 and first.origin == "imported"
    (quote,) = first.quotes
    assert TEXT[quote["start"] : quote["end"]] == quote["text"]
    assert quote["text"] == "the test loss falls below 0.01 after 22,871 steps"
    assert 0.6 <= second.provenance["similarity"] < 1.0
    assert second.quotes[0]["text"].startswith("We show that the generalization delay")
    assert third.quotes == [] and third.provenance["unanchored"] is True
    assert third.provenance["similarity"] < 0.6 and third.status == "active"
    again = _import(challenge, path)
    assert again.added == [] and len(again.skipped) == 3  # type: ignore[attr-defined]


def _count(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return session.scalar(select(func.count(Claim.id))) or 0


def _formula_csv(tmp: Path) -> Path:
    path = tmp / "claims.csv"
    path.write_text(
        "paper,claim,quote\n5nNNVY8NW4,Ridge groks.,\n"
        '5nNNVY8NW4,"=HYPERLINK(""http://evil"",""x"")",\n', encoding="utf-8",
    )  # fmt: skip
    return path


def _huge_csv(tmp: Path) -> Path:
    path = tmp / "huge.csv"
    with path.open("wb") as handle:  # sparse: 2 GB on paper, nothing on disk
        handle.write(b"paper,claim\n5nNNVY8NW4,")
        handle.truncate(2 * 1024**3)
    return path


def _json_bomb(tmp: Path) -> Path:
    path = tmp / "bomb.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    return path


def _unknown_paper(tmp: Path) -> Path:
    return _write(tmp / "c.json", [{"paper": "5nNNVY8NW4", "claim": "fine"},
                                   {"paper": "nope", "claim": "x"}])  # fmt: skip


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_formula_csv, r"row 2, column 'claim': a spreadsheet formula"),
        (_huge_csv, r"2,147,483,648 bytes, above the limit"),
        (_json_bomb, r"nested too deeply"),
        (_unknown_paper, r"claim 2: paper 'nope' is not in this challenge"),
    ],
    ids=["formula", "2GB", "json-bomb", "unknown-paper"],
)
def test_hostile_files_store_nothing(
    challenge: ChallengeContext, papers: None, tmp_path: Path, make: object, message: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(ClaimError, match=message):
        _import(challenge, path)
    assert _count(challenge) == 0


def test_a_check_must_cover_the_claims_text_not_only_its_quote(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    """The attack: an imported claim whose text says "+20 points over every baseline" and whose
    quote says "The error is at least 0." got the check `error >= 0`."""
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p9", title="Bound", abstract="A bound.",
                               full_text="Results. The error is at least 0. We are done.")],
                  source="t")  # fmt: skip
    quote = "The error is at least 0."
    path = _write(tmp_path / "claims.json", {"claims": [
        {"paper": "p9", "claim": "Our method gains +20 points over every baseline.",
         "quote": quote},
        {"paper": "p9", "claim": "The error is at least 0.", "quote": quote},
    ]})  # fmt: skip
    _import(challenge, path)
    inflated, honest = _claims(challenge)
    assert honest.check is not None  # the rules draft a check for the quote as written
    assert inflated.check is None
    assert "+20" in inflated.provenance["check_abstained"]
