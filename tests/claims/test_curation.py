"""Curating claims on SQLite and PostgreSQL: stable ids, grounded quotes, history."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import (
    add_claim,
    edit_claim,
    get_claim,
    list_claims,
    remove_claim,
    split_claim_id,
)
from openrepro.errors import ClaimError, NotFoundError
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import ClaimEdit

ABSTRACT = (
    "We introduce sparse adapters. On GLUE, the method reaches 88.1 average accuracy with a "
    "350M-parameter backbone. Training is 1.9x faster per step on a single A100."
)


@pytest.fixture
def paper(challenge: ChallengeContext) -> str:
    record = PaperRecord(venue_id="arxiv:hep-th/9901001", title="Sparse", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [record], source="test")
    return record.venue_id


def test_claim_ids_split_on_the_last_slash() -> None:
    assert split_claim_id("arxiv:hep-th/9901001/C3") == ("arxiv:hep-th/9901001", "C3")
    with pytest.raises(ClaimError):
        split_claim_id("C3")


def test_add_edit_remove_keep_history_and_never_reuse_keys(
    challenge: ChallengeContext, paper: str
) -> None:
    with challenge.store.session() as s:
        first = add_claim(
            s,
            challenge.challenge_id,
            paper,
            text="Reaches 88.1 on GLUE.",
            kind="result",
            quotes=["reaches 88.1 average accuracy"],
            editor="ana",
            drafting="rules",
        )
        second = add_claim(
            s,
            challenge.challenge_id,
            paper,
            text="1.9x faster.",
            kind="efficiency",
            quotes=["Training is 1.9x faster per step"],
            editor="ana",
            drafting="rules",
        )
    assert (first.id, second.id) == (f"{paper}/C1", f"{paper}/C2")
    assert first.quotes[0].text == "reaches 88.1 average accuracy"
    assert ABSTRACT[first.quotes[0].start : first.quotes[0].end] == first.quotes[0].text
    assert [(v.metric, v.value) for v in first.reported] == [("accuracy", 88.1)]

    with challenge.store.session() as s:
        edited = edit_claim(
            s,
            challenge.challenge_id,
            first.id,
            editor="bo",
            reason="clearer",
            text="The method reaches 88.1 GLUE accuracy.",
            kind="result",
            drafting="rules",
        )
    assert [(e["field"], e["old"], e["new"], e["editor"]) for e in edited.edits][-1] == (
        "text", "Reaches 88.1 on GLUE.", "The method reaches 88.1 GLUE accuracy.", "bo"
    )  # fmt: skip

    with challenge.store.session() as s:
        remove_claim(s, challenge.challenge_id, second.id, editor="bo", reason="duplicate")
        third = add_claim(s, challenge.challenge_id, paper, text="Uses an A100.",
                          kind="qualitative", quotes=["on a single A100"], editor="bo",
                          drafting="rules")  # fmt: skip
    assert third.key == "C3"  # C2 is removed but never reused

    with challenge.store.session() as s:
        active = [c.id for c in list_claims(s, challenge.challenge_id, paper=paper)]
        everything = list_claims(s, challenge.challenge_id, include_removed=True)
        claim, _ = get_claim(s, challenge.challenge_id, second.id)
        assert claim.status == "removed"
        assert s.scalars(select(ClaimEdit.field)).all().count("status") == 1
    assert active == [f"{paper}/C1", f"{paper}/C3"]
    assert len(everything) == 3


def test_ungrounded_or_invalid_changes_are_refused_and_nothing_changes(
    challenge: ChallengeContext, paper: str
) -> None:
    with challenge.store.session() as s:
        view = add_claim(
            s,
            challenge.challenge_id,
            paper,
            text="Reaches 88.1.",
            kind="result",
            quotes=["reaches 88.1 average accuracy"],
            editor="ana",
            drafting="rules",
        )
    with pytest.raises(ClaimError, match="not found verbatim"), challenge.store.session() as s:
        edit_claim(s, challenge.challenge_id, view.id, editor="x", reason="r",
                   quotes=["reaches 99.9 average accuracy"], drafting="rules")  # fmt: skip
    with pytest.raises(ClaimError, match="unknown kind"), challenge.store.session() as s:
        edit_claim(
            s,
            challenge.challenge_id,
            view.id,
            editor="x",
            reason="r",
            kind="opinion",
            drafting="rules",
        )
    with pytest.raises(ClaimError, match="nothing to change"), challenge.store.session() as s:
        edit_claim(
            s,
            challenge.challenge_id,
            view.id,
            editor="x",
            reason="r",
            text="Reaches 88.1.",
            drafting="rules",
        )
    with pytest.raises(ClaimError, match="at least one"), challenge.store.session() as s:
        add_claim(
            s,
            challenge.challenge_id,
            paper,
            text="t",
            kind="result",
            quotes=[],
            editor="x",
            drafting="rules",
        )
    with pytest.raises(NotFoundError), challenge.store.session() as s:
        get_claim(s, challenge.challenge_id, f"{paper}/C9")
    with challenge.store.session() as s:
        (claim,) = list_claims(s, challenge.challenge_id)
    assert claim.text == "Reaches 88.1." and claim.edits[0]["field"] == "created"


def test_a_claims_tolerance_is_kept_and_used_by_the_judge(
    challenge: ChallengeContext, paper: str
) -> None:
    from openrepro.evidence.decide import compare
    from openrepro.evidence.records import Measurement, Pointer

    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, paper, text="Reaches 88.1.", kind="result",
                         quotes=["reaches 88.1 average accuracy"], editor="ana",
                         drafting="rules")  # fmt: skip
        edited = edit_claim(s, challenge.challenge_id, view.id, editor="org", reason="tight",
                            tolerance=0.001, drafting="rules")  # fmt: skip
        with pytest.raises(ClaimError, match="fraction"):
            edit_claim(
                s,
                challenge.challenge_id,
                view.id,
                editor="o",
                reason="r",
                tolerance=5,
                drafting="rules",
            )
    (value,) = edited.reported
    assert value.rel_tol == 0.001
    assert edited.edits[-1]["field"] == "reported"
    seed = Measurement(value=88.0, seed="s", pointer=Pointer(kind="metric", key="k"))
    assert compare([seed], value, rel_tol=value.rel_tol or 0.05).match is False


def test_new_quotes_redraft_the_rules_check_but_keep_a_grounded_organizers(
    challenge: ChallengeContext, paper: str
) -> None:
    from openrepro.claims.service import set_check

    with challenge.store.session() as s:
        view = add_claim(s, challenge.challenge_id, paper, text="Faster.", kind="efficiency",
                         quotes=["reaches 88.1 average accuracy"], editor="ana",
                         drafting="rules")  # fmt: skip
        assert view.check is not None and view.check.relation == "equal"
        edited = edit_claim(s, challenge.challenge_id, view.id, editor="ana", reason="right quote",
                            quotes=["Training is 1.9x faster per step"],
                            drafting="rules")  # fmt: skip
        assert edited.check is not None and edited.check.relation == "ratio"
        assert [e["field"] for e in edited.edits].count("check") == 1
        mine = edited.check.model_copy(update={"note": "kept"})
        set_check(s, challenge.challenge_id, view.id, mine, editor="org", reason="reviewed")
        longer_quote = "Training is 1.9x faster per step on a single A100"
        longer = edit_claim(s, challenge.challenge_id, view.id, editor="ana", reason="longer",
                            quotes=[longer_quote], drafting="rules")  # fmt: skip
        assert longer.check is not None and longer.check.origin == "organizer"
        assert longer.check.note == "kept"  # still grounded: an organizer's check stays
        again = edit_claim(s, challenge.challenge_id, view.id, editor="ana", reason="back",
                           quotes=["reaches 88.1 average accuracy"], drafting="rules")  # fmt: skip
    # 1.9 is no longer in the quote: the organizer's check would be ungrounded, so the rules
    # redraft it and the history keeps the organizer's check and says why it went
    assert again.check is not None and again.check.origin == "rules"
    assert again.check.relation == "equal"
    last = [e for e in again.edits if e["field"] == "check"][-1]
    assert last["old"]["origin"] == "organizer"
    assert "not grounded in the new quotes" in last["reason"] and "1.9" in last["reason"]
