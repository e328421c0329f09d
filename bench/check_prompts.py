"""Dump the exact requests the model path sends for claims, to record a capable model's answers.

For each claim key (``<paper id>/<index>``, as in ``bench/data/event_claim_labels.jsonl``) this
writes one JSON line with what :func:`openrepro.claims.checks.llm_draft.draft_check_llm` sends for
the claim's text, unchanged: ``key``, ``prompt_version``, ``request_sha256``
(:func:`openrepro.llm.request_sha256` of the messages and the schema), ``system``, ``user`` and
``schema`` (the JSON schema the reply must satisfy). A recorder answers each line as the model
would (the JSON object only) and writes ``{"request_sha256": ..., "reply": ...}`` lines;
``bench/replay_llm.py`` serves them and ``bench/checks_recorded.py`` measures the drafter on them.

    .venv/bin/python bench/check_prompts.py CLAIMS.json [CLAIMS.json ...] --out /tmp/prompts.jsonl
        (--keys KEY ... | --keys-file KEYS.txt | --half fresh6)

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

from checks_real import LABELS, _texts
from openrepro.claims.checks.llm_draft import PROMPT_VERSION, LLMCheckDraft, draft_messages
from openrepro.llm import request_sha256

REPO = Path(__file__).resolve().parent.parent


def request_record(key: str, quote: str) -> dict[str, Any]:
    """The line for one claim: the exact messages and schema, and their hash."""
    messages = draft_messages(quote)
    schema = LLMCheckDraft.model_json_schema()
    system = next(m.content for m in messages if m.role == "system")
    user = next(m.content for m in messages if m.role == "user")
    return {
        "key": key,
        "prompt_version": PROMPT_VERSION,
        "request_sha256": request_sha256(messages, schema),
        "system": system,
        "user": user,
        "schema": schema,
    }


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
    lines = [request_record(k, texts[k]) for k in dict.fromkeys(keys) if k in texts]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    print(f"{len(lines)} requests ({PROMPT_VERSION}) written to {args.out}")
    return 1 if missing and not lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
