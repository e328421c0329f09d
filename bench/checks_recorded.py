"""Benchmark: the model path's check drafts on real event claims, from recorded answers.

A capable model's answers to the exact requests of ``bench/check_prompts.py`` are recorded
(``{"request_sha256", "reply"}`` lines); this script serves them with ``bench/replay_llm.py``'s
:class:`ReplayServer` on 127.0.0.1 and runs the project's own drafter,
:func:`openrepro.claims.checks.llm_draft.draft_check_llm`, unchanged, through the
OpenAI-compatible backend pointed at it, on the labelled claims of a split
(``bench/data/event_claim_labels.jsonl``, joined with their texts as ``bench/checks_real.py``
does). It prints :func:`~openrepro.claims.checks.eval.evaluate_drafter`'s figures (strict
precision: relation, quantities, constants and direction all right; coverage of the checkable
claims; per relation), and the code's **refusals**: the model's non-``none`` answers that code
turned into no check, counted, with their reasons. With ``--second`` (another drafter's
recording of the same requests) it reports the two drafters' agreement
(:func:`openrepro.claims.proposals.equivalence_form`) and the strict precision of the agreed
checks.

    .venv/bin/python bench/checks_recorded.py CLAIMS.json --recording REC.jsonl [--half fresh6]
        [--second REC2.jsonl] [--cases-out /tmp/cases.txt] [--json-out /tmp/report.json]
        [--prompt check-draft-v5]

``--prompt``: the drafting prompt the recordings answer (default the current one; v5's
recordings are re-run with ``--prompt check-draft-v5``). From ``check-draft-v6`` on, an answer
may list in ``left_out`` the claim's results its check does not state: code takes no check of
it, and the script counts such answers apart (the model's abstention, not code's refusal).

The drafter sends one **repair round** where code refuses an answer
(:func:`~openrepro.claims.checks.llm_draft.repair_messages`); its requests are written by
``bench/check_prompts.py --repairs-of`` and their recorded answers are given with the first
round's (``--recording FIRST.jsonl REPAIRS.jsonl``: the server serves both by hash). The script
runs the drafter twice: without the repair round (the code's refusals of the **first answers**)
and with it (the figures printed, and the refusals **after repair**: how many repairs gave a
check, how many became "none", how many are still refused, how many are not recorded).

``--cases-out`` writes every claim's drafted check in words (with the label, the model's answer
and the flags) for a read-by-hand review; it holds claim texts, so it is written outside this
repository (a path inside it is refused). A request the recording lacks is reported as
``unrecorded`` (the prompt or the schema changed since the recording).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from check_prompts import REPO, request_record
from checks_real import HALVES, load
from openrepro.claims.checks import Draft
from openrepro.claims.checks.eval import (
    CheckLabel,
    DraftCase,
    DrafterReport,
    evaluate_drafter,
    render_report,
)
from openrepro.claims.checks.llm_draft import (
    PROMPT_SCHEMAS,
    PROMPT_VERSION,
    REPAIRED_RULE,
    draft_check_llm,
)
from openrepro.claims.proposals import equivalence_form
from openrepro.errors import LLMError
from openrepro.llm import LLMClient, parse_json_reply
from openrepro.llm.openai_backend import OpenAIBackend
from replay_llm import Recording, ReplayServer, load_recording

UNRECORDED = "unrecorded"
#: an answer whose check the model itself says leaves a result out (v6's ``left_out``): the
#: model's abstention, counted apart from "none" and never as code's refusal
LEFT_OUT = "left_out"


def _reason_kind(reason: str) -> str:
    """A refusal's reason without its particulars: the kind counted in the summary."""
    head = reason.split(":", 2)
    return ":".join(head[:2]).strip() if len(head) > 1 else reason


def _model_answer(
    recordings: dict[str, Recording], quote: str, prompt: str = PROMPT_VERSION
) -> tuple[str, str]:
    """The relation the recorded answer for ``quote`` states ("" when unreadable or absent;
    :data:`LEFT_OUT` for a check the model says leaves a result out), and the answer as
    recorded."""
    recorded = recordings.get(request_record("", quote, prompt)["request_sha256"])
    if recorded is None:
        return UNRECORDED, ""
    try:
        answer: Any = parse_json_reply(recorded.reply)
    except ValueError:
        return "", recorded.reply
    relation = answer.get("relation", "") if isinstance(answer, dict) else ""
    if relation != "none" and isinstance(answer, dict) and answer.get("left_out"):
        return LEFT_OUT, recorded.reply
    return str(relation), recorded.reply


def run(
    labels: list[CheckLabel],
    recordings: dict[str, Recording],
    *,
    name: str,
    repair: bool = False,
    prompt: str = PROMPT_VERSION,
) -> tuple[DrafterReport, dict[str, Draft]]:
    """The drafter's report over ``labels`` and its draft per label id, from ``recordings``
    (with ``repair``, the drafter's repair round too: a refused answer whose repair request is
    not recorded is a draft whose reason starts with ``unrecorded``, rule ``llm``)."""
    drafts: dict[str, Draft] = {}
    by_quote: dict[str, str] = {label.quote: label.id for label in labels}
    with ReplayServer(recordings, model=name) as server:
        client = LLMClient(OpenAIBackend(server.url, model=name, retries=0), max_tokens=1024)

        def drafter(quote: str) -> Draft:
            try:
                draft = draft_check_llm(quote, client, repair=repair, prompt=prompt)
            except LLMError as exc:
                draft = Draft(reason=f"{UNRECORDED}: {exc}", rule="llm")
            drafts[by_quote[quote]] = draft
            return draft

        report = evaluate_drafter(labels, drafter, name=name)
        client.backend.close()
    return report, drafts


def refusals(
    labels: list[CheckLabel],
    recordings: dict[str, Recording],
    drafts: dict[str, Draft],
    prompt: str = PROMPT_VERSION,
) -> tuple[int, list[tuple[str, str]]]:
    """How many of the model's answers were a check (not ``none``, nor one it says leaves a
    result out), and (claim, reason) for each of them that code refused."""
    answered = 0
    refused: list[tuple[str, str]] = []
    for label in labels:
        relation, _ = _model_answer(recordings, label.quote, prompt)
        if relation in {"none", UNRECORDED, LEFT_OUT}:
            continue
        answered += 1
        draft = drafts[label.id]
        if draft.check is None:
            refused.append((label.id, draft.reason))
    return answered, refused


NO_CHECK = ("the model finds no check", "the model finds no complete check")


def repaired(
    labels: list[CheckLabel],
    recordings: dict[str, Recording],
    drafts: dict[str, Draft],
    prompt: str = PROMPT_VERSION,
) -> dict[str, list[str]]:
    """The repair round's outcome for the model's non-``none`` first answers that code refused
    (``drafts`` from :func:`run` with ``repair``): claim ids by ``checked`` (the second answer
    is a check), ``none`` (the model answered "none"), ``refused`` (code refused it again),
    ``unrecorded`` (the repair request is not in the recording)."""
    out: dict[str, list[str]] = {"checked": [], "none": [], "refused": [], "unrecorded": []}
    for label in labels:
        relation, _ = _model_answer(recordings, label.quote, prompt)
        if relation in {"none", UNRECORDED, LEFT_OUT}:
            continue
        draft = drafts[label.id]
        if draft.rule != REPAIRED_RULE:
            if draft.reason.startswith(UNRECORDED):
                out["unrecorded"].append(label.id)
            continue
        if draft.check is not None:
            out["checked"].append(label.id)
        elif draft.reason.startswith(NO_CHECK):
            out["none"].append(label.id)
        else:
            out["refused"].append(label.id)
    return out


def agreement(
    labels: list[CheckLabel],
    first: dict[str, Draft],
    second: dict[str, Draft],
    cases: dict[str, DraftCase],
) -> tuple[str, list[str]]:
    """The two drafters' agreement on the claims both drafted, and the strict precision of the
    checks they agree on; and the claims whose checks agree (for a read-by-hand figure)."""
    both = [
        label.id
        for label in labels
        if first[label.id].check is not None and second[label.id].check is not None
    ]
    agreed = []
    for key in both:
        a, b = first[key].check, second[key].check
        assert a is not None and b is not None
        if equivalence_form(a) == equivalence_form(b):
            agreed.append(key)
    right = [k for k in agreed if _strict(cases[k])]
    line = (
        f"agreement: both drafted {len(both)}, equivalent {len(agreed)} "
        f"({len(agreed) / len(both):.1%} of both)"
        if both
        else "agreement: no claim drafted by both"
    ) + (f"; agreed checks strictly right {len(right)}/{len(agreed)}" if agreed else "")
    return line, agreed


def _strict(case: DraftCase) -> bool:
    return case.relation_ok and case.quantities_ok and case.constants_ok and case.direction_ok


def _flags(case: DraftCase) -> str:
    oks = (case.relation_ok, case.quantities_ok, case.constants_ok, case.direction_ok)
    return "".join(letter if ok else "-" for letter, ok in zip("RQCD", oks, strict=True))


def cases_in_words(
    labels: list[CheckLabel],
    report: DrafterReport,
    recordings: dict[str, Recording],
    prompt: str = PROMPT_VERSION,
) -> str:
    """Every claim: its text, the label, the model's answer, and the check in words (or why
    none), for a read-by-hand review."""
    blocks = []
    for label, case in zip(labels, report.cases, strict=True):
        relation, answer = _model_answer(recordings, label.quote, prompt)
        gold = label.relation.value if label.relation is not None else "none"
        parts = f"[{','.join(p.value for p in label.parts)}]" if label.parts else ""
        lines = [
            f"## {label.id}",
            f"claim: {label.quote}",
            f"label: {gold}{parts}, {label.quantities} quantities, constants "
            f"{label.constants}, direction {label.direction.value}"
            + (f" ({label.note})" if label.note else ""),
            f"model: {' '.join(answer.split()) if answer else relation}",
        ]
        if case.drafted == "none":
            lines.append(f"check: none: {case.reason}")
        else:
            lines.append(f"check [{_flags(case)}]: {case.description}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _outside(path: Path) -> bool:
    return not path.resolve().is_relative_to(REPO)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("claims", type=Path, nargs="+", help="the claim list(s)")
    parser.add_argument("--recording", type=Path, nargs="+", required=True)
    parser.add_argument("--second", type=Path, nargs="+", help="a second drafter's recording")
    parser.add_argument("--half", choices=[*HALVES, "all"], default="fresh6")
    parser.add_argument("--cases-out", type=Path, help="claims and checks in words (outside)")
    parser.add_argument("--json-out", type=Path, help="the report as JSON (outside)")
    parser.add_argument("--prompt", choices=list(PROMPT_SCHEMAS), default=PROMPT_VERSION,
                        help=f"the drafting prompt the recordings answer (default "
                        f"{PROMPT_VERSION})")  # fmt: skip
    args = parser.parse_args(argv)
    for path in (args.cases_out, args.json_out):
        if path is not None and not _outside(path):
            print(f"{path}: it holds claim texts; write outside the repository", file=sys.stderr)
            return 2
    labels, missing = load(args.claims, args.half)
    for problem in missing:
        print(f"left out: {problem}", file=sys.stderr)
    if not labels:
        print(f"{args.half}: no labels could be joined with a text", file=sys.stderr)
        return 1
    recordings: dict[str, Recording] = {}
    for path in args.recording:
        recordings.update(load_recording(path))
    prompt = args.prompt
    first_report, first = run(labels, recordings, name=f"first/{args.half}", prompt=prompt)
    report, drafts = run(
        labels, recordings, name=f"recorded/{args.half}", repair=True, prompt=prompt
    )
    print(render_report(report))
    answered, refused = refusals(labels, recordings, first, prompt)
    left = [
        label.id
        for label in labels
        if _model_answer(recordings, label.quote, prompt)[0] == LEFT_OUT
    ]
    print(f"  first answers whose check the model says leaves a result out (no check): "
          f"{len(left)}")  # fmt: skip
    unrecorded = sum(c.reason.startswith(UNRECORDED) for c in first_report.cases)
    share = f" ({len(refused) / answered:.1%})" if answered else ""
    print(f"  model answers not 'none': {answered}; first answers refused by code: "
          f"{len(refused)}{share}; unrecorded requests: {unrecorded}")  # fmt: skip
    for kind, n in Counter(_reason_kind(reason) for _, reason in refused).most_common():
        print(f"    {n:3} {kind}")
    for key, reason in refused:
        print(f"    {key}: {reason}")
    rounds = repaired(labels, recordings, drafts, prompt)
    after = len(rounds["refused"]) + len(rounds["unrecorded"])
    share = f" ({after / answered:.1%})" if answered else ""
    print(f"  after the repair round: refused {after}{share} (again {len(rounds['refused'])}, "
          f"repair not recorded {len(rounds['unrecorded'])}); repairs that gave a check "
          f"{len(rounds['checked'])}, that became 'none' {len(rounds['none'])}")  # fmt: skip
    for key in rounds["refused"]:
        print(f"    {key}: {drafts[key].reason}")
    summary: dict[str, Any] = {
        "report": report.model_dump(mode="json"),
        "answered": answered,
        "refused": refused,
        "repair": rounds,
        "unrecorded": unrecorded,
        "left_out": left,
    }
    if args.second:
        second: dict[str, Recording] = {}
        for path in args.second:
            second.update(load_recording(path))
        _, other = run(labels, second, name=f"second/{args.half}", repair=True, prompt=prompt)
        line, agreed = agreement(labels, drafts, other, {c.id: c for c in report.cases})
        print(f"  {line}")
        summary["agreement"] = line
        summary["agreed"] = agreed
    if args.cases_out is not None:
        args.cases_out.write_text(
            cases_in_words(labels, report, recordings, prompt), encoding="utf-8"
        )
        print(f"  cases in words: {args.cases_out}")
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
