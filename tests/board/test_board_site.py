"""`openrepro site build`: deterministic, incremental, self-contained static pages."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from board_fixtures import hostile_bundle
from outcome_store import build_outcome_store

from openrepro.board import build_board_site
from openrepro.challenge import ChallengeContext
from openrepro.identity import set_team
from openrepro.logbooks.submit import submit_logbook
from openrepro.outcomes import override_verdict, paper_outcomes
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_store_same_bytes_and_incremental(challenge: ChallengeContext, tmp_path: Path) -> None:
    build_outcome_store(challenge)
    first = build_board_site(challenge, tmp_path / "a")
    second = build_board_site(challenge, tmp_path / "b")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert first.pages == second.pages > 30
    again = build_board_site(challenge, tmp_path / "a")
    assert (again.rendered, again.written, again.pages) == (0, 0, first.pages)
    # an unchanged store is one journal read and a file check; a file gone is noticed
    index = tmp_path / "a" / "index.html"
    index.unlink()
    mended = build_board_site(challenge, tmp_path / "a")
    assert (mended.rendered, mended.written) == (1, 1) and index.is_file()
    forced = build_board_site(challenge, tmp_path / "a", force=True)
    assert (forced.rendered, forced.written) == (first.pages, 0)  # every page, same bytes
    # the verdict window closes with time, not with a write: it is part of the state
    challenge.settings.verdict_window_hours = 24 * 365 * 100
    hidden = build_board_site(challenge, tmp_path / "a")
    assert hidden.rendered > 0
    challenge.settings.verdict_window_hours = 0
    assert build_board_site(challenge, tmp_path / "a").rendered == hidden.rendered
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")

    from openrepro.board.data import verdict_cells

    cell = next(c for c in verdict_cells(challenge) if c.paper == "P3-mixed")
    override_verdict(challenge, cell.verdict_id, "inconclusive", reason="test")
    changed = build_board_site(challenge, tmp_path / "a")
    assert 0 < changed.rendered < first.pages / 2
    assert "P3-mixed" in (tmp_path / "a" / "papers" / "p" / "P3-mixed.html").read_text()
    build_board_site(challenge, tmp_path / "c")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "c")  # incremental == from scratch


def test_links_resolve_and_no_script(challenge: ChallengeContext, tmp_path: Path) -> None:
    build_outcome_store(challenge)
    records = [PaperRecord(venue_id="p1", title="<script>alert(1)</script>")]
    import_papers(challenge.store, challenge.challenge_id, records, source="test")
    submit_logbook(challenge, hostile_bundle(tmp_path / "b"), handle="mallory")
    out = tmp_path / "site"
    report = build_board_site(challenge, out)
    assert report.files == 1  # the bundle's figure, copied by hash
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script" not in text, page
        for link in re.findall(r'(?:href|src)="([^"#?]+)', text):
            if link.startswith(("http:", "https:", "mailto:", "data:")):
                continue
            assert (page.parent / link).resolve().is_file(), f"{page}: broken link {link}"


def test_removed_pages_are_deleted(challenge: ChallengeContext, tmp_path: Path) -> None:
    build_outcome_store(challenge)
    out = tmp_path / "site"
    build_board_site(challenge, out)
    stale = out / "papers" / "p" / "gone.html"
    manifest = (out / ".openrepro-site.json").read_text()
    (out / ".openrepro-site.json").write_text(
        manifest.replace('"pages": {', '"pages": {\n"papers/p/gone.html": "x",')
    )
    stale.write_text("old")
    report = build_board_site(challenge, out, force=True)  # the store did not change: force
    assert report.removed == 1 and not stale.exists()


def test_a_team_change_rebuilds_what_it_changes(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    """alice (verified) and bob (falsified) disagree on P5-contested; put in one team, they are
    no longer independent: the rebuild renders the pages that changed and shows it."""
    build_outcome_store(challenge)
    first = build_board_site(challenge, tmp_path / "site")
    page = tmp_path / "site" / "papers" / "p" / "P5-contested.html"
    assert 'class="v-contested"' in page.read_text()
    set_team(challenge, "alice", "t9")
    set_team(challenge, "bob", "t9")
    [after] = [o for o in paper_outcomes(challenge, public=True) if o.paper == "P5-contested"]
    assert not after.contested_any
    again = build_board_site(challenge, tmp_path / "site")
    assert again.pages == first.pages and again.rendered > 0
    shown = page.read_text()
    assert f'<span id="outcome">{after.status}</span>' in shown
    assert 'class="v-contested"' not in shown
    bob = (tmp_path / "site" / "participants" / "bob.html").read_text()
    assert "t9" in bob
