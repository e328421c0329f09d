"""Benchmark: the rule drafter on real ICML 2026 event claims, labelled by hand.

``bench/data/event_claim_labels.jsonl`` holds one label a line, keyed by where the claim text is
published (``repo``, ``path``, ``commit``, ``claim`` = ``<paper id>/<index in the paper's list,
0-based>``) and a ``sha256`` prefix of the text; the texts themselves carry no licence and are
not in this repository. The label says the relation, the relations one level down (``parts``),
the number of quantities, the constants as written and the direction, or ``"relation": null``
when no check should be drafted (a theorem, a description, a rate or a counted quantifier the
rules do not state). ``half`` splits the papers, each labelled before the rules saw it: the rules
were tuned on ``tune``, then on ``heldout`` and ``fresh`` once their untouched figures were
taken; ``fresh2`` was measured once, untouched, with the final rules (docs/checks.md); the
confidence gate's shapes were chosen on those four, and ``fresh3`` (16 papers, the first page of
the claim list) was labelled and committed before the gate was final, then measured once;
``fresh4`` (65 papers, 337 claims: every claim of each whole paper in characters 16,000 to
80,000 of the same file, none in an earlier split) was labelled and committed after the gate was
final and before any run, then measured once, gated and not (docs/checks.md); ``fresh5`` (155
papers, 774 claims: every claim of the whole papers from the one cut at character 80,000, left out
of ``fresh4``, to the last one ending before 240,000, none in an earlier split) was labelled and
committed before the rules' gate was changed in this session, unseen by any drafter run, and is
measured once afterwards; ``fresh6`` (44 papers, 213 claims: every claim of the whole papers that
follow the last ``fresh5`` paper, characters 239,602 to 295,511 of the same file, none in an
earlier split) was labelled by hand under prompt ``check-draft-v4``'s reading
(theorems with a numerical instance checked as rates, identities or orderings; counts and
dataset statistics as ``equal``; "up to N" as ``exists``; ranges as ``between``) and committed
before any drafter, rules or model, ran on it; ``fresh7`` (35 papers, 199 claims: every claim of
the whole papers that follow the last ``fresh6`` paper, characters 295,511 to 345,967 of the same
file, none in an earlier split) was labelled by hand the same way and committed before any
drafter ran on it; ``fresh8`` (36 papers, 196 claims: every claim of the whole papers that follow
the last ``fresh7`` paper, characters 345,967 to 395,494 of the same file, none in an earlier
split) was labelled by hand the same way and committed before any drafter ran on it; ``fresh9``
(35 papers, 181 claims: every claim of the whole papers that follow the last ``fresh8`` paper,
characters 395,494 to 442,570 of the same file, none in an earlier split) was labelled by hand
the same way and committed before any drafter ran on it; ``fresh10`` (35 papers, 195 claims: every
claim of the whole papers that follow the last ``fresh9`` paper, characters 442,570 to 490,285 of
the same file, none in an earlier split) was labelled by hand the same way and committed before
any drafter ran on it; ``fresh11`` (31 papers, 171 claims: every claim of the whole papers that
follow the last ``fresh10`` paper, characters 490,285 to 535,614 of the same file, none in an
earlier split) was labelled by hand the same way and committed before any drafter ran on it;
``fresh12`` (33 papers, 178 claims: every claim of the whole papers that follow the last
``fresh11`` paper, characters 535,614 to 580,277 of the same file, none in an earlier split) was
labelled by hand the same way and committed before any drafter ran on it.

Fetch step (outside CI, once): download the claim list the labels name, e.g.

    git clone https://github.com/kondratevakate/icml-2026-repro /tmp/icml-2026-repro
    git -C /tmp/icml-2026-repro checkout 59d671a8b148d6c7837dd6baf1ae1c6fce40fbcf
    .venv/bin/python bench/checks_real.py /tmp/icml-2026-repro/claims_anchored.json

The file is a JSON object ``{paper id: [{"text": ...}, ...]}``; an excerpt of it (some papers
only, same shape) or one shaped ``{paper id: {"<index>": text}}`` is read as well; several files
may be given (the pooled ``--half all`` needs every labelled paper's text). A text whose hash
differs from the label's is reported and left out. Scoring is
:func:`openrepro.claims.checks.eval.evaluate_drafter`'s.

    .venv/bin/python bench/checks_real.py CLAIMS.json [--half tune|...|all] [--cases] [--shapes]
        [--no-gate]

The drafter measured is the rules behind their confidence gate (``draft_check(gate=True)``);
``--no-gate`` measures the rules' reading whatever its shape, ``--shapes`` adds the per-shape
table (drafted and right without the gate, published and right with it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from openrepro.claims.checks import Check, Relation, confidence_gate, draft_check
from openrepro.claims.checks.eval import CheckLabel, evaluate_drafter, render_report

LABELS = Path(__file__).parent / "data" / "event_claim_labels.jsonl"
HALVES = [
    "tune",
    "heldout",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
    "fresh12",
]


def _texts(path: Path) -> dict[str, str]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for paper, claims in data.items():
        if isinstance(claims, list):
            for index, item in enumerate(claims):
                text = item.get("text") if isinstance(item, dict) else item
                if isinstance(text, str):
                    out[f"{paper}/{index}"] = text
        elif isinstance(claims, dict):
            for index, text in claims.items():
                if isinstance(text, str):
                    out[f"{paper}/{index}"] = text
    return out


def load(claims_files: list[Path], half: str = "all") -> tuple[list[CheckLabel], list[str]]:
    """The labels joined with their texts; the second list names labels left out and why."""
    texts: dict[str, str] = {}
    for claims_file in claims_files:
        texts.update(_texts(claims_file))
    labels: list[CheckLabel] = []
    missing: list[str] = []
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        row = json.loads(line)
        if half != "all" and row["half"] != half:
            continue
        text = texts.get(row["claim"])
        if text is None:
            missing.append(f"{row['claim']}: not in the claim files")
            continue
        if hashlib.sha256(text.encode("utf-8")).hexdigest()[: len(row["sha256"])] != row["sha256"]:
            missing.append(f"{row['claim']}: the text differs from the labelled one")
            continue
        labels.append(
            CheckLabel(
                id=row["claim"],
                source=f"{row['repo']}@{row['commit'][:12]}:{row['path']}",
                quote=text,
                relation=row["relation"],
                parts=row["parts"],
                quantities=row["quantities"],
                constants=row["constants"],
                direction=row["direction"],
                note=row.get("note", ""),
            )
        )
    return labels, missing


def shape_of(check: Check) -> str:
    """The shape of a drafted check: its relation, with the relations one level down."""
    if check.relation is Relation.all_of:
        inner = ",".join(sorted({p.relation.value for p in check.parts}))
        return f"all_of[{inner}]"
    if check.inner is not None:
        return f"{check.relation.value}[{check.inner.relation.value}]"
    return check.relation.value


def render_shapes(labels: list[CheckLabel]) -> str:
    """Per shape of the ungated reading: drafted, right (all four counts), and how many of them
    the confidence gate publishes."""
    rows: dict[str, list[int]] = {}
    report = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=False))
    for label, case in zip(labels, report.cases, strict=True):
        check = draft_check(label.quote, gate=False).check
        if check is None:
            continue
        row = rows.setdefault(shape_of(check), [0, 0, 0, 0])
        right = case.relation_ok and case.quantities_ok and case.constants_ok
        right = right and case.direction_ok
        kept = not confidence_gate(label.quote, check)
        row[0] += 1
        row[1] += right
        row[2] += kept
        row[3] += kept and right
    lines = ["  shape                          drafted  right  published  right"]
    for shape, (n, ok, kept, kept_ok) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {shape:30} {n:7} {ok:6} {kept:10} {kept_ok:6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "claims", type=Path, nargs="+", help="the fetched claim list(s) (see the docstring)"
    )
    parser.add_argument("--half", choices=[*HALVES, "all"], default="all")
    parser.add_argument("--cases", action="store_true", help="print every drafted check")
    parser.add_argument(
        "--no-gate",
        action="store_true",
        help="the rules' reading whatever its shape (without the confidence gate)",
    )
    parser.add_argument(
        "--shapes", action="store_true", help="per-shape precision of the ungated reading"
    )
    args = parser.parse_args(argv)
    gate = not args.no_gate
    for half in [*HALVES, "all"] if args.half == "all" else [args.half]:
        labels, missing = load(args.claims, half)
        for problem in missing:
            print(f"left out: {problem}", file=sys.stderr)
        if not labels:
            print(f"{half}: no labels could be joined with a text", file=sys.stderr)
            if args.half == "all":
                continue
            return 1
        name = f"rules/{half}" + ("" if gate else " (no gate)")
        report = evaluate_drafter(labels, lambda quote: draft_check(quote, gate=gate), name=name)
        print(render_report(report))
        if args.shapes:
            print(render_shapes(labels))
        if args.cases and half == (args.half if args.half != "all" else "all"):
            for case in report.cases:
                if case.drafted == "none":
                    print(f"  {case.id:16} gold {case.gold:11} -- {case.reason}")
                    continue
                flags = "".join(
                    letter if ok else "-"
                    for letter, ok in zip(
                        "RQCD",
                        (
                            case.relation_ok,
                            case.quantities_ok,
                            case.constants_ok,
                            case.direction_ok,
                        ),
                        strict=True,
                    )
                )
                print(f"  {case.id:16} gold {case.gold:11} [{flags}] {case.description}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
