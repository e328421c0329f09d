"""Claim extraction on a local Ray instance equals extraction in-process (same prompt-keyed
fake LLM), on SQLite and PostgreSQL; and the endpoint pool, settings and optional-Ray errors."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import closed_port_url
from ray_helpers import KeyedFake, local_ray, make_challenge, second_database
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims import extract_claims
from openrepro.config import load_settings
from openrepro.engine import RayOptions, extract_claims_ray, require_ray
from openrepro.errors import ConfigError, LLMUnavailableError
from openrepro.llm import LLMClient, Message, make_backend, open_client
from openrepro.llm.pool import EndpointPool
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim, ClaimExtraction, Paper

PAPERS = 8


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    yield from local_ray()


def _papers(ctx: ChallengeContext) -> None:
    records = [
        PaperRecord(
            venue_id=f"p{n}",
            title=f"Paper {n}",
            abstract=(
                f"Our model reaches {80 + n}.5 accuracy on the benchmark number {n}. "
                f"Training is {n + 1}.2x faster per step than the strongest baseline we know. "
                f"We also release the code of the method and all checkpoints for paper {n}."
            ),
        )
        for n in range(PAPERS)
    ]
    records.append(PaperRecord(venue_id="empty", title="No text"))
    import_papers(ctx.store, ctx.challenge_id, records, source="t")


def _claims(ctx: ChallengeContext) -> list[tuple[Any, ...]]:
    with ctx.store.session() as session:
        claims = session.execute(
            select(Paper.venue_id, Claim).join(Paper, Paper.id == Claim.paper_id)
        ).all()
        extractions = session.execute(
            select(Paper.venue_id, ClaimExtraction).join(
                Paper, Paper.id == ClaimExtraction.paper_id
            )
        ).all()
        return sorted(
            [(v, c.key, c.text, c.kind, c.quotes, c.reported, c.scale, c.status, c.origin,
              c.provenance["model"], c.provenance["prompt_version"]) for v, c in claims]
            + [(v, e.status, e.model, e.prompt_version, e.claims_stored, e.claims_dropped)
               for v, e in extractions],
            key=repr,
        )  # fmt: skip


def test_ray_extraction_equals_local(ray_instance: Any, tmp_path: Path, database_url: str) -> None:
    urls = second_database(database_url, tmp_path)
    local = make_challenge(tmp_path / "a", database_url)
    distributed = make_challenge(tmp_path / "b", next(urls))
    try:
        _papers(local)
        _papers(distributed)
        with KeyedFake() as one, KeyedFake() as two:
            local.settings = local.settings.model_copy(update={"llm_url": one.url})
            client = open_client(local.settings, local.store)
            expected = extract_claims(local, client)
            client.close()
            distributed.settings = distributed.settings.model_copy(
                update={"llm_urls": [one.url, two.url]}
            )
            got = extract_claims_ray(distributed, options=RayOptions(batch=1))
            assert two.count("/v1/chat/completions") > 0
        assert [p.paper_id for p in got.papers] == ["empty", *(f"p{n}" for n in range(PAPERS))]
        assert [(p.paper_id, p.status, p.stored, p.dropped) for p in got.papers] == sorted(
            (p.paper_id, p.status, p.stored, p.dropped) for p in expected.papers
        )
        assert got.stored == expected.stored == 2 * PAPERS
        assert got.usage.calls == expected.usage.calls == PAPERS
        assert _claims(distributed) == _claims(local)
        # resumed: every paper is done, nothing is asked or stored again
        distributed.settings = distributed.settings.model_copy(
            update={"llm_urls": [closed_port_url()], "llm_model": "fake-model"}
        )
        again = extract_claims_ray(distributed)
        assert [p.paper_id for p in again.papers] == ["empty"] and again.usage.calls == 0
    finally:
        local.close()
        distributed.close()
        urls.close()


# -- endpoints, settings, optional Ray (no Ray instance needed) ---------------------------


def test_pool_round_robin_and_failover() -> None:
    from pydantic import BaseModel

    class Out(BaseModel):
        answer: str

    from fake_openai import FakeOpenAI, completion

    messages = [Message(role="user", content="hi")]
    with (
        FakeOpenAI(default=completion('{"answer": "a"}')) as one,
        FakeOpenAI(default=completion('{"answer": "b"}')) as two,
    ):
        backend = make_backend(
            load_settings_with(llm_urls=[one.url, two.url, one.url], llm_model="fake-model")
        )
        assert isinstance(backend, EndpointPool) and backend.urls == [one.url, two.url]
        pool = backend
        client = LLMClient(pool)
        for n in range(6):
            client.complete(messages, Out, prompt_version=f"v{n}")
        assert one.count("/v1/chat/completions") == 3 == two.count("/v1/chat/completions")
        assert pool.calls == [3, 3]
    dead = make_backend(load_settings_with(llm_urls=[closed_port_url(), closed_port_url()],
                                           llm_model="m", llm_retries=0))  # fmt: skip
    with pytest.raises(LLMUnavailableError, match="none of the 2 LLM endpoints"):
        LLMClient(dead).complete(messages, Out, prompt_version="v")


def load_settings_with(**values: Any) -> Any:
    from openrepro.config import Settings

    return Settings.model_validate({"name": "t", **values})


def test_llm_urls_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "openrepro.toml").write_text('name = "t"\nllm_url = "http://x:1/v1"\n')
    assert load_settings(tmp_path).llm_urls == []
    monkeypatch.setenv("OPENREPRO_LLM_URLS", " http://a:8000/v1, http://b:8000/v1 ,")
    settings = load_settings(tmp_path)
    assert settings.llm_urls == ["http://a:8000/v1", "http://b:8000/v1"]
    assert isinstance(make_backend(settings.model_copy(update={"llm_model": "m"})), EndpointPool)


def test_engine_ray_without_ray_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError, match=r"openrepro\[ray\]"):
        require_ray()
