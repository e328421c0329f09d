"""Linear probing at load factor 0.5: average probes of a successful lookup.

Inserts m/2 random keys into a table of m slots, then looks every key up in batches. Logs
``claims/<id>/<metric>`` (the check's quantity). With ``--per-batch`` it logs the probes of a
whole batch under the same key (a participant's normalisation mistake) and
``lookup/batch_size``.
"""

from __future__ import annotations

import argparse
import os
import random

import trackio


def probes(table: list[int | None], key: int) -> int:
    m, i, count = len(table), hash(key) % len(table), 1
    while table[i] is not None and table[i] != key:
        i, count = (i + 1) % m, count + 1
    return count


def main() -> None:
    parse = argparse.ArgumentParser(description="linear probing: probes per lookup")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-hashing/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="probes_per_lookup", help="the check's quantity")
    parse.add_argument("--log2-slots", type=int, default=16)
    parse.add_argument("--batch-size", type=int, default=64)
    parse.add_argument("--per-batch", action="store_true")
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    rng = random.Random(0)
    m = 2**args.log2_slots
    keys = rng.sample(range(1 << 40), m // 2)
    table: list[int | None] = [None] * m
    for key in keys:
        i = hash(key) % m
        while table[i] is not None:
            i = (i + 1) % m
        table[i] = key
    batches = [keys[i : i + args.batch_size] for i in range(0, len(keys), args.batch_size)]
    per_batch = [sum(probes(table, k) for k in batch) for batch in batches]
    per_lookup = sum(per_batch) / len(keys)
    trackio.init(project=args.project, name="probing", config={"slots": m, "keys": len(keys)})
    if args.per_batch:
        value = sum(per_batch) / len(batches)
        trackio.log({f"claims/{args.claim}/{args.metric}": round(value, 3),
                     "lookup/batch_size": args.batch_size})  # fmt: skip
        print(f"{value:.2f} probes per lookup call (load factor 0.5)")
    else:
        trackio.log({f"claims/{args.claim}/{args.metric}": round(per_lookup, 4)})
        print(f"{per_lookup:.4f} probes per lookup (load factor 0.5)")
    trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
