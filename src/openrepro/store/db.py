"""Engines, sessions and migrations: SQLite (WAL) by default, PostgreSQL by URL."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, make_url, text
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from openrepro.errors import ConfigError, StoreError
from openrepro.store.journal import watch_sessions

__all__ = ["Store", "deadline", "deadline_remaining", "finer_deadline_checks", "head_revision",
           "make_engine", "normalize_url", "shipped_head"]  # fmt: skip

MIGRATIONS = "openrepro.store:migrations"

#: The monotonic time after which statements run in this context are interrupted (None: never).
#: Set by :func:`deadline`; threads started with a copy of the context (Starlette's thread pool
#: for a route) inherit it, so a request answered 503 stops its queries too.
_DEADLINE: ContextVar[float | None] = ContextVar("openrepro_store_deadline", default=None)
#: SQLite calls the deadline check every this many virtual-machine instructions.
_SQLITE_CHECK_EVERY = 4_000


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Interrupt every statement run inside after ``seconds`` (or at an outer deadline, if
    sooner): SQLite through a progress handler on every connection, PostgreSQL through
    ``SET LOCAL statement_timeout`` at the start of each transaction (and by callers that
    begin a statement later, :func:`deadline_remaining`). An interrupted statement raises
    ``sqlalchemy.exc.OperationalError`` (SQLite ``interrupted``; PostgreSQL
    ``QueryCanceled``, a subclass), which :meth:`Store.session` turns into a StoreError."""
    end = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(end if outer is None else min(outer, end))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline_remaining() -> float | None:
    """Seconds left before this context's deadline (0 when past it; None when there is none)."""
    end = _DEADLINE.get()
    return None if end is None else max(0.0, end - time.monotonic())


def _past_deadline() -> int:
    end = _DEADLINE.get()
    return int(end is not None and time.monotonic() > end)


@contextmanager
def finer_deadline_checks(dbapi_conn: Any, every: int = 100) -> Iterator[None]:
    """Check the deadline every ``every`` SQLite instructions inside (a short, costly statement
    such as a full-text search with snippets), then as usual again."""
    dbapi_conn.set_progress_handler(_past_deadline, every)
    try:
        yield
    finally:
        dbapi_conn.set_progress_handler(_past_deadline, _SQLITE_CHECK_EVERY)


def normalize_url(url: str) -> str:
    """Map plain ``postgresql://`` / ``postgres://`` URLs to the psycopg 3 driver."""
    for plain in ("postgres://", "postgresql://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()
    dbapi_conn.set_progress_handler(_past_deadline, _SQLITE_CHECK_EVERY)


def _postgres_deadline(_session: Any, _transaction: Any, connection: Any) -> None:
    left = deadline_remaining()
    if left is not None:
        connection.exec_driver_sql(f"SET LOCAL statement_timeout = {max(1, int(left * 1000))}")


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite connections get WAL mode and foreign keys."""
    url = normalize_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigError(f"invalid database URL {url!r}: {exc}") from exc
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.get_backend_name() != "postgresql":
        raise ConfigError(
            f"unsupported database {parsed.get_backend_name()!r}: use SQLite or PostgreSQL"
        )
    return create_engine(url, pool_pre_ping=True)


def _alembic_config() -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", MIGRATIONS)
    return cfg


def head_revision() -> str | None:
    """The newest migration this version of openrepro ships."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


_REVISION_LINE = re.compile(r"^(down_revision|revision)\b[^=\n]*=(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"[\"']([^\"']+)[\"']")


def shipped_head() -> str | None:
    """:func:`head_revision` read from the migration files' ``revision`` and ``down_revision``
    lines, without importing Alembic (a third of a second, paid by every command that opens a
    store); None when the files do not say it plainly (one head, every file with both lines),
    and then Alembic decides. ``tests/store/test_store.py`` holds it to Alembic's answer."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (Path(__file__).parent / "migrations" / "versions").glob("*.py"):
        lines = _REVISION_LINE.finditer(path.read_text("utf-8"))
        found: dict[str, str] = {m.group(1): m.group(2) for m in lines}
        if set(found) != {"revision", "down_revision"}:
            return None
        named = _QUOTED.findall(found["revision"])
        if len(named) != 1:
            return None
        revisions.add(named[0])
        parents.update(_QUOTED.findall(found["down_revision"]))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


class Store:
    """One open database: an engine, a session factory and the migration entry point."""

    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        watch_sessions(self._sessions)  # every write marks the records it touches
        if self.engine.dialect.name == "postgresql":
            event.listen(self._sessions, "after_begin", _postgres_deadline)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def upgrade(self, revision: str = "head") -> None:
        """Apply Alembic migrations up to ``revision`` (idempotent). A database already at the
        shipped head (:func:`shipped_head`) is left as it is without loading Alembic."""
        if revision == "head" and self._at_head():
            return
        from alembic import command

        cfg = _alembic_config()
        try:
            with self.engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
        except OperationalError as exc:
            raise StoreError(f"cannot open database {self.safe_url}: {exc.orig}") from exc

    def _at_head(self) -> bool:
        """The database records exactly the shipped head revision (any doubt: False)."""
        head = shipped_head()
        if head is None:
            return False
        try:
            with self.engine.connect() as conn:
                found = conn.execute(text("SELECT version_num FROM alembic_version")).scalars()
                return list(found) == [head]
        except SQLAlchemyError:  # no such table yet, or no database: Alembic says what
            return False

    def current_revision(self) -> str | None:
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def has_tables(self) -> bool:
        return "papers" in inspect(self.engine).get_table_names()

    @property
    def safe_url(self) -> str:
        return make_url(self.url).render_as_string(hide_password=True)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any error."""
        session = self._sessions()
        try:
            yield session
            session.commit()
        except SQLAlchemyError as exc:
            session.rollback()
            raise StoreError(f"database error: {exc}") from exc
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def dispose(self) -> None:
        self.engine.dispose()
