"""Writes reach the board's pages through the store's change journal only: after a participant
renames, an organizer accepts a proposal and a reviewer answers, each page that shows them
changes, on the live board and in the static site, and a page that does not show them is not
rebuilt. The writes are made by the project's own services (register, accept, the review
server), none of which knows about the board."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from board_fixtures import wait_built
from fastapi.testclient import TestClient
from review_logbook import image_logbook
from sqlalchemy import select

from openrepro.board import build_board_site, create_app
from openrepro.board.cache import PageCache
from openrepro.board.catalogue import live_url, static_file
from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.proposals import accept_proposal, propose_check
from openrepro.claims.service import set_check
from openrepro.identity import register, set_team
from openrepro.papers import PaperRecord, import_papers
from openrepro.review import StoredAnswerLog, create_stored_task, load_task
from openrepro.review.server import create_app as review_app
from openrepro.store import Participant
from openrepro.store.journal import ChangeRow, read_changes

QUOTE = "the images generated under 2-bit quantization stay visually usable"
ABSTRACT = "After T steps the optimality gap of the averaged iterate is at most 0.01 on average."
GAP = {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
       "comparator": "le", "constant": {"value": 0.01, "text": "0.01"}}  # fmt: skip
CHECK_S = 0.05


def _event(ctx: ChallengeContext, tmp: Path) -> tuple[int, int, Path]:
    """Two papers: ``p1`` (a perceptual claim, alice's logbook and a review task on it) and
    ``t1`` (a claim without a check, ana's proposed check). Returns alice's logbook, ana's
    proposal and the review task's folder."""
    import_papers(ctx.store, ctx.challenge_id, [
        PaperRecord(venue_id="p1", title="Tiny quantized diffusion",
                    abstract=f"We show that {QUOTE}."),
        PaperRecord(venue_id="t1", title="Averaging", abstract=ABSTRACT),
    ], source="test")  # fmt: skip
    with ctx.store.session() as s:
        add_claim(
            s,
            ctx.challenge_id,
            "p1",
            text="2-bit images stay usable.",
            kind="qualitative",
            quotes=[QUOTE],
            editor="org",
            drafting="rules",
        )
        add_claim(
            s,
            ctx.challenge_id,
            "t1",
            text="The gap is at most 0.01.",
            kind="theory",
            quotes=["the optimality gap of the averaged iterate is at most 0.01"],
            editor="org",
            drafting="rules",
        )
        set_check(s, ctx.challenge_id, "t1/C1", None, editor="org", reason="none")
    register(ctx, "org", role="organizer")
    register(ctx, "ana", name="Ana Lovelace")
    logbook = image_logbook(ctx, tmp, "alice", paper="p1", claim="p1/C1", count=6, dark=2)
    with ctx.store.session() as s:
        ana = s.scalar(select(Participant).where(Participant.handle == "ana"))
        assert ana is not None
        proposal = propose_check(s, ctx.challenge_id, ana, "t1/C1", GAP).proposal_id
    folder = tmp / "task"
    create_stored_task(ctx, "p1/C1", logbook, folder, pattern="outputs/int2.npy",
                       reviewers=["org"], seed=5, repeat_share=0.0)  # fmt: skip
    return logbook, proposal, folder


def _answer_one(ctx: ChallengeContext, folder: Path, handle: str) -> None:
    """``handle`` answers one slot of the review task through the review server."""
    client = TestClient(review_app(folder, handle, StoredAnswerLog(ctx, load_task(folder),
                                                                   handle)),
                        base_url="http://127.0.0.1:8765")  # fmt: skip
    page = client.get("/").text
    slot = re.search(r'name="slot" value="(\d+)"', page)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert slot and csrf
    sent = client.post(
        "/answer",
        data={"slot": slot.group(1), "choice": "usable", "csrf": csrf.group(1)},
        follow_redirects=False,
    )
    assert sent.status_code == 303


def _list_pages(site: Path) -> int:
    """How many of the static site's pages are list pages (tagged ``aggregate`` only)."""
    pages = json.loads((site / ".openrepro-site.json").read_text())["pages"]
    return sum(1 for tags in pages.values() if tags == ["aggregate"])


def test_each_write_changes_the_pages_that_show_it_and_no_other(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    logbook, proposal, folder = _event(challenge, tmp_path)
    pages: dict[str, tuple[str, str | int]] = {
        "paper p1": ("paper", "p1"), "paper t1": ("paper", "t1"),
        "alice": ("participant", "alice"), "ana": ("participant", "ana"),
        "org": ("participant", "org"), "alice's logbook": ("logbook", logbook),
    }  # fmt: skip
    app = create_app(challenge, cache_seconds=CHECK_S, aggregate_seconds=0, warm=True)
    cache: PageCache = app.state.cache
    board = TestClient(app)
    site = tmp_path / "site"
    build_board_site(challenge, site)

    def key(name: str) -> str:
        kind, record = pages[name]
        return f"{kind}:{record}"

    def step(write: Callable[[], object], shown: set[str]) -> dict[str, str]:
        """Apply ``write``: the pages named in ``shown`` are dropped, rendered again in the
        background before anyone asks, and changed; every other page is kept as it was
        built. The static site renders those pages again (and its list pages), no other."""
        wait_built(cache, 60, settle=0.2)
        before = {n: board.get(live_url(*pages[n])).text for n in pages}
        built = {n: cache.built_at(key(n)) for n in pages}
        assert all(b is not None for b in built.values())
        files = {n: (site / static_file(*pages[n])).read_text() for n in pages}
        write()
        cache.check()  # what the next request does once cache_seconds have passed
        wait_built(cache, 60, settle=0.2)
        for name in pages:
            again = cache.built_at(key(name))
            if name in shown:
                assert again is not None and again != built[name], f"{name} was not rebuilt"
            else:
                assert again == built[name], f"{name} does not show the change but was rebuilt"
        now = {n: board.get(live_url(*pages[n])).text for n in pages}
        assert {n for n in pages if now[n] != before[n]} == shown
        report = build_board_site(challenge, site)
        assert report.rendered == _list_pages(site) + len(shown)
        changed = {n for n in pages if (site / static_file(*pages[n])).read_text() != files[n]}
        assert changed == shown
        return now

    # ana renames herself: only her own page shows her display name
    after = step(lambda: register(challenge, "ana", name="Ada Lovelace"), {"ana"})
    assert "Ada Lovelace" in after["ana"] and "Ana Lovelace" not in after["ana"]

    # an organizer accepts ana's proposal: t1's page shows the new check and the proposal's
    # state; no other page shows either
    def accept() -> None:
        with challenge.store.session() as s:
            accept_proposal(s, challenge.challenge_id, proposal, editor="org")

    after = step(accept, {"paper t1"})
    assert "organizer:org" in after["paper t1"] and "(organizer)" in after["paper t1"]

    # the organizer answers one review slot: alice's logbook page shows the review panel and
    # its answers; p1's page shows the claim's verdicts, which no answer changes by itself
    after = step(lambda: _answer_one(challenge, folder, "org"), {"alice's logbook"})
    assert 'id="human-review"' in after["alice's logbook"]

    # ana's team is confirmed: her page, and t1's page where her proposal names her team
    after = step(lambda: set_team(challenge, "ana", "t9"), {"ana", "paper t1"})
    assert "(t9)" in after["paper t1"]
    cache.close()


def test_the_journal_marks_commits_in_order_and_nothing_for_a_read(
    challenge: ChallengeContext,
) -> None:
    """A read writes nothing to the journal; a write marks its records once, at commit; a
    rolled-back write marks nothing."""
    with challenge.store.session() as s:
        head = read_changes(s, None).head
    register(challenge, "zoe", name="Zoe")
    with challenge.store.session() as s:
        change = read_changes(s, head)
        zoe = s.scalar(select(Participant).where(Participant.handle == "zoe"))
        assert zoe is not None
    assert change.tags == {f"participant:{zoe.id}", "name:zoe"}
    with challenge.store.session() as s:
        s.scalars(select(Participant)).all()
    with pytest.raises(RuntimeError), challenge.store.session() as s:
        row = s.get(Participant, zoe.id)
        assert row is not None
        row.team = "t9"
        s.flush()
        raise RuntimeError("rolled back")
    with challenge.store.session() as s:
        assert read_changes(s, change.head).tags == set()
        assert s.scalar(select(ChangeRow.id).order_by(ChangeRow.id.desc()).limit(1)) == change.head


def test_a_transaction_that_commits_later_is_read_later(challenge: ChallengeContext) -> None:
    """Marks are written at commit, so a transaction that flushed its write before another
    committed, and committed after a reader read the journal, is still read next time (its
    rows come after what the reader saw). PostgreSQL only: SQLite runs one writer at a time."""
    if challenge.store.dialect == "sqlite":
        pytest.skip("SQLite runs one writer at a time: no interleaving to test")
    register(challenge, "slow", name="Slow")
    with challenge.store.session() as s:
        head = read_changes(s, None).head
    with challenge.store.session() as slow:
        row = slow.scalar(select(Participant).where(Participant.handle == "slow"))
        assert row is not None
        row.team = "late"
        slow.flush()  # written, not committed
        register(challenge, "quick", name="Quick")  # another transaction commits meanwhile
        with challenge.store.session() as reader:
            seen = read_changes(reader, head)
        assert "name:quick" in seen.tags and "name:slow" not in seen.tags
    with challenge.store.session() as reader:
        later = read_changes(reader, seen.head)
    assert "name:slow" in later.tags


def test_what_each_write_marks(challenge: ChallengeContext) -> None:
    """A verdict marks its claim's paper (not its participant); a bulk statement over a table
    of records cannot be narrowed; a read and a derived-outcome refresh mark nothing."""
    from outcome_store import build_outcome_store
    from sqlalchemy import update

    from openrepro.outcomes import paper_outcomes
    from openrepro.store import Claim, Logbook, Paper, Verdict

    build_outcome_store(challenge)
    with challenge.store.session() as s:
        head = read_changes(s, None).head
        paper = s.scalar(select(Paper).where(Paper.venue_id == "P1-full"))
        assert paper is not None
        claim = s.scalar(select(Claim).where(Claim.paper_id == paper.id))
        book = s.scalar(select(Logbook).where(Logbook.paper_id == paper.id))
        assert claim is not None and book is not None
        s.add(
            Verdict(
                logbook_id=book.id,
                claim_id=claim.id,
                verdict="falsified",
                rationale="again",
                judge_config="cfg-again",
                provenance="self-recorded",
            )
        )
    paper_outcomes(challenge, public=True)  # refreshes the derived rows of the marked paper
    with challenge.store.session() as s:
        change = read_changes(s, head)
    assert change.tags == {f"paper:{paper.id}"}
    with challenge.store.session() as s:
        s.execute(update(Paper).where(Paper.id == paper.id).values(title="Renamed"))
    with challenge.store.session() as s:
        assert read_changes(s, change.head).tags == {"everything"}
