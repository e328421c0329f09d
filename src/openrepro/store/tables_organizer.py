"""Tables of the organizer domain (created by their own Alembic migration)."""

from __future__ import annotations

__all__: list[str] = []
