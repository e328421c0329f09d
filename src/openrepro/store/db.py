"""Engines, sessions and migrations: SQLite (WAL) by default, PostgreSQL by URL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from openrepro.errors import ConfigError, StoreError

__all__ = ["Store", "head_revision", "make_engine", "normalize_url"]

MIGRATIONS = "openrepro.store:migrations"


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


class Store:
    """One open database: an engine, a session factory and the migration entry point."""

    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def upgrade(self, revision: str = "head") -> None:
        """Apply Alembic migrations up to ``revision`` (idempotent)."""
        from alembic import command

        cfg = _alembic_config()
        try:
            with self.engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
        except OperationalError as exc:
            raise StoreError(f"cannot open database {self.safe_url}: {exc.orig}") from exc

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
