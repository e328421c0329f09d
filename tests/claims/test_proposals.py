"""Participants' check proposals on SQLite and PostgreSQL: validated and grounded, stored per
participant, superseded, confirmed by an organizer or by an equivalent proposal of another
confirmed team (then the claim's check, in its history); which check judges whose logbook."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Check
from openrepro.claims.proposals import (
    accept_proposal,
    check_digest,
    effective_check,
    equivalence_form,
    list_proposals,
    open_proposals,
    parse_checks_file,
    propose_check,
    propose_checks,
)
from openrepro.claims.service import get_claim, set_check
from openrepro.errors import CheckError, NotFoundError
from openrepro.identity import register
from openrepro.identity.teams import set_team
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import ClaimEdit, Participant

ABSTRACT = (
    "We analyse averaged SGD. The optimality gap after T steps is at most 0.05 on every convex "
    "instance we tried. The averaged iterate has a lower gap than the last iterate."
)
GAP = {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
       "comparator": "le", "constant": {"value": 0.05, "text": "0.05"}}  # fmt: skip


@pytest.fixture
def theory(challenge: ChallengeContext) -> ChallengeContext:
    paper = PaperRecord(venue_id="t1", title="Averaged SGD", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="test")
    with challenge.store.session() as s:
        for text, quote in (
            ("The gap is at most 0.05.", "The optimality gap after T steps is at most 0.05"),
            ("Averaging beats the last iterate.", "The averaged iterate has a lower gap than"),
        ):
            add_claim(s, challenge.challenge_id, "t1", text=text, kind="theory", quotes=[quote],
                      editor="org", drafting="rules")  # fmt: skip
        set_check(s, challenge.challenge_id, "t1/C1", None, editor="org", reason="no draft")
    for handle, team in (("ana", "red"), ("bo", "blue"), ("cy", "red")):
        register(challenge, handle)
        set_team(challenge, handle, team)  # by an organizer: confirmed
    register(challenge, "solo")
    return challenge


def _person(ctx: ChallengeContext, s: Any, handle: str) -> Participant:
    row = s.scalar(select(Participant).where(Participant.handle == handle))
    assert row is not None
    return row


def test_a_proposal_is_validated_and_grounded_or_refused_with_the_reason(
    theory: ChallengeContext,
) -> None:
    with theory.store.session() as s:
        ana = _person(theory, s, "ana")
        ungrounded = {**GAP, "constant": {"value": 0.01, "text": "0.01"}}
        refused = propose_check(s, theory.challenge_id, ana, "t1/C1", ungrounded)
        assert refused.status == "refused" and "not stated in the quote" in refused.reason
        malformed = propose_check(s, theory.challenge_id, ana, "t1/C1", {"relation": "nope"})
        assert malformed.status == "refused" and "invalid check" in malformed.reason
        human = propose_check(s, theory.challenge_id, ana, "t1/C1", {"relation": "human"})
        assert human.status == "refused" and "organizers" in human.reason
        missing = propose_check(s, theory.challenge_id, ana, "t1/C9", GAP)
        assert missing.status == "refused" and "no claim" in missing.reason
        assert list_proposals(s, theory.challenge_id) == []  # nothing refused is stored
        stored = propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        assert (stored.status, stored.used) == ("stored", True)
        again = propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        assert (again.status, again.proposal_id) == ("unchanged", stored.proposal_id)
        [view] = list_proposals(s, theory.challenge_id, claim="t1/C1")
        assert view.check.origin == "participant" and view.check.claim_id == "t1/C1"
        assert view.check.quantities[0].key == "claims/t1/C1/gap"
        assert "gap" in view.description and "0.05" in view.description


def test_a_newer_proposal_supersedes_and_a_checks_file_names_claims_by_key(
    theory: ChallengeContext,
) -> None:
    with theory.store.session() as s:
        ana = _person(theory, s, "ana")
        first = propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        strict = {**GAP, "comparator": "lt"}
        paper = get_claim(s, theory.challenge_id, "t1/C1")[1]
        outcomes = propose_checks(s, theory.challenge_id, ana, paper,
                                  {"C1": strict, "other/C1": GAP})  # fmt: skip
        assert [o.status for o in outcomes] == ["stored", "refused"]
        assert "not a claim of t1" in outcomes[1].reason
        rows = list_proposals(s, theory.challenge_id, include_superseded=True)
        assert {r.id: r.status for r in rows} == {
            first.proposal_id: "superseded",
            outcomes[0].proposal_id: "proposed",
        }
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        own = open_proposals(s, [claim.id], [ana.id])
        assert own[(claim.id, ana.id)].id == outcomes[0].proposal_id


def test_checks_file_problems_name_the_file() -> None:
    with pytest.raises(CheckError, match=r"checks\.json: not JSON"):
        parse_checks_file("{oops", "checks.json")
    with pytest.raises(CheckError, match="format 2 is not known"):
        parse_checks_file('{"format": 2, "checks": {}}', "checks.json")
    with pytest.raises(CheckError, match="expected"):
        parse_checks_file('{"format": 1}', "checks.json")
    assert parse_checks_file('{"format": 1, "checks": {"C1": {}}}', "checks.json") == {"C1": {}}


def test_equivalent_forms_ignore_names_but_not_what_is_asserted() -> None:
    renamed = {**GAP, "subject": "opt_gap", "quantities": [{"name": "opt_gap", "unit": ""}]}
    base = Check.from_json(GAP)
    assert equivalence_form(base) == equivalence_form(Check.from_json(renamed))
    for changed in ({"comparator": "ge"}, {"constant": {"value": 0.5, "text": "0.5"}},
                    {"tolerance": {"rel": 0.2}}):  # fmt: skip
        assert equivalence_form(Check.from_json({**GAP, **changed})) != equivalence_form(base)
    ordering = {
        "relation": "ordering",
        "subject": "avg",
        "baselines": ["last"],
        "quantities": [{"name": "avg"}, {"name": "last"}],
        "direction": "lower",
    }
    swapped = {**ordering, "subject": "last", "baselines": ["avg"],
               "quantities": [{"name": "last"}, {"name": "avg"}]}  # fmt: skip
    # roles, never positions: "avg lower than last" is not "last lower than avg" (this test
    # asserted the opposite once, which let a third team flip a confirmed verdict)
    assert equivalence_form(Check.from_json(ordering)) != equivalence_form(Check.from_json(swapped))
    # the same ordering said with a comparator instead of a direction is the same assertion
    said = {**ordering, "direction": "none", "comparator": "lt"}
    assert equivalence_form(Check.from_json(said)) == equivalence_form(Check.from_json(ordering))
    # an ordering's direction is its comparator; a value's direction decides nothing (the judge
    # never reads it), so two drafts that differ only there accept the same evidence
    higher = {**ordering, "direction": "higher"}
    assert equivalence_form(Check.from_json(higher)) != equivalence_form(Check.from_json(ordering))
    for direction in ("higher", "lower", "none"):
        assert equivalence_form(Check.from_json({**GAP, "direction": direction})) == (
            equivalence_form(base)
        )
    # a sweep stated on the quantity (as the model's drafts do) or on the check is one sweep
    trend = {"relation": "trend", "subject": "gap", "quantities": [{"name": "gap"}],
             "trend": "decreasing", "sweep": "steps"}  # fmt: skip
    on_quantity = {**trend, "quantities": [{"name": "gap", "sweep": "steps"}]}
    other_sweep = {**trend, "sweep": "model size"}
    form = equivalence_form(Check.from_json(trend))
    assert form == equivalence_form(Check.from_json(on_quantity))
    assert form != equivalence_form(Check.from_json(other_sweep))


@pytest.mark.parametrize(
    ("base", "changed"),
    [
        (GAP, {"tolerance": {"rel": 0.05, "abs": 1e9}}),
        (GAP, {"constant": {"value": 0.05, "text": "0.05%"}}),  # a unit of the constant
        (GAP, {"scale": {"model_size": "7B"}}),
        ({"relation": "rate", "subject": "gap", "quantities": [{"name": "gap", "sweep": "T"}],
          "sweep": "T", "rate": {"order": "O", "exponent": {"value": -1, "text": "O(1/T)"}}},
         {"rate": {"order": "Omega", "exponent": {"value": -1, "text": "O(1/T)"}}}),
        ({"relation": "rate", "subject": "gap", "quantities": [{"name": "gap", "sweep": "T"}],
          "sweep": "T", "rate": {"order": "O", "exponent": {"value": -1, "text": "O(1/T)"}}},
         {"rate": {"order": "O", "exponent": {"value": -0.5, "text": "O(1/T)"}}}),
        ({"relation": "rate", "subject": "gap", "quantities": [{"name": "gap", "sweep": "T"}],
          "sweep": "T", "rate": {"order": "O", "exponent": {"value": -1, "text": "O(1/T)"}}},
         {"rate": {"order": "O", "exponent": {"value": -1, "text": "O(1/T)"},
                   "log_exponent": {"value": 1, "text": "log T"}}}),
        ({"relation": "for_all", "sweep": "dataset", "labels": ["CIFAR-10", "SVHN"],
          "inner": GAP}, {"labels": ["CIFAR-10", "STL-10"]}),
        ({"relation": "for_all", "sweep": "task", "count": {"value": 10, "text": "10"},
          "at_least": {"value": 9, "text": "9"}, "inner": GAP},
         {"at_least": {"value": 1, "text": "1"}}),
        ({"relation": "for_all", "sweep": "task", "count": {"value": 10, "text": "10"},
          "inner": GAP}, {"count": {"value": 1, "text": "1"}}),
    ],
)  # fmt: skip
def test_every_field_that_changes_what_a_check_accepts_changes_its_form(
    base: dict[str, Any], changed: dict[str, Any]
) -> None:
    """The form once left out the rate's order and exponent, labels, count, at_least, the
    scale and the constants' units, so checks that accept different evidence "matched"."""
    assert equivalence_form(Check.from_json({**base, **changed})) != equivalence_form(
        Check.from_json(base)
    )


ORDERING = {"relation": "ordering", "subject": "avg", "baselines": ["last"],
            "quantities": [{"name": "avg"}, {"name": "last"}], "direction": "lower"}  # fmt: skip
FLIPPED = {"relation": "ordering", "subject": "last", "baselines": ["avg"],
           "quantities": [{"name": "last"}, {"name": "avg"}], "direction": "lower"}  # fmt: skip


def test_a_third_team_cannot_flip_a_check_two_honest_teams_confirmed(
    theory: ChallengeContext,
) -> None:
    """The flip attack of a hostile participant: two honest confirmed teams agree on "the
    averaged iterate has a lower gap than the last"; a third confirmed team proposes the
    reverse. Before the fix the reverse had the same form, "matched", and was installed as the
    claim's check (every honest verdict turned falsified)."""
    register(theory, "eve")
    set_team(theory, "eve", "green")
    with theory.store.session() as s:
        ana, bo, eve = (_person(theory, s, h) for h in ("ana", "bo", "eve"))
        propose_check(s, theory.challenge_id, ana, "t1/C2", ORDERING)
        honest = propose_check(s, theory.challenge_id, bo, "t1/C2", ORDERING)
        assert honest.status == "confirmed"
        claim, _ = get_claim(s, theory.challenge_id, "t1/C2")
        assert claim.check is not None and claim.check["subject"] == "avg"
        installed = dict(claim.check)
        flip = propose_check(s, theory.challenge_id, eve, "t1/C2", FLIPPED)
        assert flip.status == "stored" and not flip.used
        assert claim.check == installed  # still "avg lower than last"
        check, provisional = effective_check(claim, None)
        assert check is not None and check.subject == "avg" and not provisional


def test_agreement_never_installs_a_newcomers_text_over_a_confirmed_check(
    theory: ChallengeContext,
) -> None:
    """A newcomer whose proposal is equivalent to a confirmed check (one quantity, renamed: the
    metric key honest logbooks logged no longer binds) was installed as the claim's check."""
    register(theory, "eve")
    set_team(theory, "eve", "green")
    with theory.store.session() as s:
        ana, bo, eve = (_person(theory, s, h) for h in ("ana", "bo", "eve"))
        propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        assert propose_check(s, theory.challenge_id, bo, "t1/C1", GAP).status == "confirmed"
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        installed = dict(claim.check or {})
        renamed = {**GAP, "subject": "zzz", "quantities": [{"name": "zzz"}]}
        agrees = propose_check(s, theory.challenge_id, eve, "t1/C1", renamed)
        assert agrees.status == "confirmed"  # it agrees with the claim's check ...
        assert claim.check == installed  # ... which keeps its text, its keys and its revision
        assert (claim.check or {})["subject"] == "gap"


def test_an_accepted_proposal_says_who_accepted_it_and_agreement_never_replaces_it(
    theory: ChallengeContext,
) -> None:
    register(theory, "eve")
    set_team(theory, "eve", "green")
    with theory.store.session() as s:
        ana, bo, eve = (_person(theory, s, h) for h in ("ana", "bo", "eve"))
        outcome = propose_check(s, theory.challenge_id, ana, "t1/C2", ORDERING)
        assert outcome.proposal_id is not None
        accept_proposal(s, theory.challenge_id, outcome.proposal_id, editor="org")
        claim, _ = get_claim(s, theory.challenge_id, "t1/C2")
        assert claim.check is not None and claim.check["origin"] == "organizer"
        assert "accepted by organizer org" in claim.check["note"]
        accepted = dict(claim.check)
        # two colluding confirmed teams agree on the reverse: the accepted check stays
        propose_check(s, theory.challenge_id, bo, "t1/C2", FLIPPED)
        both = propose_check(s, theory.challenge_id, eve, "t1/C2", FLIPPED)
        assert both.status == "stored"
        assert claim.check == accepted


def test_an_equivalent_proposal_of_another_confirmed_team_confirms_it(
    theory: ChallengeContext,
) -> None:
    with theory.store.session() as s:
        ana, cy, solo, bo = (_person(theory, s, h) for h in ("ana", "cy", "solo", "bo"))
        first = propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        same_team = propose_check(s, theory.challenge_id, cy, "t1/C1", GAP)
        no_team = propose_check(s, theory.challenge_id, solo, "t1/C1", GAP)
        assert first.status == same_team.status == no_team.status == "stored"
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        assert claim.check is None  # nobody independent agreed yet
        renamed = {**GAP, "subject": "g", "quantities": [{"name": "g"}]}
        other = propose_check(s, theory.challenge_id, bo, "t1/C1", renamed)
        assert other.status == "confirmed"
        assert claim.check is not None and claim.check["origin"] == "participant"
        statuses = {r.participant: r.status for r in list_proposals(s, theory.challenge_id)}
        assert statuses["bo"] == "confirmed" and statuses["ana"] == "confirmed"
        edit = s.scalars(select(ClaimEdit).where(ClaimEdit.claim_id == claim.id,
                                                 ClaimEdit.field == "check")).all()[-1]  # fmt: skip
        assert "confirmed (equivalent:" in edit.reason and edit.editor == "bo"
        # the confirmed check now judges everyone's logbook, and counts
        own = open_proposals(s, [claim.id], [solo.id])
        check, provisional = effective_check(claim, own.get((claim.id, solo.id)))
        # the EARLIER proposal's text is installed (the keys logbooks were written against),
        # never the newcomer's (this once asserted the newcomer's "g")
        assert check is not None and check.subject == "gap" and not provisional
        assert "confirmed by agreement" in check.note


def test_an_organizer_accepts_in_one_step_and_an_organizer_check_wins_for_judging(
    theory: ChallengeContext,
) -> None:
    with theory.store.session() as s:
        ana = _person(theory, s, "ana")
        outcome = propose_check(s, theory.challenge_id, ana, "t1/C1", GAP)
        claim, _ = get_claim(s, theory.challenge_id, "t1/C1")
        own = open_proposals(s, [claim.id], [ana.id]).get((claim.id, ana.id))
        check, provisional = effective_check(claim, own)
        assert check is not None and provisional  # ana's own, unconfirmed
        digest = check_digest(check, provisional)
        assert outcome.proposal_id is not None
        view = accept_proposal(s, theory.challenge_id, outcome.proposal_id, editor="org")
        assert view.status == "confirmed" and view.confirmed_by == "organizer:org"
        assert claim.check is not None and claim.check["origin"] == "organizer"
        assert claim.check["note"] == f"accepted by organizer org (proposal {view.id} of ana)"
        own = open_proposals(s, [claim.id], [ana.id]).get((claim.id, ana.id))
        check, provisional = effective_check(claim, own)
        assert check is not None and not provisional
        assert check_digest(check, provisional) != digest  # the verdict under it is stale
        with pytest.raises(NotFoundError):
            accept_proposal(s, theory.challenge_id, 999, editor="org")
        # an organizer's check on claim 2 is used for everyone, whatever they propose
        organizer = Check.from_json({
            "relation": "ordering", "subject": "avg", "baselines": ["last"], "direction": "lower",
            "quantities": [{"name": "avg"}, {"name": "last"}],
        })  # fmt: skip
        set_check(s, theory.challenge_id, "t1/C2", organizer, editor="org", reason="curated")
        mine = {**organizer.model_dump(mode="json"), "direction": "higher"}
        used = propose_check(s, theory.challenge_id, ana, "t1/C2", mine)
        assert used.status == "stored" and not used.used
        claim2, _ = get_claim(s, theory.challenge_id, "t1/C2")
        own = open_proposals(s, [claim2.id], [ana.id]).get((claim2.id, ana.id))
        check, provisional = effective_check(claim2, own)
        assert check is not None and check.origin == "organizer" and not provisional


def test_names_in_another_word_order_agree_and_roles_still_count() -> None:
    """Two drafters that name a quantity with the same words in another order agree; a
    swapped subject and baseline never does (the flip attack)."""
    from openrepro.claims.proposals import equivalence_form

    def ordering(subject: str, baseline: str) -> Check:
        return Check.model_validate({
            "relation": "ordering", "subject": subject, "baselines": [baseline],
            "quantities": [{"name": subject}, {"name": baseline}], "comparator": "lt",
        })  # fmt: skip

    a = ordering("accuracy_on_cub", "baseline_accuracy_cub")
    b = ordering("cub_accuracy", "cub_baseline_accuracy")
    assert equivalence_form(a) == equivalence_form(b)
    assert equivalence_form(a) != equivalence_form(
        ordering("baseline_accuracy_cub", "cub_accuracy")
    )
    assert equivalence_form(a) != equivalence_form(
        ordering("accuracy_without_cub", "cub_baseline_accuracy")
    )
