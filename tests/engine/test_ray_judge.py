"""The judge on a local Ray instance (2 CPUs) equals the single-process judge, on SQLite and
PostgreSQL: 10 claims x 22 logbooks = 220 (logbook, claim) pairs, mostly on the deterministic
path, a few on the LLM path (a prompt-keyed fake server behind two endpoints, round robin).
The logbooks are bundles whose successful run is stored as a matched replay (a bundle's own word
is testimony: ``run_self_declared``)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_helpers import KeyedFake, local_ray, make_challenge, second_database
from sqlalchemy import func, select

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.engine import RayOptions, judge_logbooks_ray
from openrepro.judge.judges import Judges
from openrepro.judge.service import judge_logbooks
from openrepro.llm import open_client
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.provenance import ReplayResult
from openrepro.provenance.replay import store_results
from openrepro.store import Claim, Logbook, Participant, Verdict

CLAIMS = 10
LOGBOOKS = 22
VALUES = [70.1 + i for i in range(CLAIMS)]  # claim C{i+1} reports VALUES[i]
ABSTRACT = " ".join(
    f"On benchmark B{i + 1}, the method reaches {v} average accuracy." for i, v in enumerate(VALUES)
)


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    yield from local_ray()


def _bundle(root: Path, j: int) -> Path:
    """Logbook ``j``: per claim, a matching, an off, a reduced-scale, a failed-run or (for the
    first logbooks) a value logged under another key (a judge chooses that pointer)."""
    root.mkdir(parents=True)
    metrics: list[dict[str, Any]] = []
    log: list[str] = []
    for i, value in enumerate(VALUES):
        key = f"claims/p1/C{i + 1}/accuracy"
        mode = (i + j) % 5
        if j < 3 and i < 2:  # not logged as instructed: the judges choose the pointer
            # the logbook's name in the key makes each prompt its own (identical prompts are
            # answered once, from the LLM cache)
            metrics.append({"run": "ok", "key": f"eval/u{j:02d}/b{i + 1}_accuracy", "step": 0,
                            "value": value})  # fmt: skip
            log.append(f"B{i + 1} accuracy {value} (logbook u{j:02d})")
        elif mode == 0:
            metrics.append({"run": "ok", "key": key, "step": 0, "value": value + 0.1})
        elif mode == 1:
            metrics.append({"run": "ok", "key": key, "step": 0, "value": round(value * 0.8, 2)})
        elif mode == 2:
            metrics.append({"run": "ok", "key": key, "step": 0, "value": value})
            scale = f"claims/p1/C{i + 1}/scale/parameters"
            metrics.append({"run": "ok", "key": scale, "step": 0, "value": 1e6})
        elif mode == 3:
            metrics.append({"run": "bad", "key": key, "step": 0, "value": value})
        else:
            metrics.append({"run": "ok", "key": key, "step": 3, "value": value - 0.2})
    (root / "ok.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
    (root / "bad.txt").write_text("oom\n", encoding="utf-8")
    (root / "README.md").write_text(f"Claim p1/C{j % CLAIMS + 1}: verified\n", encoding="utf-8")
    manifest = {
        "openrepro_bundle": 1,
        "paper": "p1",
        "participant": f"u{j:02d}",
        "claims": [f"p1/C{i + 1}" for i in range(CLAIMS)],
        "writeup": "README.md",
        "runs": [
            {"id": "ok", "command": ["python", "t.py"], "exit_code": 0, "log": "ok.txt"},
            {"id": "bad", "command": ["python", "t.py"], "exit_code": 1, "log": "bad.txt"},
        ],
        "metrics": metrics,
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def _populate(ctx: ChallengeContext, folder: Path) -> None:
    record = PaperRecord(venue_id="p1", title="Many benchmarks", abstract=ABSTRACT)
    import_papers(ctx.store, ctx.challenge_id, [record], source="t")
    with ctx.store.session() as session:
        for i, value in enumerate(VALUES):
            add_claim(session, ctx.challenge_id, "p1", kind="result", editor="org",
                      text=f"Reaches {value} accuracy on B{i + 1}.",
                      quotes=[f"reaches {value} average accuracy"], drafting="rules")  # fmt: skip
    for j in range(LOGBOOKS):
        book = submit_logbook(ctx, _bundle(folder / f"b{j}", j)).logbook_id
        matched = ReplayResult(run_id="ok", status="matched", level="replayed")
        store_results(ctx, book, None, [matched])


def _verdicts(ctx: ChallengeContext) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Every verdict by (participant, claim key), without ids, times and token counts."""
    with ctx.store.session() as session:
        rows = session.execute(
            select(Participant.handle, Claim.key, Verdict)
            .join(Logbook, Logbook.id == Verdict.logbook_id)
            .join(Participant, Participant.id == Logbook.participant_id)
            .join(Claim, Claim.id == Verdict.claim_id)
        ).all()
        return {
            (handle, key): (v.verdict, v.rationale, v.evidence, v.flags, v.provenance,
                            v.judge_config, v.judge_model, v.prompt_version)
            for handle, key, v in rows
        }  # fmt: skip


@pytest.fixture
def two_stores(
    tmp_path: Path, database_url: str
) -> Iterator[tuple[ChallengeContext, ChallengeContext]]:
    """Two identical challenges in two databases of the same kind."""
    urls = second_database(database_url, tmp_path)
    a = make_challenge(tmp_path / "a", database_url)
    b = make_challenge(tmp_path / "b", next(urls))
    _populate(a, tmp_path / "ba")
    _populate(b, tmp_path / "bb")
    try:
        yield a, b
    finally:
        a.close()
        b.close()
        urls.close()  # drops the second PostgreSQL database


def test_ray_judge_equals_local_judge(
    ray_instance: Any, two_stores: tuple[ChallengeContext, ChallengeContext]
) -> None:
    local, distributed = two_stores
    with KeyedFake() as one, KeyedFake() as two:
        local.settings = local.settings.model_copy(update={"llm_url": one.url})
        distributed.settings = distributed.settings.model_copy(
            update={"llm_urls": [one.url, two.url]}
        )
        client = open_client(local.settings, local.store)
        started = time.perf_counter()
        expected = judge_logbooks(local, Judges.of(client))
        local_s = time.perf_counter() - started
        client.close()
        calls_local = one.count("/v1/chat/completions")
        started = time.perf_counter()
        got = judge_logbooks_ray(distributed, Judges((distributed.settings,)),
                                 options=RayOptions(batch=2))  # fmt: skip
        ray_s = time.perf_counter() - started
        calls_a = one.count("/v1/chat/completions") - calls_local
        calls_b = two.count("/v1/chat/completions")
    pairs = len(expected.verdicts)
    print(f"\n{pairs} pairs: local {pairs / local_s:.0f}/s, ray {pairs / ray_s:.0f}/s")
    assert pairs == CLAIMS * LOGBOOKS >= 200
    assert got.judge_config == expected.judge_config

    def rows(report: Any) -> list[tuple[Any, ...]]:
        return [(r.logbook_id, r.claim_id, r.verdict, r.rule, r.path, r.flags)
                for r in report.verdicts]  # fmt: skip

    assert rows(got) == rows(expected)
    want, have = _verdicts(local), _verdicts(distributed)
    assert len(want) == pairs and have == want
    verdicts = {row[0] for row in want.values()}
    assert verdicts >= {"verified", "falsified", "inconclusive"}
    assert sum(r.path == "llm" for r in got.verdicts) == 6
    assert any(r.path == "llm" and r.verdict == "verified" for r in got.verdicts)
    # the judge is asked wherever a quantity is unbound and the logbook offers pointers: the six
    # values logged under another key, and the failed-run claims of the same three logbooks
    # (answered "none"); Ray asks exactly what the local loop asks, of both servers
    assert calls_local >= 6 and got.usage.calls == calls_local
    assert calls_a > 0 and calls_b > 0 and calls_a + calls_b == calls_local  # round robin

    # a re-run on Ray resumes: nothing judged again, nothing duplicated
    again = judge_logbooks_ray(distributed, Judges((distributed.settings.model_copy(
        update={"llm_urls": ["http://127.0.0.1:9/v1"], "llm_model": "fake-model"}),)))  # fmt: skip
    assert again.judged == 0 and again.judge_config == expected.judge_config
    with distributed.store.session() as session:
        assert session.scalar(select(func.count(Verdict.id))) == pairs


def test_ray_deterministic_path_without_llm(
    ray_instance: Any, tmp_path: Path, database_url: str
) -> None:
    ctx = make_challenge(tmp_path / "c", database_url)
    try:
        _populate(ctx, tmp_path / "bundles")
        report = judge_logbooks_ray(ctx, Judges(), logbook_ids=[1, 2, 3])
        assert {r.logbook_id for r in report.verdicts} == {1, 2, 3}
        assert {r.path for r in report.verdicts} <= {"deterministic", "none"}
        assert report.usage.calls == 0
    finally:
        ctx.close()


def test_cli_judge_engine_ray(ray_instance: Any, tmp_path: Path, database_url: str) -> None:
    from typer.testing import CliRunner

    from openrepro.cli import app

    ctx = make_challenge(tmp_path / "c", database_url)
    try:
        _populate(ctx, tmp_path / "bundles")
    finally:
        ctx.close()
    base = ["--dir", str(tmp_path / "c"), "judge", "--all", "--no-llm"]
    runner = CliRunner()
    wrong = runner.invoke(app, [*base, "--address", "auto"])
    assert wrong.exit_code != 0 and "--address needs --engine ray" in wrong.output
    done = runner.invoke(app, [*base, "--engine", "ray", "--format", "json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert len([v for v in report["verdicts"] if not v["skipped"]]) == CLAIMS * LOGBOOKS
    again = runner.invoke(app, [*base, "--engine", "ray", "--format", "json"])
    assert all(v["skipped"] for v in json.loads(again.stdout)["verdicts"])
