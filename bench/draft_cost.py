"""Benchmark: what bulk check drafting (``claims check draft --all``) costs per claim, and what
that means for an event of 35,908 claims on one vLLM GPU.

Measures, on the project's own labelled claims (``tests/data/check_labels.jsonl``):

- **prompt tokens per claim** of the drafting prompt (``PROMPT_VERSION``, system + user,
  chat-formatted), tokenized by the embedded backend (SmolLM2's tokenizer, a Llama-style BPE;
  other models' tokenizers differ by some 10-20 %); and the share of them in the system prompt,
  which a server with prefix caching (vLLM's default) prefills once, not per claim;
- **completion tokens per claim**: the reply as JSON, for a short reply (the fields a draft
  needs) and a full one (every field of the schema written out, as a model under a JSON-schema
  constraint may);
- **openrepro's own seconds per claim** (``--harness N``): bulk drafting N claims against a
  local OpenAI-compatible server on 127.0.0.1 that answers at once, so the time is openrepro's
  (HTTP, validation, grounding, the audit, one transaction per draft in SQLite), not a model's.

Then prints the estimated GPU time for ``--claims`` claims from a stated vLLM throughput
(``--prefill-tps``, ``--decode-tps``: aggregate tokens per second over a full batch). These are
**assumptions**, not measurements: nothing here runs vLLM. The defaults are for a 70B-class
model in FP8 on one H100 (prefill about 8,000 tokens/s, decode about 1,500 tokens/s aggregate
at high concurrency); ``--prefill-tps 30000 --decode-tps 5000`` is an 8B-class model.

    .venv/bin/python bench/draft_cost.py                 # tokens, estimate
    .venv/bin/python bench/draft_cost.py --harness 300   # and openrepro's own seconds per claim
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "llm"))
sys.path.insert(0, str(ROOT / "tests" / "claims"))

from openrepro.claims.checks.llm_draft import PROMPT_VERSION, LLMCheckDraft  # noqa: E402
from openrepro.claims.prompts import load_prompt  # noqa: E402
from openrepro.config import Settings  # noqa: E402
from openrepro.llm import Message  # noqa: E402

LABELS = ROOT / "tests" / "data" / "check_labels.jsonl"
SHORT = {"relation": "ordering", "subject": "apt_speed", "baselines": ["lora_prune_speed"],
         "direction": "higher"}  # fmt: skip


def quotes() -> list[str]:
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]  # fmt: skip
    return [str(r["quote"]) for r in rows]


def measure_tokens(claims: list[str]) -> tuple[list[int], int, int, int]:
    from openrepro.llm.embedded import EmbeddedBackend

    backend = EmbeddedBackend.from_settings(Settings(name="bench"))
    prompt = load_prompt(PROMPT_VERSION)
    per_claim = []
    for quote in claims:
        system, user = prompt.render(claim=quote)
        per_claim.append(backend.count_tokens([Message(role="system", content=system),
                                               Message(role="user", content=user)]))  # fmt: skip
    system_only = backend.count_tokens([Message(role="system", content=prompt.render(claim="")[0])])

    def reply_tokens(text: str) -> int:
        return backend.count_tokens([Message(role="assistant", content=text)]) - (
            backend.count_tokens([Message(role="assistant", content="")])
        )

    short = reply_tokens(json.dumps(SHORT))
    full = reply_tokens(LLMCheckDraft.model_validate(SHORT).model_dump_json())
    return per_claim, system_only, short, full


def harness(n: int) -> float:
    """openrepro's own seconds per claim: bulk drafting ``n`` claims against a local server."""
    from drafting_server import DraftingServer

    from openrepro.challenge import init_challenge
    from openrepro.claims import add_claim
    from openrepro.claims.drafts import draft_all
    from openrepro.llm import LLMClient
    from openrepro.llm.openai_backend import OpenAIBackend
    from openrepro.papers import PaperRecord, import_papers

    quote = "APT converged about 8x faster than the LoRA+Prune baseline"
    reply = {"relation": "ratio", "subject": "apt_speed", "baselines": ["lora_prune_speed"],
             "comparator": "eq", "number": "8x", "direction": "higher"}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        ctx = init_challenge(Path(tmp) / "ch", "bench", venue="Bench/2026",
                             database_url=f"sqlite:///{tmp}/store.db")  # fmt: skip
        papers = [PaperRecord(venue_id=f"p{i}", title=f"Paper {i}", abstract=quote + ".")
                  for i in range(n)]  # fmt: skip
        import_papers(ctx.store, ctx.challenge_id, papers, source="bench")
        with ctx.store.session() as s:
            for i in range(n):
                add_claim(s, ctx.challenge_id, f"p{i}", text=quote, kind="efficiency",
                          quotes=[quote], editor="bench", drafting="off")  # fmt: skip
        with DraftingServer("Qwen/Qwen2.5-72B-Instruct", {"8x faster": reply}) as server:
            client = LLMClient(OpenAIBackend(server.url, model=server.model, concurrency=8),
                               store=None, max_tokens=384)  # fmt: skip
            started = time.perf_counter()
            report = draft_all(ctx.store, ctx.challenge_id, [client])
            seconds = time.perf_counter() - started
        ctx.close()
    assert report.drafted == n, report.failed[:3] or report.outcomes[:1]
    return seconds / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=35_908)
    parser.add_argument("--prefill-tps", type=float, default=8_000.0)
    parser.add_argument("--decode-tps", type=float, default=1_500.0)
    parser.add_argument("--harness", type=int, default=0, help="claims to draft locally (0: no)")
    args = parser.parse_args()

    claims = quotes()
    per_claim, system, short, full = measure_tokens(claims)
    mean = statistics.fmean(per_claim)
    print(f"prompt {PROMPT_VERSION}: {len(claims)} labelled claims")
    print(
        f"  prompt tokens per claim: mean {mean:.0f}, median {statistics.median(per_claim):.0f}, "
        f"max {max(per_claim)}; system prompt {system} (prefilled once with prefix caching)"
    )
    print(f"  completion tokens per claim: short reply {short}, every field written {full}")
    fresh = mean - system
    for label, out in (("short replies", short), ("full replies", full)):
        no_cache = args.claims * (mean / args.prefill_tps + out / args.decode_tps)
        cached = args.claims * (fresh / args.prefill_tps + out / args.decode_tps)
        total = args.claims * (mean + out) / 1e6
        print(
            f"  {args.claims:,} claims, {label}: {total:.1f} M tokens; "
            f"GPU time {cached / 3600:.1f} h with prefix caching, {no_cache / 3600:.1f} h "
            f"without (assumed prefill {args.prefill_tps:,.0f} tok/s, decode "
            f"{args.decode_tps:,.0f} tok/s: an estimate, not a measurement)"
        )
    if args.harness:
        each = harness(args.harness)
        print(
            f"  openrepro's own time per claim (local server, SQLite, 8 in flight): "
            f"{each * 1000:.1f} ms ({args.claims * each / 60:.0f} min for {args.claims:,})"
        )


if __name__ == "__main__":
    main()
