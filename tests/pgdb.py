"""A fresh PostgreSQL database per test, on the throwaway server scripts/test.sh starts."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

PG_ENV = "OPENREPRO_TEST_POSTGRES_URL"

__all__ = ["PG_ENV", "postgres_database"]


def postgres_database() -> Iterator[str]:
    admin_url = os.environ.get(PG_ENV)
    if not admin_url:
        if os.environ.get("OPENREPRO_TEST_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{PG_ENV} is not set but PostgreSQL tests are required")
        pytest.skip(f"PostgreSQL not available ({PG_ENV} unset; scripts/test.sh sets it)")
    name = f"t_{uuid.uuid4().hex[:16]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
