"""Benchmark: what the judge costs on the labelled set of real Trackio logbooks.

Builds the labelled set of ``tests/judge/cases.py`` in a fresh SQLite challenge, judges it with
the configured model (embedded SmolLM2 by default) and an empty response cache, and prints:

- the share of claims decided without an LLM (the deterministic path);
- prompt tokens per verdict against a naive judge that reads the whole logbook (pages, run
  commands, scripts and outputs, metrics) for every claim, tokenized by the embedded backend's
  ``count_tokens`` (about 4 characters a token for other backends); goal: <= 40 %;
- harness overhead: the share of the judge's wall time spent outside the model; goal: <= 5 %;
- the evaluation table against the gold labels.

    .venv/bin/python bench/judge_cost.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import select

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.judge.evaluate import evaluate, render_table
from openrepro.judge.service import judge_logbooks
from openrepro.llm import LLMClient, Message, open_client
from openrepro.logbooks.records import LogbookRecord
from openrepro.store import Logbook, Verdict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judge"))

from cases import build_labelled_set  # noqa: E402


def render_logbook(record: LogbookRecord) -> str:
    """The whole logbook as text, as a naive judge would read it."""
    parts: list[str] = []
    for page in record.pages:
        parts.append(f"# {page.title}")
        parts += [f"[{cell.type}] {cell.title}\n{cell.body}" for cell in page.cells]
    for run in record.runs:
        parts.append(f"$ {' '.join(run.command)} (exit {run.exit_code}, {run.duration_s} s)")
        parts += [f"--- {name}\n{source}" for name, source in run.scripts.items()]
        parts.append(run.output)
    parts += [f"{m.run} {m.key} step {m.step} = {m.value}" for m in record.metrics]
    return "\n".join(parts)


def count(client: LLMClient, text: str) -> int:
    counter = getattr(client.backend, "count_tokens", None)
    if counter is None:
        return max(1, len(text) // 4)
    tokens: int = counter([Message(role="user", content=text)])
    return tokens


def naive_tokens(ctx: ChallengeContext, client: LLMClient) -> tuple[int, int]:
    """Prompt tokens of a naive judge (whole logbook per verdict) and the verdicts counted."""
    total = verdicts = 0
    with ctx.store.session() as session:
        for book in session.scalars(select(Logbook)):
            claims = session.scalars(select(Verdict.id).where(Verdict.logbook_id == book.id))
            n = len(list(claims))
            text = render_logbook(LogbookRecord.model_validate(book.manifest))
            total += n * count(client, text)
            verdicts += n
    return total, verdicts


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="judge-cost-"))
    ctx = init_challenge(tmp / "ch", "bench", venue="Bench/2026",
                         database_url=f"sqlite:///{tmp / 'store.db'}")  # fmt: skip
    started = time.perf_counter()
    labels = build_labelled_set(ctx, tmp / "cases")
    print(f"built {len(labels)} labelled logbooks in {time.perf_counter() - started:.1f} s")
    client = open_client(ctx.settings, ctx.store)
    try:
        print(f"model: {client.backend.name} {client.backend.model}")
        report = judge_logbooks(ctx, client)
        deterministic = sum(row.path == "deterministic" for row in report.verdicts)
        verdicts = len(report.verdicts)
        naive, counted = naive_tokens(ctx, client)
    finally:
        client.close()
    used = report.usage.prompt_tokens
    model_s = report.usage.seconds
    overhead = (report.seconds - model_s) / report.seconds if report.seconds else 0.0
    print(f"verdicts: {verdicts}; decided without an LLM: {deterministic}/{verdicts} "
          f"({deterministic / verdicts:.0%}); LLM calls: {report.usage.calls}")  # fmt: skip
    print(f"prompt tokens per verdict: {used / verdicts:.1f} (judge) vs "
          f"{naive / max(counted, 1):.1f} (naive: whole logbook per claim); "
          f"ratio {used / naive:.1%} (goal <= 40 %)")  # fmt: skip
    print(f"completion tokens per verdict: {report.usage.completion_tokens / verdicts:.1f}")
    print(f"judge wall time {report.seconds:.2f} s, model time {model_s:.2f} s: harness "
          f"overhead {overhead:.1%} (goal <= 5 %)")  # fmt: skip
    print()
    print(render_table(evaluate(ctx, labels)))
    ctx.close()


if __name__ == "__main__":
    main()
