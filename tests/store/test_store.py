"""The store: migrations, dialect setup, constraints and the verdict edit history."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, inspect, select, text

from openrepro.challenge import ChallengeContext
from openrepro.errors import ConfigError, StoreError
from openrepro.store import (
    Base,
    Claim,
    Logbook,
    Paper,
    Participant,
    Store,
    Verdict,
    VerdictEdit,
    head_revision,
    normalize_url,
)
from openrepro.store.db import shipped_head
from openrepro.store.search_schema import include_object


def test_migrations_match_models(database_url: str) -> None:
    store = Store(database_url)
    store.upgrade()
    store.upgrade()  # idempotent
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_object": include_object})
        diff = compare_metadata(context, Base.metadata)
    store.dispose()
    assert diff == [], f"models and migrations disagree: {diff}"


def test_the_shipped_head_read_from_the_files_is_alembics() -> None:
    """A migration written so that its `revision` lines cannot be read plainly fails here."""
    assert shipped_head() is not None
    assert shipped_head() == head_revision()


def test_opening_a_store_at_head_does_not_load_alembic(database_url: str) -> None:
    """Every command opens the store; one already at the head pays no Alembic import, and one
    that is not is upgraded as before (test_upgrade_keeps_existing_claims)."""
    Store(database_url).upgrade()
    probe = ("import sys; from openrepro.store import Store; "
             f"Store({database_url!r}).upgrade(); print('alembic' in sys.modules)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.strip() == "False"


def test_check_constraints_match_models(database_url: str) -> None:
    # alembic's comparison ignores CHECK constraints: compare each model's named constraints
    # with the migrated database's, so a vocabulary that grows in code (a new provenance level)
    # cannot drift from the constraint the migrations created
    store = Store(database_url)
    store.upgrade()
    found = inspect(store.engine)
    drift = []
    for table in Base.metadata.sorted_tables:
        if table.name not in found.get_table_names():
            continue
        stored = {c["name"]: c["sqltext"] for c in found.get_check_constraints(table.name)}
        for constraint in table.constraints:
            if isinstance(constraint, CheckConstraint) and isinstance(constraint.name, str):
                model = set(re.findall(r"'([^']*)'", str(constraint.sqltext)))
                name = next((n for n in stored if n and n.endswith(constraint.name)), None)
                if name is not None and set(re.findall(r"'([^']*)'", stored[name])) != model:
                    drift.append((table.name, constraint.name, stored[name]))
    store.dispose()
    assert drift == []


def test_all_tables_created(database_url: str) -> None:
    store = Store(database_url)
    store.upgrade()
    tables = set(inspect(store.engine).get_table_names())
    store.dispose()
    expected = {
        "challenges", "papers", "claims", "participants", "logbooks", "verdicts",
        "verdict_edits", "jobs", "alembic_version",
    }  # fmt: skip
    assert expected <= tables


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'x.db'}")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    store.dispose()


def test_plain_postgres_url_uses_psycopg3() -> None:
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_unsupported_database_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unsupported database"):
        Store("mysql://u@h/db")


def test_unreachable_postgres_is_a_store_error() -> None:
    store = Store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(StoreError, match="cannot open database"):
        store.upgrade()


def _paper_with_claim(ctx: ChallengeContext) -> tuple[int, int, int]:
    with ctx.store.session() as s:
        paper = Paper(challenge_id=ctx.challenge_id, venue_id="p1", title="T")
        s.add(paper)
        s.flush()
        claim = Claim(paper_id=paper.id, key="c1", text="x", kind="result")
        person = Participant(challenge_id=ctx.challenge_id, handle="ada")
        s.add_all([claim, person])
        s.flush()
        book = Logbook(paper_id=paper.id, participant_id=person.id, revision="r1")
        s.add(book)
        s.flush()
        return claim.id, book.id, paper.id


def test_verdict_edit_history_keeps_old_value(challenge: ChallengeContext) -> None:
    claim_id, book_id, _ = _paper_with_claim(challenge)
    with challenge.store.session() as s:
        verdict = Verdict(
            logbook_id=book_id, claim_id=claim_id, verdict="falsified", judge_config="j1"
        )
        s.add(verdict)
        s.flush()
        verdict.edits.append(
            VerdictEdit(
                old_value="falsified", new_value="verified", editor="org", reason="units misread"
            )
        )
        verdict.verdict = "verified"
    with challenge.store.session() as s:
        stored = s.scalar(select(Verdict))
        assert stored is not None
        assert stored.verdict == "verified"
        assert [(e.old_value, e.new_value, e.editor, e.reason) for e in stored.edits] == [
            ("falsified", "verified", "org", "units misread")
        ]
        assert stored.edits[0].created_at is not None


def test_unknown_verdict_is_rejected_and_nothing_written(challenge: ChallengeContext) -> None:
    claim_id, book_id, _ = _paper_with_claim(challenge)
    with pytest.raises(StoreError), challenge.store.session() as s:
        s.add(Verdict(logbook_id=book_id, claim_id=claim_id, verdict="probably", judge_config="j"))
    with challenge.store.session() as s:
        assert s.scalar(select(Verdict)) is None


def test_deleting_a_paper_cascades_to_claims(challenge: ChallengeContext) -> None:
    _, _, paper_id = _paper_with_claim(challenge)
    with challenge.store.session() as s:
        paper = s.get(Paper, paper_id)
        assert paper is not None
        s.delete(paper)
    with challenge.store.session() as s:
        assert s.scalar(select(Claim)) is None


def test_upgrade_keeps_existing_claims(database_url: str) -> None:
    """A store created at 0001 with data upgrades to head without losing a row."""
    store = Store(database_url)
    store.upgrade("0001")
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO challenges (name, venue, title, rules, created_at) "
                          "VALUES ('c', '', '', '{}', CURRENT_TIMESTAMP)"))  # fmt: skip
        conn.execute(text("INSERT INTO papers (challenge_id, venue_id, title, authors, source, "
                          "created_at, updated_at) VALUES (1, 'p', 'T', '[]', '', "
                          "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))  # fmt: skip
        conn.execute(text("INSERT INTO claims (paper_id, key, text, kind, quotes, reported, "
                          "scale, created_at) VALUES (1, 'C1', 'x', 'result', '[]', '[]', '{}', "
                          "CURRENT_TIMESTAMP)"))  # fmt: skip
    store.upgrade()
    with store.session() as s:
        claim = s.scalar(select(Claim))
        assert claim is not None
        assert (claim.key, claim.status, claim.origin, claim.provenance) == (
            "C1",
            "active",
            "llm",
            {},
        )
    store.dispose()
