"""`openrepro demo`: a fresh mini-challenge, end to end, on real mini-reproductions.

Stages (each reported to a :class:`DemoProgress`): import the bundled venue; extract claims with
the configured LLM (the embedded model by default); a scripted organizer review that makes the
claims match what the organizers want (every change is a recorded claim edit with a reason);
register participants; pull, run real experiments through ``trackio logbook run`` (some as local
jobs charged to the credit ledger), submit; judge; the falsification re-check queue with a
scripted organizer decision; outcomes and stats; freeze; the static board.

The model is never asked what the code can decide, and nothing here asserts its answers are
right: the final report compares every verdict with the scenario's known truth
(:mod:`openrepro.demo.scenario`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, computed_field
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import (
    ClaimView,
    ExtractionReport,
    add_claim,
    edit_claim,
    extract_claims,
    list_claims,
    remove_claim,
)
from openrepro.claims.checks import Check, sweep_metric, sweeps_of
from openrepro.claims.service import get_claim, redraft_checks, set_check
from openrepro.demo.review_step import ReviewStepReport, run_review_step
from openrepro.demo.scenario import (
    ATTEMPTS,
    CLAIMS,
    PARTICIPANTS,
    QUICK_PAPERS,
    Attempt,
    ExpectedClaim,
)
from openrepro.errors import ConfigError
from openrepro.evidence import stored_levels
from openrepro.evidence.checks import EvidenceLevels, apply_levels
from openrepro.evidence.decide import compare
from openrepro.evidence.decide import decide as decide_equality
from openrepro.evidence.gather import measurements
from openrepro.evidence.records import Decision
from openrepro.freeze import FreezeReport, freeze_dataset
from openrepro.identity import register
from openrepro.intake import submit
from openrepro.jobs import Balance, balance, run_job, wait_job
from openrepro.judge import JudgeReport, Judges, judge_logbooks
from openrepro.llm import LLMClient, open_client
from openrepro.logbooks import LogbookRecord
from openrepro.outcomes import (
    ClaimConsensus,
    Stats,
    claim_consensus,
    compute_stats,
    current_verdicts,
)
from openrepro.papers import PaperRecord, import_papers
from openrepro.recheck import decide, recheck_queue, run_recheck
from openrepro.store import Claim, Logbook, Paper, Verdict
from openrepro.workspace import pull_paper

__all__ = [
    "DEMO_MARKER",
    "CheckNote",
    "ClaimEditNote",
    "DemoProgress",
    "DemoReport",
    "JudgedAttempt",
    "RecheckNote",
    "RunNote",
    "run_demo",
]

DEMO_MARKER = ".openrepro-demo"  # a folder holding it may be wiped and rebuilt by the demo
ORGANIZER = "organizer"


class DemoProgress:
    """Where the demo stands; the CLI draws it (the default draws nothing)."""

    def stage(self, name: str, total: int) -> None:
        """A new stage of ``total`` steps begins."""

    def step(self, detail: str) -> None:
        """One step of the current stage is done."""


class ClaimEditNote(BaseModel):
    claim: str
    action: str  # kept | edited | added | removed | check set | check kept
    reason: str


class CheckNote(BaseModel):
    """A claim's check as the judge will use it, and where it came from."""

    claim: str
    relation: str  # "" when the claim has no check
    words: str  # the check in words
    origin: str  # rules | organizer | llm | none
    rule: str  # the drafting rule(s), e.g. D7+forall
    reason: str = ""  # why the organizer set it
    wanted: str  # the relation the scenario needs

    @computed_field  # type: ignore[prop-decorator]
    @property
    def as_wanted(self) -> bool:
        return self.relation == self.wanted


class RunNote(BaseModel):
    handle: str
    paper: str
    claim: str
    command: str
    exit_code: int
    job: str = ""  # the local job it ran as
    seconds: float = 0.0


class JudgedAttempt(BaseModel):
    """One (logbook, claim) verdict against the scenario's known truth."""

    handle: str
    claim: str
    scenario: str
    expected: str
    judge: str  # the judge's verdict
    path: str  # deterministic | llm | none
    rule: str
    flags: list[str]
    provenance: str
    final: str  # after the re-check and the organizer's decision
    hostile: bool = False
    expected_rule: str = ""  # the rule the scenario expects ("" = any)
    check: str = ""  # the check in words, when the verdict came from it
    rule_name: str = ""  # the deciding rule in words
    detail: str = ""  # the test's outcome: estimate, interval, region, fit, instance, ...
    values: list[str] = Field(default_factory=list)  # the bound values, per quantity
    #: an equality-only comparison of the same logbook (never the judge's: :func:`_equality_only`)
    equality: str = ""
    equality_rule: str = ""
    equality_detail: str = ""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_right(self) -> bool:
        return self.judge == self.expected

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rule_right(self) -> bool:
        return not self.expected_rule or self.rule == self.expected_rule

    @computed_field  # type: ignore[prop-decorator]
    @property
    def final_right(self) -> bool:
        return self.final == self.expected


class RecheckNote(BaseModel):
    claim: str
    reasons: list[str]
    undermining: list[str]
    findings: list[str]  # code findings that undermine the falsification
    decision: str
    reason: str


class DemoReport(BaseModel):
    folder: str
    database: str
    quick: bool
    papers: int
    extraction: ExtractionReport
    extracted: int  # claims the model proposed that were grounded and stored
    review: list[ClaimEditNote]
    claims: list[ClaimView]
    checks: list[CheckNote]
    participants: list[str]
    runs: list[RunNote]
    logbooks: int
    verdicts: list[JudgedAttempt]
    judge_calls: int  # LLM calls made by the judge
    recheck: list[RecheckNote]
    consensus: list[ClaimConsensus]
    stats: Stats
    balances: list[Balance]
    frozen: FreezeReport
    site: str
    site_pages: int
    seconds: dict[str, float] = Field(default_factory=dict)
    human_review: ReviewStepReport | None = None  # the perceptual claim (demo/review_step.py)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_right(self) -> int:
        """Verdicts of the judge that match the known truth."""
        return sum(v.judge_right for v in self.verdicts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def final_right(self) -> int:
        """Verdicts in force after the re-check that match the known truth."""
        return sum(v.final_right for v in self.verdicts)


def _resource(name: str) -> Any:
    return files("openrepro.demo").joinpath(name)


def _venue(papers: Sequence[str]) -> list[PaperRecord]:
    raw = json.loads(_resource("venue.json").read_text(encoding="utf-8"))
    return [
        PaperRecord(
            venue_id=p["venue_id"], title=p["title"], authors=p["authors"],
            abstract=p["abstract"], keywords=p["keywords"], status=p["status"],
            track=p["track"], licence=p["licence"], full_text=p["full_text"],
            source="openrepro demo venue (fictional)",
        )
        for p in raw["papers"]
        if p["venue_id"] in papers
    ]  # fmt: skip


def _fresh(folder: Path) -> ChallengeContext:
    """A new challenge in ``folder``; an earlier demo's folder is replaced, anything else kept."""
    if folder.exists() and any(folder.iterdir()):
        if not (folder / DEMO_MARKER).exists():
            raise ConfigError(
                f"{folder} exists and is not an openrepro demo folder: pass another --dir "
                "(the demo only replaces a folder it made itself)"
            )
        shutil.rmtree(folder)
    ctx = init_challenge(folder, "demo", venue="openrepro/Demo",
                         title="openrepro demo: a fictional venue, reproduced")  # fmt: skip
    (folder / DEMO_MARKER).write_text("made by `openrepro demo`; rebuilt on every run\n", "utf-8")
    return ctx


def _overlaps(claim: ClaimView, paper_text: str, expected: ExpectedClaim) -> bool:
    start = paper_text.find(expected.quote)
    end = start + len(expected.quote)
    for quote in claim.quotes:
        if quote.field == "full_text" and quote.start < end and quote.end > start:
            return True
        words = quote.text.strip()
        if words and (words in expected.quote or expected.quote in words):
            return True
    return False


def _review(
    ctx: ChallengeContext, papers: Sequence[str]
) -> tuple[list[ClaimEditNote], dict[str, str]]:
    """The scripted organizer review: keep the extracted claim that rests on the wanted
    sentence (fixing its text, kind and quote), remove the rest, add what the model missed.
    Returns the notes and, per paper, the id of its claim."""
    notes: list[ClaimEditNote] = []
    wanted: dict[str, str] = {}
    with ctx.store.session() as session:
        for expected in (c for c in CLAIMS if c.paper in papers):
            claims = [c for c in list_claims(session, ctx.challenge_id, paper=expected.paper)
                      if c.status == "active"]  # fmt: skip
            text = _paper_text(session, ctx, expected.paper)
            match = next((c for c in claims if _overlaps(c, text, expected)), None)
            for other in claims:
                if other is match:
                    continue
                remove_claim(session, ctx.challenge_id, other.id, editor=ORGANIZER,
                             reason="not the paper's headline checkable claim (or a duplicate "
                             "of it); the demo keeps one claim per paper")  # fmt: skip
                why = "not the headline claim / duplicate"
                notes.append(ClaimEditNote(claim=other.id, action="removed", reason=why))
            if match is None:
                added = add_claim(session, ctx.challenge_id, expected.paper, text=expected.text,
                                  kind=expected.kind, quotes=[expected.quote],
                                  editor=ORGANIZER)  # fmt: skip
                why = "the model missed the headline claim"
                notes.append(ClaimEditNote(claim=added.id, action="added", reason=why))
                wanted[expected.paper] = added.id
                notes += _organizer_check(session, ctx, expected, added.id)
                continue
            changed: list[str] = []
            if [q.text for q in match.quotes] != [expected.quote]:
                edit_claim(session, ctx.challenge_id, match.id, editor=ORGANIZER,
                           quotes=[expected.quote],
                           reason="quote the whole sentence so code parses the reported value "
                           "and the paper's scale")  # fmt: skip
                changed.append("quote")
            if match.text != expected.text or match.kind != expected.kind:
                edit_claim(session, ctx.challenge_id, match.id, editor=ORGANIZER,
                           text=expected.text, kind=expected.kind,
                           reason="state the claim with its setting and quantifier "
                           f"(kind {expected.kind})")  # fmt: skip
                changed.append("text/kind")
            notes.append(
                ClaimEditNote(claim=match.id, action="edited" if changed else "kept",
                              reason=", ".join(changed) or "extracted as wanted")
            )  # fmt: skip
            wanted[expected.paper] = match.id
            notes += _organizer_check(session, ctx, expected, match.id)
    return notes, wanted


def _organizer_check(
    session: Session, ctx: ChallengeContext, expected: ExpectedClaim, claim_id: str
) -> list[ClaimEditNote]:
    """Where the rules cannot draft the claim's check, the organizer sets it (what
    ``openrepro claims check set`` does). Otherwise the rules read the claim, and the organizer
    reviews their reading and keeps it (``claims check redraft ID --drafting rules``): by
    default (``check_drafting = "off"``) no drafted check is stored unreviewed."""
    if expected.check is None:
        if get_claim(session, ctx.challenge_id, claim_id)[0].check is not None:
            return []
        why = "the organizer reviewed the rules' reading of the claim and kept it"
        kept = redraft_checks(session, ctx.challenge_id, [claim_id], editor=ORGANIZER,
                              drafting="rules", reason=why)  # fmt: skip
        return [ClaimEditNote(claim=claim_id, action="check kept", reason=why)] * kept[claim_id]
    set_check(session, ctx.challenge_id, claim_id, expected.check, editor=ORGANIZER,
              reason=expected.check_reason)  # fmt: skip
    return [ClaimEditNote(claim=claim_id, action="check set", reason=expected.check_reason)]


def _check_notes(claims: Sequence[ClaimView], wanted: dict[str, str]) -> list[CheckNote]:
    by_id = {c.id: c for c in claims}
    notes: list[CheckNote] = []
    for expected in CLAIMS:
        claim = by_id.get(wanted.get(expected.paper, ""))
        if claim is None:
            continue
        check = claim.check
        notes.append(CheckNote(
            claim=claim.id, relation=check.relation.value if check else "",
            words=check.describe() if check else "no check yet: inconclusive",
            origin=check.origin.value if check else "none", rule=check.rule if check else "",
            reason=expected.check_reason if check and check.origin.value == "organizer" else "",
            wanted=expected.relation.value,
        ))  # fmt: skip
    return notes


def _paper_text(session: Session, ctx: ChallengeContext, venue_id: str) -> str:
    text = session.scalar(
        select(Paper.full_text).where(
            Paper.challenge_id == ctx.challenge_id, Paper.venue_id == venue_id
        )
    )
    return text or ""


def _trackio() -> str:
    beside = Path(sys.executable).parent / "trackio"
    found = str(beside) if beside.exists() else shutil.which("trackio")
    if not found:
        raise ConfigError("the trackio CLI is not installed (pip install trackio)")
    return found


def _env(ws: Path) -> dict[str, str]:
    return {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
            "HF_HUB_OFFLINE": "1", "PYTHONHASHSEED": "0"}  # fmt: skip


def _keys(check: Check | None) -> list[str]:
    """The metric names the claim's check asks for (CLAIMS.md lists them as keys
    ``claims/<claim id>/<name>``), as the experiments' options: the quantity, its baseline and
    the swept variable of the innermost relation."""
    if check is None:
        return []
    leaf = check
    while leaf.inner is not None:
        leaf = leaf.inner
    if not leaf.subject:
        return []
    keys = ["--metric", leaf.subject]
    if leaf.baselines:
        keys += ["--baseline-metric", leaf.baselines[0]]
    sweep = sweeps_of(check).get(leaf.subject)
    if sweep:
        keys += ["--sweep-metric", sweep_metric(sweep)]
    return keys


def _play(
    ctx: ChallengeContext, attempt: Attempt, ws: Path, claim: ClaimView, page: str
) -> RunNote:
    """Run the attempt's experiment in its workspace, as the participant would: logging under
    the keys the claim's check names."""
    script = f"{attempt.script}.py"
    (ws / script).write_bytes(_resource(f"experiments/{script}").read_bytes())
    for name in attempt.needs:
        (ws / name).write_bytes(_resource(f"data/{name}").read_bytes())
    command = [sys.executable, script, "--claim", claim.id, "--project", attempt.paper,
               *_keys(claim.check), *attempt.args]  # fmt: skip
    run = [_trackio(), "logbook", "run", "--page", page, "--", *command]
    shown = " ".join(["trackio logbook run -- python", script, *_keys(claim.check), *attempt.args])
    if attempt.via_job:
        env = [f"{k}={v}" for k, v in _env(ws).items() if k not in os.environ or k == "HOME"]
        env += [f"TRACKIO_DIR={ws / '.trackio'}"]
        job = run_job(ctx, ["env", *dict.fromkeys(env), *run], handle=attempt.handle,
                      paper=attempt.paper, claim=claim.id, workdir=ws,
                      timeout_s=600)  # fmt: skip
        done = wait_job(ctx, job.id, timeout_s=600)
        return RunNote(handle=attempt.handle, paper=attempt.paper, claim=claim.id,
                       command=shown, job=done.id,
                       exit_code=done.exit_code if done.exit_code is not None else -1)  # fmt: skip
    proc = subprocess.run(run, cwd=ws, env=_env(ws), capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip
    return RunNote(handle=attempt.handle, paper=attempt.paper, claim=claim.id, command=shown,
                   exit_code=proc.returncode)  # fmt: skip


def _testify(attempt: Attempt, ws: Path, claim: str, page: str) -> None:
    text = attempt.testimony.format(claim=claim)
    subprocess.run([_trackio(), "logbook", "cell", "markdown", text, "--page", page], cwd=ws,
                   env=_env(ws), capture_output=True, text=True, timeout=120,
                   check=True)  # fmt: skip


def _timed(seconds: dict[str, float], name: str, started: float) -> float:
    import time

    now = time.perf_counter()
    seconds[name] = round(now - started, 2)
    return now


def run_demo(
    folder: Path,
    *,
    quick: bool = False,
    client: LLMClient | None = None,
    progress: DemoProgress | None = None,
    extract: bool = True,
) -> DemoReport:
    """Build and run the demo challenge in ``folder`` (see the module docstring). ``client``
    replaces the configured LLM (the embedded model by default). ``extract=False`` skips the
    model's extraction: the organizer review then adds every wanted claim itself (tests of
    everything that follows, without the model's time)."""
    import time

    # absolute: experiments run with their workspace as cwd and TRACKIO_DIR inside it
    folder = folder.resolve()
    show = progress or DemoProgress()
    papers = QUICK_PAPERS if quick else tuple(dict.fromkeys(c.paper for c in CLAIMS))
    attempts = [a for a in ATTEMPTS if a.paper in papers]
    seconds: dict[str, float] = {}
    clock = time.perf_counter()
    ctx = _fresh(folder)
    own_client = client is None
    llm = client or open_client(ctx.settings, ctx.store)
    try:
        show.stage("import the venue", 1)
        records = _venue(papers)
        import_papers(ctx.store, ctx.challenge_id, records, source="demo")
        show.step(f"{len(records)} fictional papers")
        clock = _timed(seconds, "import", clock)

        show.stage("extract claims (embedded model)", len(records) if extract else 1)
        if extract:
            extraction = extract_claims(
                ctx, llm, progress=lambda p: show.step(f"{p.paper_id}: {p.stored} claims")
            )
        else:
            extraction = ExtractionReport()
            show.step("skipped: the organizer adds the claims")
        with ctx.store.session() as session:
            extracted = len(list_claims(session, ctx.challenge_id))
        clock = _timed(seconds, "extract", clock)

        show.stage("organizer review", 1)
        review, wanted = _review(ctx, papers)
        show.step(f"{len(review)} claims reviewed")
        with ctx.store.session() as session:
            claims = [c for c in list_claims(session, ctx.challenge_id) if c.status == "active"]
        views = {c.id: c for c in claims}
        checks = _check_notes(claims, wanted)
        clock = _timed(seconds, "review", clock)

        handles = [h for h, _ in PARTICIPANTS if any(a.handle == h for a in attempts)]
        show.stage("participants reproduce", len(attempts))
        for handle in handles:
            register(ctx, handle, name=dict(PARTICIPANTS)[handle])
        runs: list[RunNote] = []
        work = folder / "work"
        for attempt in attempts:
            claim = wanted[attempt.paper]
            ws = work / attempt.handle / attempt.paper
            page = pull_paper(ctx, attempt.paper, ws).pages[claim]
            started = time.perf_counter()
            note = _play(ctx, attempt, ws, views[claim], page)
            note.seconds = round(time.perf_counter() - started, 2)
            runs.append(note)
            if attempt.testimony:
                _testify(attempt, ws, claim, page)
            show.step(f"{attempt.handle}: {attempt.paper} (exit {note.exit_code})")
        show.stage("submit logbooks", len(attempts))
        for attempt in attempts:
            submit(ctx, work / attempt.handle / attempt.paper, attempt.handle)
            show.step(f"{attempt.handle}: {attempt.paper}")
        clock = _timed(seconds, "participants", clock)

        show.stage("judge", len(attempts))
        usage_before = llm.usage.calls
        report = judge_logbooks(
            ctx,
            Judges.of(llm),
            progress=lambda rows: show.step(
                f"{rows[0].participant}: {', '.join(r.verdict for r in rows)}" if rows else ""
            ),
        )
        judge_calls = llm.usage.calls - usage_before
        clock = _timed(seconds, "judge", clock)

        show.stage("re-check falsifications", len(recheck_queue(ctx)))
        notes: list[RecheckNote] = []
        for entry in recheck_queue(ctx):
            result = run_recheck(ctx, entry.claim)
            falsifying = {r.logbook_id for r in report.verdicts
                          if r.claim_id == entry.claim and r.verdict == "falsified"}  # fmt: skip
            # only what undermines a falsifying logbook counts (another logbook's failed run
            # is no reason to doubt it)
            undermining = [f for f in result.findings if f.severity == "undermines"
                           and f.source == "code" and f.logbook_id in falsifying]  # fmt: skip
            if undermining:
                decision, reason = "rejected", undermining[0].message
            elif not falsifying:
                decision = "rejected"
                reason = (f"no logbook falsifies it (queued for {', '.join(entry.reason_codes)}); "
                          "nothing to re-verify")  # fmt: skip
            else:
                decision, reason = "confirmed", "the code checks found no reason to doubt it"
            decide(ctx, entry.claim, decision, reason)
            notes.append(RecheckNote(claim=entry.claim, reasons=list(entry.reason_codes),
                                     undermining=[f.check for f in undermining],
                                     findings=[f.message for f in undermining],
                                     decision=decision, reason=reason))  # fmt: skip
            show.step(f"{entry.claim}: {decision}")
        clock = _timed(seconds, "recheck", clock)

        show.stage("outcomes, freeze, static board", 3)
        consensus = claim_consensus(ctx)
        stats = compute_stats(ctx)
        balances = [balance(ctx, h) for h in handles]
        verdicts = _judged(ctx, attempts, report, views, wanted)
        show.step("stats")
        human = run_review_step(ctx, work)  # a perceptual claim, reviewed in Chromium
        frozen = freeze_dataset(ctx, folder / "frozen")
        show.step("frozen dataset")
        from openrepro.board import build_board_site

        site = build_board_site(ctx, folder / "site")
        show.step("static board")
        _timed(seconds, "publish", clock)
        seconds["total"] = round(sum(seconds.values()), 2)
        return DemoReport(
            folder=str(folder), database=ctx.store.safe_url, quick=quick, papers=len(records),
            extraction=extraction, extracted=extracted, review=review, claims=claims,
            checks=checks,
            participants=handles, runs=runs, logbooks=len(attempts), verdicts=verdicts,
            judge_calls=judge_calls, recheck=notes, consensus=consensus, stats=stats,
            balances=balances, frozen=frozen, site=str(folder / "site"),
            site_pages=site.pages, seconds=seconds, human_review=human,
        )  # fmt: skip
    finally:
        if own_client:
            llm.close()
        ctx.close()


def _judged(
    ctx: ChallengeContext,
    attempts: Sequence[Attempt],
    report: JudgeReport,
    views: dict[str, ClaimView],
    wanted: dict[str, str],
) -> list[JudgedAttempt]:
    """Every attempt's verdict against the known truth, with how code decided it (the stored
    evaluation of the claim's check) and what an equality-only comparison says of the same
    logbook (:func:`_equality_only`: the judge never decides that way)."""
    final = _current_verdicts(ctx)
    out: list[JudgedAttempt] = []
    with ctx.store.session() as session:
        for attempt in attempts:
            claim = views[wanted[attempt.paper]]
            for row in report.verdicts:
                if row.participant != attempt.handle or row.claim_id != claim.id:
                    continue
                details = _details(session, row.logbook_id, claim.id)
                book = session.get(Logbook, row.logbook_id)
                assert book is not None
                record = LogbookRecord.model_validate(book.manifest)
                plain = _equality_only(record, claim, stored_levels(session, book.id))
                by_check = bool(details) and row.rule.startswith("K:")
                out.append(JudgedAttempt(
                    handle=attempt.handle, claim=claim.id, scenario=attempt.scenario,
                    expected=attempt.expected, judge=row.verdict, path=row.path, rule=row.rule,
                    flags=row.flags, provenance=row.provenance,
                    final=final.get(row.logbook_id, row.verdict), hostile=attempt.hostile,
                    expected_rule=attempt.rule,
                    check=str(details.get("description", "")) if by_check else "",
                    rule_name=str(details.get("rule_name", "")) if by_check else row.rationale,
                    detail=_summary(details) if by_check else "",
                    values=_values(details.get("bound", [])) if by_check else [],
                    equality=plain.verdict, equality_rule=plain.rule,
                    equality_detail=plain.rationale,
                ))  # fmt: skip
    return out


def _equality_only(record: LogbookRecord, claim: ClaimView, levels: EvidenceLevels) -> Decision:
    """The contrast the demo shows: the claim's first logged metric compared with the first
    number of its text (the old judge's fallback, which ignored what the claim asserts). The
    judge itself never decides this way: a claim without a check is inconclusive."""
    found = [m for m in measurements(record, claim.id) if not m.metric.startswith("scale/")]
    found, _ = apply_levels(record, claim.id, found, levels)
    metric = found[0].metric if found else ""
    if not claim.reported:
        return Decision(verdict="inconclusive", rule="R3", rationale="no number to compare with")
    return decide_equality(compare([m for m in found if m.metric == metric], claim.reported[0]))


def _details(session: Session, logbook_id: int, claim_id: str) -> dict[str, Any]:
    """The evaluation the judge stored with its verdict (empty without a check)."""
    venue, key = claim_id.split("/", 1)
    found = session.scalars(
        select(Verdict.details)
        .join(Claim, Claim.id == Verdict.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Verdict.logbook_id == logbook_id, Claim.key == key, Paper.venue_id == venue)
        .order_by(Verdict.id.desc())
    ).first()
    return dict(found or {})


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _values(bound: list[dict[str, Any]]) -> list[str]:
    """``accuracy: 89, 86.75, 86.5`` per quantity (seeds), or ``miss_ratio by x: 2: 1.475,
    4: 2.02`` (a sweep, the seeds of a point joined by ``/``)."""
    out: list[str] = []
    for b in bound:
        if b.get("points"):
            by_x: dict[str, list[str]] = {}
            for x, y in b["points"]:
                by_x.setdefault(_number(x), []).append(_number(y))
            shown = ", ".join(f"{x}: {'/'.join(ys)}" for x, ys in by_x.items())
            out.append(f"{b['quantity']} by x: {shown}")
        else:
            out.append(f"{b['quantity']}: {', '.join(_number(v) for v in b.get('seeds', []))}")
    return out


def _summary(details: dict[str, Any]) -> str:
    """The test's outcome in one line: its detail, and for a growth law the AICc per law."""
    detail = str(details.get("detail", ""))
    numbers = details.get("numbers") or {}
    fits = {k[5:]: v for k, v in numbers.items() if k.startswith("aicc_")}
    if fits:
        detail += " (AICc " + ", ".join(f"{k} {v:.1f}" for k, v in fits.items()) + ")"
    return detail


def _current_verdicts(ctx: ChallengeContext) -> dict[int, str]:
    """Logbook id -> the verdict now in force (after re-check decisions); the demo keeps one
    claim per paper, so one verdict per logbook."""
    with ctx.store.session() as session:
        return {cur.logbook.id: cur.value for cur in current_verdicts(session, ctx)}
