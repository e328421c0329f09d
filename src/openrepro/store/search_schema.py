"""Full-text search objects that SQLAlchemy models cannot express.

SQLite: an external-content FTS5 table ``papers_fts`` kept in step with ``papers`` by triggers.
PostgreSQL: a stored generated ``tsvector`` column ``papers.search_vector`` with a GIN index.
Migrations call :func:`create_paper_search` / :func:`drop_paper_search`.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

__all__ = ["create_paper_search", "drop_paper_search", "include_object"]

_SQLITE_CREATE = [
    """CREATE VIRTUAL TABLE papers_fts USING fts5(
        title, abstract, full_text,
        content='papers', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER papers_fts_ai AFTER INSERT ON papers BEGIN
        INSERT INTO papers_fts(rowid, title, abstract, full_text)
        VALUES (new.id, new.title, new.abstract, new.full_text);
    END""",
    """CREATE TRIGGER papers_fts_ad AFTER DELETE ON papers BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, abstract, full_text)
        VALUES ('delete', old.id, old.title, old.abstract, old.full_text);
    END""",
    """CREATE TRIGGER papers_fts_au AFTER UPDATE OF title, abstract, full_text ON papers BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, abstract, full_text)
        VALUES ('delete', old.id, old.title, old.abstract, old.full_text);
        INSERT INTO papers_fts(rowid, title, abstract, full_text)
        VALUES (new.id, new.title, new.abstract, new.full_text);
    END""",
]
_SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS papers_fts_au",
    "DROP TRIGGER IF EXISTS papers_fts_ad",
    "DROP TRIGGER IF EXISTS papers_fts_ai",
    "DROP TABLE IF EXISTS papers_fts",
]
# Weights: title A, abstract B, full text D. The full text is capped so that one huge paper
# cannot exceed PostgreSQL's 1 MB tsvector limit.
_PG_CREATE = [
    """ALTER TABLE papers ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(abstract, '')), 'B') ||
        setweight(to_tsvector('english', left(coalesce(full_text, ''), 200000)), 'D')
    ) STORED""",
    "CREATE INDEX ix_papers_search_vector ON papers USING gin (search_vector)",
]
_PG_DROP = [
    "DROP INDEX IF EXISTS ix_papers_search_vector",
    "ALTER TABLE papers DROP COLUMN IF EXISTS search_vector",
]


def _run(conn: Connection, statements: list[str]) -> None:
    for statement in statements:
        conn.execute(text(statement))


def create_paper_search(conn: Connection) -> None:
    if conn.dialect.name == "sqlite":
        _run(conn, _SQLITE_CREATE)
    elif conn.dialect.name == "postgresql":
        _run(conn, _PG_CREATE)


def drop_paper_search(conn: Connection) -> None:
    if conn.dialect.name == "sqlite":
        _run(conn, _SQLITE_DROP)
    elif conn.dialect.name == "postgresql":
        _run(conn, _PG_DROP)


def include_object(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """Alembic filter: the search objects above are managed by hand, not by autogenerate."""
    if type_ == "table" and name is not None and name.startswith("papers_fts"):
        return False
    return name not in {"search_vector", "ix_papers_search_vector"}
