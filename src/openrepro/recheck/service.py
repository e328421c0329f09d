"""Re-check runs and organizer decisions.

``run`` re-reads every logbook with a current verdict on the claim, runs the code checks
(:mod:`openrepro.recheck.checks`) and, when a client is given, asks a differently-prompted LLM
(prompt ``recheck-v1``) for objections, under a JSON schema; everything is stored as one
:class:`~openrepro.store.tables_organizer.RecheckRun`. The LLM's objections are findings with
``source="llm"``: shown, never deciding.

``decide`` (organizers only) stores a :class:`~openrepro.store.tables_organizer.RecheckDecision`
and flows into outcomes through :class:`~openrepro.store.VerdictEdit` rows with
``source="recheck"``:

* ``rejected`` (a false falsification): every current verdict on the claim whose effective value
  is ``falsified`` becomes ``inconclusive`` (old value kept, editor and reason recorded);
* ``confirmed`` and ``needs-more-evidence``: the judge's values stand. No same-value edit is
  written (outcomes would count it as an override); the decision row is the provenance. A
  verdict that an earlier ``rejected`` decision had turned to ``inconclusive`` is restored to
  the judge's value by a new ``recheck`` edit.
"""

from __future__ import annotations

import json
from importlib.resources import files
from string import Template
from typing import Literal

from pydantic import BaseModel, Field

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import claim_view, resolve_claim
from openrepro.errors import ConfigError, LLMOutputError
from openrepro.evidence.gather import evidence_items, looks_like_injection
from openrepro.evidence.records import Pointer
from openrepro.identity import LOCAL_ORGANIZER, Actor, ensure_writable, require_organizer
from openrepro.llm import LLMClient, Message, Usage
from openrepro.logbooks.records import LogbookRecord
from openrepro.outcomes.current import current_verdicts
from openrepro.recheck.checks import code_checks
from openrepro.recheck.queue import decision_view, report_view
from openrepro.recheck.records import DECISIONS, DecisionView, Finding, RecheckReport
from openrepro.store import VerdictEdit
from openrepro.store.judge_queue import enqueue
from openrepro.store.revisions import latest_logbook_ids
from openrepro.store.tables_organizer import RecheckDecision, RecheckRun

__all__ = ["PROMPT_VERSION", "decide", "run_recheck"]

PROMPT_VERSION = "recheck-v1"
_SECTION = "## "


class _Objection(BaseModel):
    category: Literal[
        "units", "normalisation", "scale", "failed_run", "misread_claim", "arithmetic", "other"
    ]
    explanation: str = Field(max_length=300)


class _Answer(BaseModel):
    objections: list[_Objection] = Field(max_length=5)
    assessment: Literal["likely_wrong", "likely_right", "unclear"]


def _prompt() -> tuple[str, Template]:
    text = files("openrepro.recheck.prompts").joinpath(f"{PROMPT_VERSION}.md").read_text("utf-8")
    text = text.split("-->", 1)[1] if text.lstrip().startswith("<!--") else text
    system = text.split("## system", 1)[1].split("## user", 1)[0].strip()
    user = text.split("## user", 1)[1].strip()
    return system, Template(user)


def _llm_findings(
    client: LLMClient,
    claim_name: str,
    claim_text: str,
    reported: str,
    verdicts: list[str],
    evidence: list[str],
    findings: list[Finding],
) -> tuple[list[Finding], Usage]:
    system, user = _prompt()
    listing = "\n".join(f"[{n}] {line}" for n, line in enumerate(evidence, 1)) or "(none)"
    content = user.substitute(
        claim_id=claim_name, claim=claim_text, reported=reported,
        verdicts="\n".join(verdicts) or "(none)", evidence=listing,
        findings="\n".join(f"- {f.message}" for f in findings if f.source == "code") or "(none)",
    )  # fmt: skip
    messages = [Message(role="system", content=system), Message(role="user", content=content)]
    try:
        result = client.complete(messages, _Answer, prompt_version=PROMPT_VERSION, max_tokens=400)
    except LLMOutputError as exc:
        failed = Finding(check="llm", source="llm", message=f"llm: no valid answer ({exc})")
        return [failed], Usage.model_validate(exc.usage or {})
    out = [
        Finding(check="llm", source="llm", severity="undermines",
                message=f"llm ({o.category}): {o.explanation}",
                data={"category": o.category})
        for o in result.value.objections
    ]  # fmt: skip
    out.append(
        Finding(check="llm", source="llm", message=f"llm assessment: {result.value.assessment}",
                data={"assessment": result.value.assessment})
    )  # fmt: skip
    return out, result.usage


def run_recheck(
    ctx: ChallengeContext,
    claim: str,
    *,
    client: LLMClient | None = None,
    actor: Actor = LOCAL_ORGANIZER,
) -> RecheckReport:
    """Re-check one queued claim (``<paper>/<key>``) and store the findings."""
    require_organizer(actor, "run a re-check")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row, paper = resolve_claim(session, ctx.challenge_id, claim)
        view = claim_view(row, paper.venue_id)
        findings: list[Finding] = []
        verdict_lines: list[str] = []
        evidence: list[str] = []
        for cur in current_verdicts(session, ctx, [row.id]):
            record = LogbookRecord.model_validate(cur.logbook.manifest)
            pointers = [Pointer.model_validate(p) for p in cur.verdict.evidence]
            for finding in code_checks(record, view, pointers=pointers,
                                       verdict=cur.value, flags=cur.verdict.flags):  # fmt: skip
                finding.logbook_id, finding.verdict_id = cur.logbook.id, cur.verdict.id
                findings.append(finding)
            verdict_lines.append(
                f"- logbook {cur.logbook.id} ({cur.participant}): {cur.value}: "
                f"{cur.verdict.rationale[:200]}"
            )
            evidence += [
                item.text
                for item in evidence_items(record, view.id, claim_text=view.text, budget_chars=1500)
                if not looks_like_injection(item.text)
            ]
        usage = Usage()
        model = ""
        if client is not None:
            reported = "; ".join(v.describe() for v in view.reported) or "(no number)"
            llm, usage = _llm_findings(client, view.id, view.text, reported, verdict_lines,
                                       evidence[:40], findings)  # fmt: skip
            findings += llm
            model = client.backend.model
        undermining = list(
            dict.fromkeys(f.check for f in findings if f.severity == "undermines" and
                          f.source == "code")
        )  # fmt: skip
        summary = (
            "code checks found reasons the falsification may be wrong: " + ", ".join(undermining)
            if undermining
            else "code checks found no reason to doubt the verdicts"
        )
        stored = RecheckRun(
            challenge_id=ctx.challenge_id, claim_id=row.id, actor=actor.handle, model=model,
            prompt_version=PROMPT_VERSION if client is not None else "",
            findings=[json.loads(f.model_dump_json()) for f in findings], summary=summary,
            usage=usage.model_dump(),
        )  # fmt: skip
        session.add(stored)
        session.flush()
        return report_view(stored, view.id)


def decide(
    ctx: ChallengeContext,
    claim: str,
    decision: str,
    reason: str,
    *,
    actor: Actor = LOCAL_ORGANIZER,
) -> DecisionView:
    """Record an organizer's decision on a queued claim (see the module docstring)."""
    require_organizer(actor, "decide a re-check")
    if decision not in DECISIONS:
        raise ConfigError(f"unknown decision {decision!r}: one of {', '.join(DECISIONS)}")
    if not reason.strip():
        raise ConfigError("a decision needs a reason")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row, paper = resolve_claim(session, ctx.challenge_id, claim)
        changed: list[int] = []
        note = f"re-check {decision}: {reason.strip()}"
        for cur in current_verdicts(session, ctx, [row.id]):
            new: str | None = None
            if decision == "rejected" and cur.value == "falsified":
                new = "inconclusive"
            elif (
                decision != "rejected"
                and cur.last_edit is not None
                and cur.last_edit.source == "recheck"
                and cur.value != cur.verdict.verdict
            ):
                new = cur.verdict.verdict  # undo an earlier rejection
            if new is None:
                continue
            session.add(VerdictEdit(verdict_id=cur.verdict.id, old_value=cur.value,
                                    new_value=new, editor=actor.handle, reason=note,
                                    source="recheck"))  # fmt: skip
            changed.append(cur.verdict.id)
        stored = RecheckDecision(challenge_id=ctx.challenge_id, claim_id=row.id,
                                 decision=decision, reason=reason.strip(), editor=actor.handle,
                                 verdict_ids=changed)  # fmt: skip
        session.add(stored)
        session.flush()
        enqueue(session, latest_logbook_ids(session, ctx.challenge_id, paper=paper.venue_id),
                reason="recheck", claim_ids=[row.id], suffix=f"recheck:{stored.id}")  # fmt: skip
        return decision_view(stored, f"{paper.venue_id}/{row.key}")
