"""`openrepro pull`: one command from "I pick this paper" to a ready reproduction workspace.

The workspace holds ``PAPER.md``, ``CLAIMS.md``, ``claims.json``, ``INSTRUCTIONS.md``,
``AGENTS.md`` and a Trackio logbook scaffolded with Trackio's own functions: one page per claim
with status ``planned`` and ``logbook.json["paper"]`` linked (what the real event's guide called
``trackio logbook plan``).
"""

from __future__ import annotations

import contextlib
import json
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import quote as urlquote

from pydantic import BaseModel
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import ClaimView, list_claims
from openrepro.claims.checks import Check, sweep_metric, sweeps_of
from openrepro.claims.proposals import CHECKS_FORMAT, parse_checks_file, validate_proposal
from openrepro.errors import CheckError, NotFoundError, SourceError, WorkspaceExistsError
from openrepro.logbooks.manifest import CHECKS_FILE
from openrepro.papers import PaperDetail, get_paper
from openrepro.store import Paper

__all__ = [
    "PullReport",
    "WorkspacePayload",
    "check_lines",
    "fetch_workspace",
    "propose_in_workspace",
    "pull_paper",
    "workspace_payload",
    "workspace_server",
    "write_workspace",
]

WORKSPACE_FILE = ".openrepro/workspace.json"


class PullReport(BaseModel):
    paper_id: str
    directory: str
    claims: list[str]
    files: list[str]
    logbook: str
    pages: dict[str, str]  # claim id -> logbook page slug


def _paper_md(paper: PaperDetail, full_text: str | None) -> str:
    lines = [f"# {paper.title}", ""]
    if paper.authors:
        lines += [", ".join(paper.authors), ""]
    for label, value in (
        ("id", paper.venue_id), ("status", paper.status), ("track", paper.track),
        ("decision", paper.decision), ("arXiv", paper.arxiv_id), ("page", paper.site_url),
        ("pdf", paper.pdf_url), ("licence", paper.licence),
    ):  # fmt: skip
        if value:
            lines.append(f"- {label}: {value}")
    lines += ["", "## Abstract", "", paper.abstract or "(no abstract)", ""]
    if full_text:
        lines += ["## Full text", "", full_text, ""]
    else:
        lines += ["(The full text is not in the challenge's index: read the paper from its PDF.)"]
    return "\n".join(lines) + "\n"


def _claims_md(paper: PaperDetail, claims: list[ClaimView]) -> str:
    lines = [f"# Claims of {paper.venue_id}", "", paper.title, ""]
    if not claims:
        lines += ["No claims have been extracted for this paper yet.", ""]
    for claim in claims:
        lines += [f"## {claim.id} ({claim.kind})", "", claim.text, ""]
        for quote in claim.quotes:
            lines.append(f"> {' '.join(quote.text.split())}")
            lines.append(f"> — {quote.field}[{quote.start}:{quote.end}]")
            lines.append("")
        lines += [f"- reported: {value.describe()}" for value in claim.reported]
        if not claim.scale.is_empty():
            lines.append(f"- paper's scale: {claim.scale.describe()}")
        lines += _check_lines(claim)
        lines.append("")
    return "\n".join(lines) + "\n"


def _check_lines(claim: ClaimView) -> list[str]:
    """The claim's check in words and the exact keys to log (INSTRUCTIONS.md says why)."""
    if claim.check is None:
        return [
            '- check: none yet: the verdict is `inconclusive` ("no check yet") whatever is '
            "logged, until a check exists; propose one in `checks.json` (AGENTS.md)",
        ]
    better = "propose a better one in `checks.json` if it misreads the claim"
    model = ("drafted by a model, provisional until an independent drafter agrees: propose "
             "the same check in `checks.json` to confirm it, or a better one if it misreads "
             "the claim")  # fmt: skip
    whose = {"rules": f"drafted by the rules: {better}", "llm": model,
             "organizer": "an organizer's", "participant": "a confirmed proposal",
             "confirmed": "confirmed by independent drafters"}  # fmt: skip
    lines = [f"- check: {claim.check.describe()} ({whose.get(claim.check.origin.value, '')})"]
    return lines + check_lines(claim.check, claim.id)[1:]


def _tolerances(check: Check) -> list[str]:
    """How close each decided relation must come, in words (one line per distinct one)."""
    out: list[str] = []
    for node in check.nodes():
        r = node.relation.value
        if r in {"for_all", "exists", "all_of", "human"}:
            continue
        if r == "rate":
            said = f"rate: the fitted exponent within {node.exponent_margin():g} of the claimed one"
        elif r == "identity":
            said = f"identity: every residual at most {node.identity_tolerance():g}"
        elif r in {"trend", "growth"}:
            said = f"{r}: decided by the fit over the sweep (95 % confidence)"
        elif node.tolerance.rel == 0 and node.tolerance.abs == 0:
            said = f"{r}: the number as stated, no tolerance"
        else:
            parts = [f"{node.tolerance.rel:.0%} relative"] if node.tolerance.rel else []
            parts += [f"{node.tolerance.abs:g} absolute"] if node.tolerance.abs else []
            said = f"{r}: within {' or '.join(parts)}"
        if said not in out:
            out.append(said)
    return out


def check_lines(check: Check, claim_id: str) -> list[str]:
    """A check in words for a participant: the check, its tolerance, and the exact keys to
    log (CLAIMS.md and ``openrepro check propose`` print these)."""
    lines = [f"- check: {check.describe()}"]
    lines += [f"- tolerance: {t}" for t in _tolerances(check)]
    sweeps = sweeps_of(check)
    quantities = check.for_claim(claim_id).all_quantities()
    if len(quantities) == 1 and quantities[0].name not in sweeps:
        # one quantity: the one metric logged for the claim binds it, whatever its name
        lines.append(f"- log as: `claims/{claim_id}/<metric>` (one metric for this claim; "
                     f"`{quantities[0].key}` names it exactly)")  # fmt: skip
        return lines
    for quantity in quantities:
        about = ", ".join(x for x in (quantity.description, quantity.unit, quantity.dataset) if x)
        lines.append(f"- log `{quantity.key}`" + (f" ({about})" if about else ""))
        if quantity.name in sweeps:
            sweep = sweeps[quantity.name]
            lines.append(
                f"  - one run per point, with `claims/{claim_id}/{sweep_metric(sweep)}` = the "
                f"point's {sweep} (this key in lower case, exactly)"
            )
    return lines


def _template(name: str, values: dict[str, str]) -> str:
    text = files("openrepro.workspace").joinpath(name).read_text(encoding="utf-8")
    return Template(text).safe_substitute(values)


def _page_title(claim: ClaimView) -> str:
    short = " ".join(claim.text.split())
    return f"{claim.id}: {short[:70]}{'…' if len(short) > 70 else ''}"


def _scaffold_logbook(dest: Path, paper: PaperDetail, claims: list[ClaimView]) -> dict[str, str]:
    """A Trackio logbook with one planned page per claim, made by Trackio's own functions."""
    from trackio import logbook as tl

    with contextlib.chdir(dest):
        proj = tl.create_logbook(title=f"Reproduction: {paper.title}")
    index = proj / "logbook" / "pages" / "index.md"
    text = index.read_text(encoding="utf-8")
    # a status column, so every claim's page starts as "planned"
    index.write_text(
        text.replace(f"{tl.TOC_HEADER}\n{tl.TOC_SEP}", "| Page | Status |\n| --- | --- |", 1),
        encoding="utf-8",
    )
    pages = {claim.id: tl.ensure_page(proj, _page_title(claim), status="planned")
             for claim in claims}  # fmt: skip
    metadata: dict[str, Any] = tl.read_metadata(proj)
    metadata["paper"] = {
        "id": paper.venue_id,
        "title": paper.title,
        "arxiv_id": paper.arxiv_id,
        "url": paper.site_url,
        "claims": [claim.id for claim in claims],
    }
    tl.write_metadata(proj, metadata)
    tl.write_site_files(proj)
    return pages


class WorkspacePayload(BaseModel):
    """Everything a workspace is made of: what the board's API serves to `pull --server`."""

    challenge: str
    challenge_title: str = ""
    paper: PaperDetail
    full_text: str | None = None
    claims: list[ClaimView]


def workspace_payload(ctx: ChallengeContext, venue_id: str) -> WorkspacePayload:
    with ctx.store.session() as session:
        paper = get_paper(session, ctx.challenge_id, venue_id)
        full_text = session.scalar(
            select(Paper.full_text).where(
                Paper.challenge_id == ctx.challenge_id, Paper.venue_id == venue_id
            )
        )
        claims = list_claims(session, ctx.challenge_id, paper=venue_id)
    return WorkspacePayload(
        challenge=ctx.settings.name, challenge_title=ctx.settings.title, paper=paper,
        full_text=full_text, claims=[c for c in claims if c.status == "active"],
    )  # fmt: skip


def fetch_workspace(server: str, venue_id: str, *, timeout: float = 60.0) -> WorkspacePayload:
    """The workspace payload of ``venue_id`` from a board's JSON API."""
    import requests

    url = f"{server.rstrip('/')}/api/v1/papers/{urlquote(venue_id, safe='')}/workspace"
    try:
        response = requests.get(url, timeout=timeout)
    except requests.RequestException as exc:
        raise SourceError(f"{url}: cannot reach the board ({exc})") from exc
    if response.status_code == 404:
        raise NotFoundError(f"the board at {server} has no paper {venue_id!r}")
    if response.status_code != 200:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text[:200]
        raise SourceError(f"{url}: HTTP {response.status_code}: {message}")
    try:
        return WorkspacePayload.model_validate(response.json())
    except ValueError as exc:
        raise SourceError(f"{url}: not a workspace payload ({exc})") from exc


def pull_paper(ctx: ChallengeContext, venue_id: str, dest: Path) -> PullReport:
    """Write the workspace for ``venue_id`` into ``dest`` (created; must not hold one already)."""
    return write_workspace(workspace_payload(ctx, venue_id), dest)


def workspace_server(folder: Path) -> str | None:
    """The board a workspace was pulled from (``pull --server``), or None (a local challenge's
    workspace, or no workspace at all)."""
    path = folder / WORKSPACE_FILE
    if not path.is_file():
        return None
    try:
        server = json.loads(path.read_text(encoding="utf-8")).get("server")
    except (ValueError, AttributeError, OSError):
        return None
    return server if isinstance(server, str) and server else None


_LOCAL_SUBMIT = """\
From this folder: `openrepro submit . --as <your handle>` (or an archive of it). Submitting the
same content again changes nothing; a changed logbook becomes a new revision."""

_SERVER_SUBMIT = """\
This workspace was pulled from the board at $server.
Once per machine, register there (the token is kept in your user config,
`~/.config/openrepro/credentials.json`; `OPENREPRO_TOKEN` overrides it):

```bash
openrepro participants register <your handle> --server $server
```

Then, from this folder, upload the logbook and read the verdicts back:

```bash
openrepro submit .
openrepro status
```

`submit` prints how each claim's quantities bind, as the judge will bind them. Submitting the
same content again changes nothing; a changed logbook becomes a new revision."""

_LOCAL_STEP = "Submit with `openrepro submit . --as <handle>`."
_SERVER_STEP = (
    "Register once: `openrepro participants register <handle> --server $server`;\n"
    "   then submit with `openrepro submit .` and see the verdicts with `openrepro status`."
)


def write_workspace(
    payload: WorkspacePayload, dest: Path, *, server: str | None = None
) -> PullReport:
    """Write a workspace from its payload (read from a local store or a board's API);
    ``server``: the board it came from, recorded so that ``submit`` and ``status`` go there
    and INSTRUCTIONS.md and AGENTS.md name its commands."""
    paper, full_text, claims = payload.paper, payload.full_text, payload.claims
    venue_id = paper.venue_id
    if (dest / ".trackio").exists() or (dest / WORKSPACE_FILE).exists():
        raise WorkspaceExistsError(f"{dest} already holds a workspace or a Trackio logbook")
    dest.mkdir(parents=True, exist_ok=True)
    project = "".join(c if c.isalnum() or c in "-_" else "-" for c in venue_id)
    values = {
        "challenge": payload.challenge_title or payload.challenge,
        "paper_id": venue_id,
        "title": paper.title,
        "example_claim": claims[0].id if claims else f"{venue_id}/C1",
        "project": f"repro-{project}",
    }
    where = {"server": server or ""}
    values["submit_howto"] = Template(_SERVER_SUBMIT if server else _LOCAL_SUBMIT).substitute(where)
    values["submit_step"] = Template(_SERVER_STEP if server else _LOCAL_STEP).substitute(where)
    written = {
        "PAPER.md": _paper_md(paper, full_text),
        "CLAIMS.md": _claims_md(paper, claims),
        "claims.json": json.dumps(
            [c.model_dump(mode="json", exclude={"edits"}) for c in claims],
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        "INSTRUCTIONS.md": _template("INSTRUCTIONS.md", values),
        "AGENTS.md": _template("AGENTS.md", values),
        "CHECKS.md": _template("CHECKS.md", values),
        WORKSPACE_FILE: json.dumps(
            {
                "challenge": payload.challenge,
                "paper": venue_id,
                "claims": [c.id for c in claims],
                "trackio_project": values["project"],
                **({"server": server} if server else {}),
            },
            indent=2,
        )
        + "\n",
    }
    for name, content in written.items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    pages = _scaffold_logbook(dest, paper, claims)
    logbook_files = sorted(
        str(p.relative_to(dest)) for p in (dest / ".trackio").rglob("*") if p.is_file()
    )
    return PullReport(
        paper_id=venue_id, directory=str(dest), claims=[c.id for c in claims],
        files=sorted(written) + logbook_files, logbook=".trackio/logbook", pages=pages,
    )  # fmt: skip


def propose_in_workspace(dest: Path, claim: str, data: Any) -> Check:
    """Validate and ground ``data`` (a check as JSON) against the quotes of ``claim`` (an id or
    key) in the workspace's ``claims.json``, then write it to the workspace's ``checks.json``
    (replacing an earlier proposal for the claim); a :class:`CheckError` says why it is refused.
    ``openrepro submit`` reads that file (:mod:`openrepro.claims.proposals`)."""
    listing = dest / "claims.json"
    try:
        claims = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckError(f"{listing}: cannot read the workspace's claims ({exc})") from exc
    rows = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
    found = next((c for c in rows if claim in (c.get("id"), c.get("key"))), None)
    if found is None:
        raise NotFoundError(f"no claim {claim!r} in {listing}")
    quotes = " … ".join(str(q.get("text", "")) for q in found.get("quotes", []))
    check = validate_proposal(str(found["id"]), quotes, data)
    target = dest / CHECKS_FILE
    current: dict[str, Any] = {}
    if target.is_file():
        current = parse_checks_file(target.read_text(encoding="utf-8"), str(target))
    current[str(found["id"])] = json.loads(check.to_json())
    target.write_text(json.dumps({"format": CHECKS_FORMAT, "checks": current}, indent=2,
                                 ensure_ascii=False) + "\n", encoding="utf-8")  # fmt: skip
    return check
