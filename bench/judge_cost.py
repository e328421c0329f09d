"""Benchmark: what the judge costs on the labelled sets of real Trackio logbooks.

Builds the labelled sets of ``tests/judge/cases.py`` (paper ``p1``, one equality claim) and
``tests/judge/cases_relations.py`` (paper ``p2``, claims whose checks cover every relation) in a
fresh SQLite challenge, judges them with the configured model (embedded SmolLM2 by default) and
an empty response cache, and prints:

- how each verdict was decided: by the claim's check (rule ``K:*``, no LLM), by the comparison of
  reported values (rules R1-R9 on the deterministic path, no LLM), by the LLM (the logbook did
  not log the claim's metric and the model extracted it), or with no evidence at all; and the
  share decided without an LLM;
- prompt and completion tokens per verdict (all verdicts, and per LLM verdict), against a naive
  judge that reads the whole logbook (pages, run commands, scripts and outputs, metrics) for
  every claim, tokenized by the embedded backend's ``count_tokens`` (about 4 characters a token
  for other backends); goal: <= 40 %;
- harness overhead: the share of the judge's wall time spent outside the model; goal: <= 5 %;
- the evaluation table of each labelled set against its gold labels.

    .venv/bin/python bench/judge_cost.py --sets equality            # with the model
    .venv/bin/python bench/judge_cost.py --sets relations --no-llm  # rules only

With the model, each claim a relations logbook did not log is an LLM call whose prompt lists the
logbook's other metrics (about 4,000 tokens, minutes a call on two shared cores): ``--sets both``
with the model is a long run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import select

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.judge.evaluate import Label, evaluate, render_table
from openrepro.judge.judges import Judges
from openrepro.judge.service import JudgeReport, VerdictRow, judge_logbooks
from openrepro.llm import LLMClient, Message, open_client
from openrepro.logbooks.records import LogbookRecord
from openrepro.store import Logbook, Verdict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judge"))

from cases import build_labelled_set  # noqa: E402
from cases_relations import build_relations_set  # noqa: E402

HOW = ("by check", "by comparison", "by LLM", "no evidence")


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


def decided_how(row: VerdictRow) -> str:
    """How a verdict was decided (see the module docstring)."""
    if row.path == "llm":
        return "by LLM"
    if row.path == "none":
        return "no evidence"
    return "by check" if row.rule.startswith("K:") else "by comparison"


def print_costs(report: JudgeReport, naive: int, counted: int) -> None:
    verdicts = len(report.verdicts)
    how = Counter(decided_how(row) for row in report.verdicts)
    llm = how["by LLM"]
    without = verdicts - llm
    print(f"verdicts: {verdicts}; decided without an LLM: {without}/{verdicts} "
          f"({without / verdicts:.1%}); LLM calls: {report.usage.calls}")  # fmt: skip
    print("| decided | verdicts | share |")
    print("| --- | ---: | ---: |")
    for name in HOW:
        print(f"| {name} | {how[name]} | {how[name] / verdicts:.1%} |")
    used, completion = report.usage.prompt_tokens, report.usage.completion_tokens
    print(f"prompt tokens per verdict: {used / verdicts:.1f} (judge) vs "
          f"{naive / max(counted, 1):.1f} (naive: whole logbook per claim); "
          f"ratio {used / max(naive, 1):.1%} (goal <= 40 %)")  # fmt: skip
    print(f"completion tokens per verdict: {completion / verdicts:.1f}")
    if llm:
        print(f"per LLM verdict: {used / llm:.1f} prompt + {completion / llm:.1f} completion "
              "tokens")  # fmt: skip
    model_s = report.usage.seconds
    overhead = (report.seconds - model_s) / report.seconds if report.seconds else 0.0
    print(f"judge wall time {report.seconds:.2f} s, model time {model_s:.2f} s: harness "
          f"overhead {overhead:.1%} (goal <= 5 %)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", choices=["both", "equality", "relations"], default="both")
    parser.add_argument("--no-llm", action="store_true", help="the deterministic path only")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="judge-cost-"))
    ctx = init_challenge(tmp / "ch", "bench", venue="Bench/2026",
                         database_url=f"sqlite:///{tmp / 'store.db'}")  # fmt: skip
    started = time.perf_counter()
    sets: dict[str, list[Label]] = {}
    if args.sets in ("both", "equality"):
        sets["equality (p1)"] = build_labelled_set(ctx, tmp / "cases")
    if args.sets in ("both", "relations"):
        sets["relations (p2)"] = build_relations_set(ctx, tmp / "relations")
    built = sum(len(labels) for labels in sets.values())
    print(f"built {built} labels in {time.perf_counter() - started:.1f} s", flush=True)
    client = None if args.no_llm else open_client(ctx.settings, ctx.store)
    try:
        if client is not None:
            print(f"model: {client.backend.name} {client.backend.model}")
        began = time.perf_counter()

        def progress(rows: list[VerdictRow]) -> None:
            calls = sum(row.path == "llm" for row in rows)
            who = rows[0].participant if rows else "?"
            elapsed = time.perf_counter() - began
            print(f"  judged {who}: {len(rows)} verdicts, {calls} by the LLM, {elapsed:.1f} s",
                  flush=True)  # fmt: skip

        judges = Judges.of(client) if client is not None else Judges()
        report = judge_logbooks(ctx, judges, progress=progress)
        naive, counted = naive_tokens(ctx, client) if client is not None else (0, 0)
    finally:
        if client is not None:
            client.close()
    print_costs(report, naive, counted)
    for name, labels in sets.items():
        print(f"\n## {name}\n")
        print(render_table(evaluate(ctx, labels)))
    ctx.close()


if __name__ == "__main__":
    main()
