"""Benchmark: claim extraction throughput with the configured LLM (embedded SmolLM2 by default).

Imports the bundled sample papers (and, with --papers N, N more abstracts taken from the real
ICML 2025 titles with generated bodies) into a fresh SQLite challenge and extracts claims with
an empty response cache, so every paper costs a real model call. Prints papers/minute, tokens/s
and the harness overhead: the share of wall time spent outside the model (goal: <= 5 %).
A second pass with the cache on shows the cost of a re-run.

    .venv/bin/python bench/claims_throughput.py [--papers 8] [--llm-url URL]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from importlib.resources import files
from pathlib import Path

from openrepro.challenge import init_challenge
from openrepro.claims import extract_claims
from openrepro.llm import LLMClient, Message, make_backend
from openrepro.papers import PaperRecord, import_papers

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "Our method improves accuracy by {a}% over the strongest baseline on {d}.",
    "Training is {x}x faster per step on a single A100 GPU.",
    "We prove a regret bound of O(sqrt(T)) for the online variant.",
    "Ablations show that removing the adapter lowers F1 from {b} to {c}.",
    "The approach scales to models with {m}B parameters without instability.",
    "We release code and data to support reproduction.",
]


def sample_records(extra: int) -> list[PaperRecord]:
    sample = json.loads(
        files("openrepro.demo").joinpath("sample_papers.json").read_text(encoding="utf-8")
    )
    records = [
        PaperRecord(venue_id=p["id"], title=p["title"], abstract=p["abstract"])
        for p in sample["papers"]
    ]
    titles_file = ROOT / "tests" / "data" / "icml2025.json"
    titles = [p["title"] for p in json.loads(titles_file.read_text(encoding="utf-8"))]
    rng = random.Random(7)
    for i in range(extra):
        body = " ".join(
            s.format(a=rng.randint(2, 9), d=rng.choice(["GLUE", "ImageNet-1k", "D4RL"]),
                     x=rng.choice([1.5, 2, 3.2]), b=70 + i % 9, c=60 + i % 7, m=rng.randint(1, 70))
            for s in rng.sample(SENTENCES, 5)
        )  # fmt: skip
        records.append(PaperRecord(venue_id=f"bench-{i:04d}", title=titles[i], abstract=body))
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=0, help="extra generated papers")
    parser.add_argument("--llm-url", default="", help="OpenAI-compatible endpoint (else embedded)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ctx = init_challenge(Path(tmp) / "bench", "bench")
        if args.llm_url:
            ctx.settings.llm_url = args.llm_url
        records = sample_records(args.papers)
        import_papers(ctx.store, ctx.challenge_id, records, source="bench")
        backend = make_backend(ctx.settings)
        load_started = time.perf_counter()
        count_tokens = getattr(backend, "count_tokens", None)
        if count_tokens is not None:  # the embedded model loads on first use: time it apart
            count_tokens([Message(role="user", content="warm-up")])
        load_seconds = time.perf_counter() - load_started

        # The cache starts empty, so every paper costs a real call; writing the cache is part of
        # the measured harness time.
        client = LLMClient(backend, store=ctx.store, max_tokens=ctx.settings.llm_max_tokens)
        started = time.perf_counter()
        report = extract_claims(ctx, client, redo=True)
        wall = time.perf_counter() - started
        usage = report.usage
        outside = max(wall - usage.seconds, 0.0)
        print(f"backend: {backend.name} ({backend.model}), model load {load_seconds:.1f} s")
        print(f"papers: {len(records)}, claims stored: {report.stored}, "
              f"dropped (ungrounded): {sum(p.dropped for p in report.papers)}, "
              f"failed: {sum(p.status == 'failed' for p in report.papers)}")  # fmt: skip
        print(f"wall: {wall:.2f} s, in the model: {usage.seconds:.2f} s, calls: {usage.calls}")
        print(f"papers/minute: {len(records) / wall * 60:.1f}")
        print(f"tokens: {usage.prompt_tokens} prompt + {usage.completion_tokens} completion; "
              f"{usage.total_tokens / usage.seconds:.0f} tokens/s overall, "
              f"{usage.completion_tokens / usage.seconds:.1f} generated tokens/s")  # fmt: skip
        print(f"harness overhead: {outside:.3f} s = {100 * outside / wall:.2f} % of wall time")

        started = time.perf_counter()
        again = extract_claims(ctx, client, redo=True)
        print(
            f"re-run from cache: {time.perf_counter() - started:.2f} s, "
            f"{again.usage.calls} model calls, {again.usage.cached} cached"
        )
        backend.close()
        ctx.close()


if __name__ == "__main__":
    main()
