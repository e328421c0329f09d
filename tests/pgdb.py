"""A fresh PostgreSQL database per test, on the throwaway server scripts/test.sh starts."""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text

PG_ENV = "OPENREPRO_TEST_POSTGRES_URL"

__all__ = ["PG_ENV", "create_database", "drop_database", "postgres_database"]


def _admin_url() -> str:
    admin_url = os.environ.get(PG_ENV)
    if not admin_url:
        if os.environ.get("OPENREPRO_TEST_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{PG_ENV} is not set but PostgreSQL tests are required")
        pytest.skip(f"PostgreSQL not available ({PG_ENV} unset; scripts/test.sh sets it)")
    return admin_url


@functools.cache
def _admin_engine(admin_url: str) -> Engine:
    return create_engine(admin_url, isolation_level="AUTOCOMMIT")


def _admin(statement: str) -> None:
    with _admin_engine(_admin_url()).connect() as conn:
        conn.execute(text(statement))


def _name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def create_database(template: str | None = None) -> str:
    """A new database on the test server, empty or a copy of ``template``'s; its URL."""
    admin_url = _admin_url()
    name = f"t_{uuid.uuid4().hex[:16]}"
    _admin(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{_name(template)}"' if template else ""))
    return admin_url.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str) -> None:
    _admin(f'DROP DATABASE IF EXISTS "{_name(url)}" WITH (FORCE)')


def postgres_database(template: str | None = None) -> Iterator[str]:
    """A fresh database for one test (the body of a fixture), dropped afterwards: empty, or a
    copy of the database of ``template`` (a URL; nothing may be connected to it)."""
    url = create_database(template)
    try:
        yield url
    finally:
        drop_database(url)
