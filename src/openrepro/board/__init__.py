"""The board: the public record as web pages, a JSON API for agents, and a static export."""

from __future__ import annotations

from openrepro.board.site import SiteReport, build_board_site
from openrepro.board.web import create_app

__all__ = ["SiteReport", "build_board_site", "create_app"]
