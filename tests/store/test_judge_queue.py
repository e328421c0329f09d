"""The judge queue's store operations (openrepro.store.judge_queue), on SQLite and PostgreSQL:
one item per key, replacement of an older revision's items, priority, round robin by
participant, leases, retries with backoff, failures with their reason, the per-participant cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from judge_queue_data import add_logbooks, add_papers, add_people, check_json
from sqlalchemy import func, select, update

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check
from openrepro.claims.service import set_check
from openrepro.errors import QueueFullError
from openrepro.store import Claim
from openrepro.store.judge_queue import (
    awaiting_rejudging,
    check_capacity,
    claim_next,
    claim_states,
    enqueue,
    fail,
    finish,
    queue_position,
    queue_stats,
    register_judge_version,
)
from openrepro.store.tables_queue import JudgeQueueItem


def _items(ctx: ChallengeContext) -> list[JudgeQueueItem]:
    with ctx.store.session() as session:
        return list(session.scalars(select(JudgeQueueItem).order_by(JudgeQueueItem.id)))


def test_one_item_per_key_and_a_new_one_per_new_check(challenge: ChallengeContext) -> None:
    add_papers(challenge, 1, 2)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        assert enqueue(s, [book], reason="submission") == 2
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")  # the same keys again: nothing new
    assert len(_items(challenge)) == 2
    with challenge.store.session() as s:  # an organizer sets another check on C1
        check = Check.model_validate(check_json("p0001/C1", name="top1"))
        set_check(s, challenge.challenge_id, "p0001/C1", check, editor="org", reason="top-1")
        c1 = s.scalar(select(Claim.id).where(Claim.key == "C1"))
        assert c1 is not None
        assert awaiting_rejudging(s, [c1]) == {c1}
    items = _items(challenge)
    assert [(i.reason, i.priority) for i in items] == [("submission", 0)] * 2 + [("check", 1)]
    assert items[2].claim_id == c1 and items[2].inputs != items[0].inputs


def test_a_new_revision_replaces_the_queued_items_of_the_older(
    challenge: ChallengeContext,
) -> None:
    add_papers(challenge, 2, 1)
    add_people(challenge, ["ann"])
    old, other = add_logbooks(challenge, [("ann", "p0001"), ("ann", "p0002")])
    with challenge.store.session() as s:
        enqueue(s, [old, other], reason="submission")
    (new,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [new], reason="submission")
    assert {(i.logbook_id, i.status) for i in _items(challenge)} == {
        (old, "replaced"), (other, "queued"), (new, "queued")
    }  # fmt: skip
    with challenge.store.session() as s:
        assert queue_position(s, other) == 1 and queue_position(s, new) == 2
        assert queue_position(s, old) is None


def test_round_robin_by_participant_within_a_priority(challenge: ChallengeContext) -> None:
    add_papers(challenge, 4, 1)
    add_people(challenge, ["flood", "one", "two"])
    flood = add_logbooks(challenge, [("flood", f"p000{n}") for n in (1, 2, 3, 4)])
    (one,) = add_logbooks(challenge, [("one", "p0001")])
    (two,) = add_logbooks(challenge, [("two", "p0002")])
    with challenge.store.session() as s:
        enqueue(s, flood, reason="submission")
        enqueue(s, [one], reason="submission")
        enqueue(s, [two], reason="judge-version")  # background: after every submission
    order = []
    for _ in range(6):
        with challenge.store.session() as s:
            got = claim_next(s, "w", 60)
            assert got is not None
            finish(s, got.item_ids, "w")
        order.append(got.logbook_id)
    with challenge.store.session() as s:
        assert claim_next(s, "w", 60) is None
    assert order == [flood[0], one, flood[1], flood[2], flood[3], two]


def test_a_logbook_is_judged_by_one_worker_at_a_time(challenge: ChallengeContext) -> None:
    add_papers(challenge, 1, 2)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")
        first = claim_next(s, "a", 60)
    assert first is not None and len(first.item_ids) == 2
    with challenge.store.session() as s:  # a new item of that logbook while it is judged
        c2 = s.scalar(select(Claim.id).where(Claim.key == "C2"))
        enqueue(s, [book], reason="review", claim_ids=[c2], suffix="review:1")
        assert claim_next(s, "b", 60) is None
        finish(s, first.item_ids, "a")
    with challenge.store.session() as s:
        second = claim_next(s, "b", 60)
    assert second is not None and second.claim_ids == [c2]


def test_an_expired_lease_returns_the_items_to_the_queue(challenge: ChallengeContext) -> None:
    add_papers(challenge, 1, 1)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")
        dead = claim_next(s, "dead", 60)
        assert dead is not None
        assert claim_next(s, "next", 60) is None  # held
        s.execute(update(JudgeQueueItem).values(
            lease_until=datetime.now(UTC) - timedelta(seconds=1)))  # fmt: skip
    with challenge.store.session() as s:
        taken = claim_next(s, "next", 60)
        assert taken is not None and taken.attempts == 2
        finish(s, dead.item_ids, "dead")  # the dead worker's late word changes nothing
        assert [i.status for i in _items(challenge)] == ["judging"]
        finish(s, taken.item_ids, "next")
    (item,) = _items(challenge)
    assert (item.status, item.worker, item.attempts) == ("done", "next", 2)


def test_failures_are_retried_with_backoff_then_failed(challenge: ChallengeContext) -> None:
    add_papers(challenge, 1, 1)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")
        got = claim_next(s, "w", 60)
        assert got is not None
        fail(s, got.item_ids, "w", "LLMError: boom", max_attempts=2, backoff_s=3600)
    (item,) = _items(challenge)
    assert item.status == "queued" and item.error == "LLMError: boom"
    with challenge.store.session() as s:
        assert claim_next(s, "w", 60) is None  # waiting out its backoff
        s.execute(update(JudgeQueueItem).values(available_at=datetime.now(UTC)))
    with challenge.store.session() as s:
        got = claim_next(s, "w", 60)
        assert got is not None
        fail(s, got.item_ids, "w", "LLMError: boom again", max_attempts=2, backoff_s=3600)
    with challenge.store.session() as s:
        assert claim_next(s, "w", 60) is None
        stats = queue_stats(s, challenge.challenge_id)
        states = claim_states(s, [book])
    assert (stats.failed, stats.queued) == (1, 0)
    assert stats.failures[0].error == "LLMError: boom again" and stats.failures[0].attempts == 2
    assert list(states.values()) == [("failed", "LLMError: boom again")]


def test_the_cap_per_participant_is_a_429(challenge: ChallengeContext) -> None:
    add_papers(challenge, 1, 3)
    people = add_people(challenge, ["ann", "bob"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        enqueue(s, [book], reason="submission")
        check_capacity(s, people["ann"], 4)
        check_capacity(s, people["bob"], 3)
        with pytest.raises(QueueFullError, match="limit is 3") as caught:
            check_capacity(s, people["ann"], 3)
    assert caught.value.http_status == 429


def test_a_new_judge_version_queues_everything_in_the_background(
    challenge: ChallengeContext,
) -> None:
    add_papers(challenge, 1, 2)
    add_people(challenge, ["ann"])
    (book,) = add_logbooks(challenge, [("ann", "p0001")])
    with challenge.store.session() as s:
        assert register_judge_version(s, "v1")
        assert not register_judge_version(s, "v1")
        enqueue(s, [book], reason="judge-version")
        enqueue(s, [book], reason="judge-version")
        assert register_judge_version(s, "v2")
        enqueue(s, [book], reason="judge-version")
        rows = s.execute(
            select(JudgeQueueItem.judge_version, func.count()).group_by(
                JudgeQueueItem.judge_version
            )
        ).all()
    assert sorted(rows) == [("v1", 2), ("v2", 2)]
    assert {i.priority for i in _items(challenge)} == {9}
