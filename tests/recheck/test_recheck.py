"""The re-check queue on a planted false falsification in a real Trackio logbook."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import AuthError, ConfigError, PermissionDeniedError
from openrepro.identity import Actor
from openrepro.judge import judge_logbooks
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.outcomes import claim_consensus
from openrepro.recheck import code_checks, decide, get_entry, recheck_queue, run_recheck
from openrepro.store import VerdictEdit
from organizer_scenario import submit_all


def _consensus(ctx: ChallengeContext, claim: str) -> str:
    paper, key = claim.split("/")
    return next(r.consensus for r in claim_consensus(ctx) if (r.paper, r.key) == (paper, key))


def test_false_falsification_goes_through_the_queue(
    challenge: ChallengeContext, organizer_workspaces: dict[str, Path]
) -> None:
    submit_all(challenge, organizer_workspaces)
    report = judge_logbooks(challenge, None)
    verdicts = {row.claim_id: row.verdict for row in report.verdicts if row.participant == "ada"}
    assert verdicts["rl1/C1"] == "falsified"  # 6.0 s measured vs 0.12 s claimed

    queue = {e.claim: e for e in recheck_queue(challenge)}
    assert set(queue) == {"rl1/C1", "p1/C1"}
    entry = queue["rl1/C1"]
    assert entry.status == "open" and entry.consensus == "falsified"
    assert {"consensus_falsified", "testimony_falsification"} <= set(entry.reason_codes)
    only = recheck_queue(challenge, reason="testimony_falsification")
    assert [e.claim for e in only] == ["rl1/C1"]
    with pytest.raises(ConfigError):
        recheck_queue(challenge, status="nonsense")

    result = run_recheck(challenge, "rl1/C1")
    normalisation = [f for f in result.findings if f.check == "normalisation"]
    assert len(normalisation) == 1, result.findings
    finding = normalisation[0]
    assert finding.source == "code" and finding.severity == "undermines"
    assert "per-trajectory vs per-batch-of-50" in finding.message
    assert finding.data["count"] == 50 and finding.data["count_key"] == "rollout/batch_size"
    assert finding.data["normalised"] == pytest.approx(0.12)
    assert any(f.check == "pointer" and f.severity == "supports" for f in result.findings)
    assert "normalisation" in result.summary
    # the genuine falsification gets no such excuse
    genuine = run_recheck(challenge, "p1/C1")
    assert genuine.undermining == [], genuine.findings

    entry, runs = get_entry(challenge, "rl1/C1")
    assert entry.status == "checked" and entry.undermining == ["normalisation"]
    assert [r.id for r in runs] == [result.id]

    participant = Actor(handle="ada", role="participant", participant_id=1)
    with pytest.raises(PermissionDeniedError):
        decide(challenge, "rl1/C1", "rejected", "per batch", actor=participant)
    with pytest.raises(AuthError):
        decide(challenge, "rl1/C1", "rejected", "per batch", actor=Actor())

    decision = decide(challenge, "rl1/C1", "rejected",
                      "per-batch-of-50 timing: 6.0 / 50 = 0.12 s per trajectory")  # fmt: skip
    assert len(decision.verdict_ids) == 1
    assert _consensus(challenge, "rl1/C1") == "inconclusive"
    with challenge.store.session() as s:
        edit = s.scalars(select(VerdictEdit)).one()
        assert (edit.old_value, edit.new_value, edit.source) == (
            "falsified", "inconclusive", "recheck"
        )  # fmt: skip
        assert edit.editor == "organizer" and "per-batch-of-50" in edit.reason
    assert recheck_queue(challenge, status="rejected")[0].claim == "rl1/C1"

    # confirming later restores the judge's value, with a second recheck edit
    again = decide(challenge, "rl1/C1", "confirmed", "second look: the paper means per batch")
    assert again.verdict_ids == decision.verdict_ids
    assert _consensus(challenge, "rl1/C1") == "falsified"
    decide(challenge, "p1/C1", "confirmed", "71 vs 88.1 on three seeds, no excuse found")
    assert _consensus(challenge, "p1/C1") == "falsified"  # confirmed: no same-value edit
    with challenge.store.session() as s:
        assert len(s.scalars(select(VerdictEdit)).all()) == 2


def _record(metrics: list[tuple[str, float]], runs: list[Run]) -> LogbookRecord:
    return LogbookRecord(
        format="bundle", format_version="1", runs=runs,
        metrics=[Metric(run="r1", key=k, step=0, value=v, source="bundle") for k, v in metrics],
    )  # fmt: skip


def test_code_checks_units_throughput_and_partial_runs() -> None:
    from openrepro.claims.records import ClaimView
    from openrepro.claims.values import ReportedValue, Scale

    def claim(text: str, value: float, unit: str = "", steps: str = "") -> ClaimView:
        return ClaimView(
            id="x/C1", paper_id="x", key="C1", text=text, kind="result", status="active",
            origin="manual", quotes=[], provenance={}, created_at="2026-01-01T00:00:00Z",
            reported=[ReportedValue(value=value, text=str(value), unit=unit)],
            scale=Scale(steps=steps),
        )  # fmt: skip

    ok = [Run(id="r1", command=["python", "eval.py", "--steps", "1000"], exit_code=0)]
    # percent vs fraction
    record = _record([("claims/x/C1/accuracy", 0.881)], ok)
    found = code_checks(record, claim("88.1% accuracy", 88.1, "%"), pointers=[],
                        verdict="falsified", flags=[])  # fmt: skip
    assert [f.check for f in found if f.severity == "undermines"] == ["unit"]
    # throughput per batch of 32 vs per item: the count divides the other way
    record = _record([("claims/x/C1/items_per_s", 12.5), ("eval/num_envs", 32)], ok)
    found = code_checks(record, claim("400 items per second", 400), pointers=[],
                        verdict="falsified", flags=[])  # fmt: skip
    norm = [f for f in found if f.check == "normalisation"]
    assert norm and "per-32" in norm[0].message and norm[0].data["normalised"] == 400
    # a run that stopped at step 3 of 1000 configured
    record = _record([], ok)
    record.metrics = [Metric(run="r1", key="claims/x/C1/loss", step=s, value=3.0 - s,
                             source="bundle") for s in range(3)]  # fmt: skip
    found = code_checks(record, claim("loss 0.5", 0.5), pointers=[], verdict="falsified",
                        flags=[])  # fmt: skip
    assert any(f.check == "partial_run" and f.severity == "undermines" for f in found)
    # the logbook's own timings re-derive the claimed 8x speed-up; the logged "speedup" is 2
    record = _record([("claims/x/C1/speedup", 2.0), ("time/baseline_s", 8.0),
                      ("time/method_s", 1.0)], ok)  # fmt: skip
    found = code_checks(record, claim("an 8x speed-up", 8.0, "x"), pointers=[],
                        verdict="falsified", flags=[])  # fmt: skip
    arithmetic = [f for f in found if f.check == "arithmetic"]
    assert arithmetic and "time/baseline_s / time/method_s" in arithmetic[0].message
    # a clean falsification: nothing undermines it
    record = _record([("claims/x/C1/accuracy", 71.0)], ok)
    found = code_checks(record, claim("88.1% accuracy", 88.1, "%"), pointers=[],
                        verdict="falsified", flags=[])  # fmt: skip
    assert not [f for f in found if f.severity == "undermines"]
