"""Rendering the board's pages with Jinja2 (autoescape on), for the web and the static export.

Pages differ between the two only in their links: :class:`WebUrls` points at the live routes,
:class:`StaticUrls` at files relative to the page being written.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from openrepro.board import charts
from openrepro.board.checks import CHECK_COMMANDS, check_shown, pointer_link
from openrepro.board.data import PAPER_FILTERS, PAPER_SORTS, HomeData, PaperRow
from openrepro.board.reviews import review_panels
from openrepro.challenge import ChallengeContext
from openrepro.claims.proposals import ProposalView, list_proposals
from openrepro.outcomes import Stats
from openrepro.papers.records import PaperDetail
from openrepro.vocabulary import PROVENANCE_LEVELS

__all__ = [
    "BOARD_CSP",
    "PAGE_SIZE",
    "Renderer",
    "StaticUrls",
    "UrlFor",
    "WebUrls",
    "claim_proposals",
    "home_charts",
    "page_slice",
    "paper_links",
    "share",
    "slug",
]

#: The board's own pages: no script at all, inline styles, same-origin images and frames.
BOARD_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
)
PAGE_SIZE = 200

UrlFor = Callable[..., str]
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def slug(value: str) -> str:
    """A file name for any id: safe characters kept, a short hash added when any were not."""
    cleaned = _SAFE.sub("_", value)[:80]
    if cleaned == value and cleaned not in {".", ".."}:
        return cleaned
    return f"{cleaned}-{hashlib.sha256(value.encode()).hexdigest()[:8]}"


class WebUrls:
    """Links of the live board (``openrepro serve``)."""

    def __call__(self, kind: str, **kw: Any) -> str:
        if kind == "home":
            return "/"
        if kind == "papers":
            params = {
                k: v
                for k, v in kw.items()
                if v not in (None, "", 1) and k != "status" and not (k == "sort" and v == "id")
            }
            if kw.get("status") not in (None, "all"):
                params = {"status": kw["status"], **params}
            return "/papers" + (f"?{urlencode(params)}" if params else "")
        if kind == "paper":
            return f"/papers/{quote(kw['venue_id'], safe='')}"
        if kind == "logbook":
            return f"/logbooks/{int(kw['logbook_id'])}"
        if kind == "logbook_content":
            return f"/logbooks/{int(kw['logbook_id'])}/content"
        if kind == "participant":
            return f"/participants/{quote(kw['handle'], safe='')}"
        if kind == "leaderboard":
            return "/leaderboard"
        if kind == "recheck":
            params = {k: kw[k] for k in ("status", "reason") if kw.get(k)}
            return "/recheck" + (f"?{urlencode(params)}" if params else "")
        if kind == "stats":
            return "/stats"
        if kind == "api_docs":
            return "/api/docs"
        if kind == "accept_proposal":
            return f"/proposals/{int(kw['proposal_id'])}/accept"
        if kind == "check_queue":
            return "/checks/queue"
        if kind == "accept_draft":
            return f"/drafts/{int(kw['draft_id'])}/accept"
        if kind == "mark_human":
            return "/checks/queue/human"
        raise KeyError(kind)


class StaticUrls:
    """Links between the static export's files, relative to the page at ``depth``."""

    def __init__(self, depth: int) -> None:
        self.root = "../" * depth

    def __call__(self, kind: str, **kw: Any) -> str:
        r = self.root
        if kind == "home":
            return f"{r}index.html"
        if kind == "papers":
            status = kw.get("status") or "all"
            page = int(kw.get("page") or 1)
            return f"{r}papers/{status}{'' if page == 1 else f'-{page}'}.html"
        if kind == "paper":
            return f"{r}papers/p/{slug(kw['venue_id'])}.html"
        if kind == "logbook":
            return f"{r}logbooks/{int(kw['logbook_id'])}.html"
        if kind == "logbook_content":
            return f"{r}logbooks/{int(kw['logbook_id'])}/index.html"
        if kind == "participant":
            return f"{r}participants/{slug(kw['handle'])}.html"
        if kind == "leaderboard":
            return f"{r}leaderboard.html"
        if kind == "recheck":
            status = kw.get("status")
            return f"{r}recheck{f'-{status}' if status else ''}.html"
        if kind == "stats":
            return f"{r}stats.html"
        if kind == "api_docs":
            return f"{r}index.html"
        raise KeyError(kind)


#: An arXiv identifier: new style (2101.00001, with a version or not) or old (hep-th/9901001).
_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}(v\d+)?|[a-z-]+(\.[A-Z]{2})?/\d{7}(v\d+)?")


def paper_links(paper: PaperDetail) -> list[tuple[str, str]]:
    """Where to read a paper: its venue page, its PDF and its arXiv page (http(s) links only)."""
    links: list[tuple[str, str]] = []
    for label, href in (("venue page", paper.site_url), ("PDF", paper.pdf_url)):
        if href and urlsplit(href).scheme in ("http", "https"):
            links.append((label, href))
    arxiv = (paper.arxiv_id or "").strip()
    if arxiv and _ARXIV_ID.fullmatch(arxiv):
        links.append(("arXiv", f"https://arxiv.org/abs/{arxiv}"))
    return links


def share(percent: float) -> str:
    """A percentage as readers should read it: "0 %" only for none, "< 0.1 %" for a few of many
    (1 of 3,340 is not "0.0 %"), else one decimal."""
    if percent <= 0:
        return "0 %"
    if percent < 0.1:
        return "< 0.1 %"
    if percent >= 100:
        return "100 %"
    if percent > 99.9:
        return "> 99.9 %"
    return f"{percent:.1f} %"


def page_slice(rows: list[PaperRow], page: int) -> tuple[list[PaperRow], int]:
    pages = max(1, math.ceil(len(rows) / PAGE_SIZE))
    page = min(max(page, 1), pages)
    return rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE], pages


def home_charts(data: HomeData) -> dict[str, str]:
    stats: Stats = data.stats
    return {
        "outcomes": charts.bar_chart(
            [(r.label.split(" (")[0], r.count) for r in stats.rows], title="Papers by outcome row"
        ),
        "statuses": charts.bar_chart(list(data.statuses.items()), title="Papers by status"),
        "timeline": charts.stacked_timeline(data.verdicts_by_day, title="Verdicts over time"),
        "provenance": charts.bar_chart(
            list(stats.provenance.items()), title="Verdicts by evidence provenance"
        ),
    }


def claim_proposals(ctx: ChallengeContext, claim_id: str) -> list[ProposalView]:
    """The checks participants proposed for ``claim_id`` (superseded ones left out)."""
    with ctx.store.session() as session:
        return list_proposals(session, ctx.challenge_id, claim=claim_id)


class Renderer:
    """One Jinja2 environment for all pages of one challenge."""

    def __init__(self, ctx: ChallengeContext) -> None:
        self.ctx = ctx
        self.env = Environment(
            loader=PackageLoader("openrepro.board", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=["jinja2.ext.do"],
        )
        self.env.filters["share"] = share
        self.env.globals["paper_links"] = paper_links
        self.env.globals["sorts"] = PAPER_SORTS
        # the board's public address for the `openrepro pull` command (`public_url`); a
        # placeholder where the organizer has not set it
        self.env.globals["board_url"] = ctx.settings.public_url.rstrip("/") or "URL"
        self.env.globals.update(
            check_shown=check_shown, check_commands=CHECK_COMMANDS, pointer_link=pointer_link
        )
        # the review panels of partials/human_review.html
        self.env.globals["human_reviews"] = partial(review_panels, ctx)
        # the proposed checks beside a claim's own (partials/proposals.html)
        self.env.globals["check_proposals"] = partial(claim_proposals, ctx)
        self.title = ctx.settings.title or ctx.settings.name
        self.has_recheck = True

    def render(self, template: str, url: UrlFor, *, static: bool, **values: Any) -> str:
        return self.env.get_template(template).render(
            url=url, static=static, csp=BOARD_CSP, challenge_title=self.title,
            has_recheck=self.has_recheck, filters=PAPER_FILTERS,
            min_provenance=self.ctx.settings.min_provenance_verified,
            levels=tuple(reversed(PROVENANCE_LEVELS)), **values,
        )  # fmt: skip
