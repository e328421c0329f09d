"""Dump the exact requests the model path sends for claims, to record a capable model's answers.

For each claim key (``<paper id>/<index>``, as in ``bench/data/event_claim_labels.jsonl``) this
writes one JSON line with what :func:`openrepro.claims.checks.llm_draft.draft_check_llm` sends for
the claim's text, unchanged: ``key``, ``prompt_version``, ``request_sha256``
(:func:`openrepro.llm.request_sha256` of the messages and the schema), ``system``, ``user`` and
``schema`` (the JSON schema the reply must satisfy). A recorder answers each line as the model
would (the JSON object only) and writes ``{"request_sha256": ..., "reply": ...}`` lines;
``bench/replay_llm.py`` serves them and ``bench/checks_recorded.py`` measures the drafter on them.

    .venv/bin/python bench/check_prompts.py CLAIMS.json [CLAIMS.json ...] --out /tmp/prompts.jsonl
        (--keys KEY ... | --keys-file KEYS.txt | --half fresh6) [--repairs-of REC.jsonl ...]
        [--prompt check-draft-v5]

``--prompt`` names the drafting prompt (default the current one,
:data:`~openrepro.claims.checks.llm_draft.PROMPT_VERSION`); each prompt has its own reply schema
(:data:`~openrepro.claims.checks.llm_draft.PROMPT_SCHEMAS`), so an older prompt's recordings are
re-run with its own requests.

With ``--repairs-of`` (a recording of the first round's answers) it writes the **repair round**
instead: it replays each recorded first answer through
:func:`~openrepro.claims.checks.llm_draft.check_from_llm` and, for each answer code refuses (not a
"none"), writes the follow-up :func:`~openrepro.claims.checks.llm_draft.draft_check_llm` sends
(:func:`~openrepro.claims.checks.llm_draft.repair_messages`): the same fields, plus ``round`` (2),
``first_reply`` (the recorded answer, as the assistant's message) and ``repair`` (the user's
follow-up, code's reason in it); ``request_sha256`` is the hash of all four messages and the
schema. The recorder answers these lines the same way, into a second recording file (or the same
one); the replay serves both rounds by hash. A key whose first answer is not recorded, or is not
valid for the schema, is named on stderr.

``CLAIMS.json`` is the claim list ``bench/checks_real.py`` reads (its texts carry no licence, so
the output is written outside this repository: a path inside it is refused). ``--half`` takes
the keys of the labelled split of that name, in the labels file's order; the labels themselves
are not written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from checks_real import LABELS, _texts
from openrepro.claims.checks.llm_draft import (
    PROMPT_SCHEMAS,
    PROMPT_VERSION,
    check_from_llm,
    draft_messages,
    draft_schema,
    refused,
    repair_messages,
)
from openrepro.llm import parse_json_reply, request_sha256
from replay_llm import Recording, load_recording

REPO = Path(__file__).resolve().parent.parent


def request_record(key: str, quote: str, prompt: str = PROMPT_VERSION) -> dict[str, Any]:
    """The line for one claim: the exact messages and schema of drafting prompt ``prompt``,
    and their hash."""
    messages = draft_messages(quote, prompt)
    schema = draft_schema(prompt).model_json_schema()
    system = next(m.content for m in messages if m.role == "system")
    user = next(m.content for m in messages if m.role == "user")
    return {
        "key": key,
        "prompt_version": prompt,
        "request_sha256": request_sha256(messages, schema),
        "system": system,
        "user": user,
        "schema": schema,
    }


def repair_record(
    key: str, quote: str, reply: str, prompt: str = PROMPT_VERSION
) -> dict[str, Any] | None:
    """The repair round's line for one claim whose first answer was ``reply`` (its text as
    recorded), or None when code takes that answer (a check, or "none"). A reply that is not
    valid for the schema is a ValueError (the client's own schema repair would answer it)."""
    try:
        answer = draft_schema(prompt).model_validate(parse_json_reply(reply))
    except ValidationError as exc:
        raise ValueError(f"not a valid draft: {exc.errors()[0]['msg']}") from exc
    draft = check_from_llm(answer, quote)
    if not refused(draft, answer):
        return None
    messages = repair_messages(quote, reply, draft.reason, prompt)
    schema = draft_schema(prompt).model_json_schema()
    return {
        "key": key,
        "prompt_version": prompt,
        "round": 2,
        "request_sha256": request_sha256(messages, schema),
        "system": messages[0].content,
        "user": messages[1].content,
        "first_reply": messages[2].content,
        "repair": messages[3].content,
        "schema": schema,
    }


def repair_records(
    texts: dict[str, str],
    keys: list[str],
    recordings: dict[str, Recording],
    prompt: str = PROMPT_VERSION,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The repair lines for ``keys`` from the recorded first answers, and the problems (a key
    with no recorded first answer, or one not valid for the schema)."""
    lines: list[dict[str, Any]] = []
    problems: list[str] = []
    for key in keys:
        first = request_record(key, texts[key], prompt)
        recorded = recordings.get(first["request_sha256"])
        if recorded is None:
            problems.append(f"{key}: the first answer is not recorded")
            continue
        try:
            line = repair_record(key, texts[key], recorded.reply, prompt)
        except ValueError as exc:
            problems.append(f"{key}: the recorded first answer is {exc}")
            continue
        if line is not None:
            lines.append(line)
    return lines, problems


def _half_keys(half: str) -> list[str]:
    keys = []
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            row = json.loads(line)
            if row["half"] == half:
                keys.append(row["claim"])
    return keys


def _outside_repo(path: Path) -> bool:
    return not path.resolve().is_relative_to(REPO)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("claims", type=Path, nargs="+", help="the claim list(s)")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL to write (outside)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--keys", nargs="+", help="claim keys, <paper id>/<index>")
    which.add_argument("--keys-file", type=Path, help="a file of claim keys, one a line")
    which.add_argument("--half", help="the keys of a labelled split (e.g. fresh6)")
    parser.add_argument("--repairs-of", type=Path, nargs="+",
                        help="a recording of the first answers: write the repair round's "
                        "requests for the answers code refuses")  # fmt: skip
    parser.add_argument("--prompt", choices=list(PROMPT_SCHEMAS), default=PROMPT_VERSION,
                        help=f"the drafting prompt (default {PROMPT_VERSION}; an older one "
                        "to re-run its recordings)")  # fmt: skip
    args = parser.parse_args(argv)
    if not _outside_repo(args.out):
        print(f"{args.out}: claim texts carry no licence; write outside the repository",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.keys:
        keys = list(args.keys)
    elif args.keys_file:
        keys = [k.strip() for k in args.keys_file.read_text("utf-8").splitlines() if k.strip()]
    else:
        keys = _half_keys(args.half)
    texts: dict[str, str] = {}
    for path in args.claims:
        texts.update(_texts(path))
    missing = [k for k in keys if k not in texts]
    for key in missing:
        print(f"left out: {key}: not in the claim files", file=sys.stderr)
    present = [k for k in dict.fromkeys(keys) if k in texts]
    what = "requests"
    if args.repairs_of:
        recordings: dict[str, Recording] = {}
        for path in args.repairs_of:
            recordings.update(load_recording(path))
        lines, problems = repair_records(texts, present, recordings, args.prompt)
        for problem in problems:
            print(f"left out: {problem}", file=sys.stderr)
        what = f"repair requests (of {len(present)} first answers)"
    else:
        lines = [request_record(k, texts[k], args.prompt) for k in present]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    print(f"{len(lines)} {what} ({PROMPT_VERSION}) written to {args.out}")
    return 1 if missing and not lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
