"""The HF Jobs backend: the real ``huggingface_hub`` client against ``fake_jobs_hub``, a local
stand-in for the Hub's Jobs API (the Hub cannot be reached from here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_jobs_hub import FakeJobsHub, serve_jobs_hub

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.errors import BudgetError, JobError
from openrepro.jobs import (
    balance,
    cancel_job,
    flavor_prices,
    follow_logs,
    get_job,
    list_jobs,
    read_logs,
    reconcile,
    run_job,
    run_uv_job,
    wait_job,
)
from openrepro.store import Paper


@pytest.fixture
def hub() -> Iterator[FakeJobsHub]:
    with serve_jobs_hub() as fake:
        yield fake


@pytest.fixture
def ctx(tmp_path: Path, hub: FakeJobsHub) -> Iterator[ChallengeContext]:
    challenge = init_challenge(
        tmp_path / "ch", "test", database_url=f"sqlite:///{tmp_path / 's.db'}"
    )
    challenge.settings.hf_endpoint = hub.url
    challenge.settings.hf_token = "hf_test_token"
    challenge.settings.hf_namespace = hub.namespace
    challenge.settings.jobs_backend = "hf"
    with challenge.store.session() as session:
        session.add(Paper(challenge_id=challenge.challenge_id, venue_id="abc123", title="T"))
    try:
        yield challenge
    finally:
        challenge.close()


def test_prices_come_from_the_hardware_list_and_are_cached(
    ctx: ChallengeContext, hub: FakeJobsHub
) -> None:
    prices = flavor_prices(ctx)
    assert prices["cpu-basic"] == pytest.approx(0.000167 * 60)
    assert prices["a10g-small"] == pytest.approx(0.016667 * 60)
    assert flavor_prices(ctx) == prices and hub.hardware_calls == 1  # cached
    assert (ctx.settings.directory / "jobs" / "hf_hardware.json").is_file()
    ctx.settings.hf_hardware_ttl_s = 0
    flavor_prices(ctx)
    assert hub.hardware_calls == 2


def test_run_inspect_logs_and_settle(ctx: ChallengeContext, hub: FakeJobsHub) -> None:
    job = run_job(
        ctx, ["python", "-c", "print(1)"], handle="ada", flavor="a10g-small", timeout_s=3600,
        paper="abc123", claim=None,
    )  # fmt: skip
    assert job.backend == "hf" and job.status == "running" and job.external_id in hub.jobs
    spec = hub.jobs[job.external_id].spec
    assert spec["flavor"] == "a10g-small" and spec["timeoutSeconds"] == 3600
    assert spec["environment"]["OPENREPRO_JOB_ID"] == job.id
    labels = spec["labels"]
    assert labels["openrepro-participant"] == "ada" and labels["openrepro-paper"] == "abc123"
    assert labels["openrepro-job"] == job.id.split(":")[1]
    assert job.reserved_usd == pytest.approx(0.016667 * 60)
    assert balance(ctx, "ada").reserved_usd == pytest.approx(job.reserved_usd)
    assert reconcile(ctx).settled == []  # still running on the Hub

    hub.finish(job.external_id, "COMPLETED", running_secs=600, logs=["hello", "done"])
    assert read_logs(ctx, job.id) == "hello\ndone\n"
    assert "".join(follow_logs(ctx, job.id)) == "hello\ndone\n"
    done = wait_job(ctx, job.id, timeout_s=10)
    assert done.status == "completed" and done.settled and done.cost_is_estimate
    assert done.cost_usd == pytest.approx(600 * 0.016667 / 60, abs=1e-6)
    assert Path(done.log_path or "").read_text() == "hello\ndone\n"  # kept locally
    money = balance(ctx, "ada")
    assert money.reserved_usd == 0 and money.spent_usd == pytest.approx(done.cost_usd)
    assert get_job(ctx, f"hf:{job.external_id}").id == job.id
    assert [j.id for j in list_jobs(ctx, paper="abc123")] == [job.id]


def test_cancel_and_uv(ctx: ChallengeContext, hub: FakeJobsHub) -> None:
    job = run_uv_job(
        ctx, "https://example.org/train.py", ["--epochs", "1"], handle="ada", timeout_s=600
    )
    spec = hub.jobs[job.external_id or ""].spec
    assert (
        spec["command"][:2] == ["uv", "run"] and "https://example.org/train.py" in spec["command"]
    )
    view = cancel_job(ctx, job.id)
    assert view.status == "canceled" and view.settled
    assert hub.jobs[job.external_id or ""].stage == "CANCELED"
    assert balance(ctx, "ada").reserved_usd == 0


def test_budget_and_hub_errors(ctx: ChallengeContext, hub: FakeJobsHub) -> None:
    with pytest.raises(BudgetError, match="needs \\$24"):
        run_job(ctx, ["x"], handle="ada", flavor="a10g-small", timeout_s=24 * 3600)
    with pytest.raises(JobError, match="unknown hf flavor 'h999'"):
        run_job(ctx, ["x"], handle="ada", flavor="h999")
    ctx.settings.hf_namespace = "someone-else"
    with pytest.raises(JobError, match="run_job failed"):
        run_job(ctx, ["x"], handle="ada", timeout_s=60)
    assert balance(ctx, "ada").reserved_usd == 0  # the refused launch was released
    assert [j.status for j in list_jobs(ctx)] == ["error"]
    assert not hub.unknown
