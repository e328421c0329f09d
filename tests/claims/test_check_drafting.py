"""The setting ``check_drafting``: what the rules store as a claim's check (gated by default)."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim, get_claim, list_claims
from openrepro.claims.extract import GroundedClaim, PaperText, record_extraction
from openrepro.claims.records import PaperExtraction, Quote
from openrepro.claims.service import redraft_checks
from openrepro.config import DEFAULT_CHECK_DRAFTING, Settings
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Paper

# written for these tests, in the event's style
VALUE = "NovaNet reaches 71.2% top-1 accuracy on ImageNet-1k"
RATIO = "NovaNet trains 1.9x faster per step than GridNet"
ABSTRACT = f"We introduce NovaNet. {VALUE} (Table 2). {RATIO} (Table 4)."


@pytest.fixture
def paper(challenge: ChallengeContext) -> str:
    record = PaperRecord(venue_id="p1", title="NovaNet", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [record], source="test")
    return record.venue_id


def test_the_default_drafts_nothing_in_the_settings_and_the_library(
    challenge: ChallengeContext, paper: str
) -> None:
    assert Settings(name="x").check_drafting == DEFAULT_CHECK_DRAFTING == "off"
    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, paper, text=VALUE, kind="result",
                         quotes=[VALUE], editor="org")  # fmt: skip
    assert view.check is None


def test_gated_keeps_a_value_and_withholds_a_ratio_rules_keeps_both_off_keeps_none(
    challenge: ChallengeContext, paper: str
) -> None:
    stored: dict[str, list[str | None]] = {}
    with challenge.store.session() as s:
        for drafting in ("gated", "rules", "off"):
            views = [
                add_claim(
                    s,
                    challenge.challenge_id,
                    paper,
                    text=quote,
                    kind="result",
                    quotes=[quote],
                    editor="org",
                    drafting=drafting,
                )
                for quote in (VALUE, RATIO)
            ]
            stored[drafting] = [v.check.relation.value if v.check else None for v in views]
    assert stored == {
        "gated": ["equal", None],
        "rules": ["equal", "ratio"],
        "off": [None, None],
    }


def test_an_organizer_keeps_the_withheld_reading_and_the_history_says_so(
    challenge: ChallengeContext, paper: str
) -> None:
    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, paper, text=RATIO, kind="efficiency",
                         quotes=[RATIO], editor="org")  # fmt: skip
        assert view.check is None
        gated = redraft_checks(s, challenge.challenge_id, None, editor="org", drafting="gated")
        assert gated == {view.id: False}  # the gate withholds a ratio
        kept = redraft_checks(s, challenge.challenge_id, [view.id], editor="org",
                              drafting="rules", reason="reviewed the rules' reading")  # fmt: skip
        assert kept == {view.id: True}
        claim, _ = get_claim(s, challenge.challenge_id, view.id)
        assert claim.check is not None and claim.check["relation"] == "ratio"
        edit = claim.edits[-1]
        assert edit.field == "check" and edit.reason == "reviewed the rules' reading"
        # a later gated redraft of every claim without a check leaves the kept one alone
        assert redraft_checks(s, challenge.challenge_id, None, editor="org")[view.id] is True


def test_extraction_drafts_under_the_challenges_setting(challenge: ChallengeContext) -> None:
    records = [PaperRecord(venue_id=v, title="NovaNet", abstract=ABSTRACT) for v in ("g", "r")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    with challenge.store.session() as s:
        ids = dict(s.execute(select(Paper.venue_id, Paper.id)).tuples().all())
    start = ABSTRACT.index(RATIO)
    claim = GroundedClaim(text=RATIO, kind="efficiency", quotes=[
        Quote(text=RATIO, start=start, end=start + len(RATIO), field="abstract")])  # fmt: skip
    ruled = dataclasses.replace(
        challenge, settings=challenge.settings.model_copy(update={"check_drafting": "rules"})
    )
    for ctx, venue_id in ((challenge, "g"), (ruled, "r")):
        text = PaperText(ids[venue_id], venue_id, "NovaNet", ABSTRACT, "abstract")
        outcome = PaperExtraction(paper_id=venue_id, status="done")
        record_extraction(ctx, text, outcome, [claim], {"model": "test"})
    with challenge.store.session() as s:
        checks = {c.paper_id: c.check for c in list_claims(s, challenge.challenge_id)}
    assert checks["g"] is None  # the default challenge drafts nothing
    assert checks["r"] is not None and checks["r"].relation.value == "ratio"
