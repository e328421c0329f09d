"""Alembic environment: runs on the connection handed over by ``Store.upgrade``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from openrepro.store.models import Base
from openrepro.store.search_schema import include_object

config = context.config
connection: Connection | None = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only via `alembic` CLI, which we do not ship
    raise RuntimeError("run migrations through openrepro (`openrepro db upgrade`)")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    include_object=include_object,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
