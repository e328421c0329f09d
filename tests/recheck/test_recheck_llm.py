"""The re-check's adversarial LLM pass with the embedded model: its words are recorded beside
the code's findings and never replace them."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from openrepro.challenge import init_challenge
from openrepro.judge import judge_logbooks
from openrepro.llm import LLMClient
from openrepro.llm.embedded import EmbeddedBackend
from openrepro.recheck import PROMPT_VERSION, get_entry, run_recheck
from openrepro.store import LLMCacheEntry
from organizer_scenario import submit_all


def test_recheck_with_embedded_llm(
    embedded_backend: EmbeddedBackend, organizer_workspaces: dict[str, Path], tmp_path: Path
) -> None:
    ctx = init_challenge(tmp_path / "ch", "llm")
    try:
        submit_all(ctx, organizer_workspaces)
        judge_logbooks(ctx, None)
        client = LLMClient(embedded_backend, store=ctx.store, max_tokens=400)
        report = run_recheck(ctx, "rl1/C1", client=client)
        llm = [f for f in report.findings if f.source == "llm"]
        assert llm, report.findings  # objections, an assessment, or a recorded failure
        assert all(f.check == "llm" for f in llm)
        assert report.prompt_version == PROMPT_VERSION and report.model
        # the code's finding stands whatever the model said, and decides the summary
        assert [f.check for f in report.undermining] == ["normalisation"]
        assert report.summary.endswith("normalisation")
        assert get_entry(ctx, "rl1/C1")[0].undermining == ["normalisation"]
        with ctx.store.session() as s:
            cached = s.scalars(select(LLMCacheEntry.prompt_version)).all()
        assert PROMPT_VERSION in cached
    finally:
        ctx.close()
