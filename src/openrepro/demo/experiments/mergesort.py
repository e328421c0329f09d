"""Comparisons made by top-down merge sort, divided by n log2 n, on random permutations.

One Trackio run per (n, seed), n = 2^10, 2^12, ... 2^max: a sweep over n with several seeds at
each point, logging the ratio under ``claims/<id>/<metric>`` and n under
``claims/<id>/<sweep metric>``.
"""

from __future__ import annotations

import argparse
import math
import os
import random

import trackio


def merge_sort(items: list[int], counter: list[int]) -> list[int]:
    if len(items) <= 1:
        return items
    mid = len(items) // 2
    left, right = merge_sort(items[:mid], counter), merge_sort(items[mid:], counter)
    out: list[int] = []
    i = j = 0
    while i < len(left) and j < len(right):
        counter[0] += 1
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def main() -> None:
    parse = argparse.ArgumentParser(description="merge sort comparisons / (n log2 n)")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-mergesort/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="ratio", help="quantity of the claim's check")
    parse.add_argument("--sweep-metric", default="n", help="the check's swept variable")
    parse.add_argument("--max-log2", type=int, default=16)
    parse.add_argument("--seeds", type=int, default=3)
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    for p in range(10, args.max_log2 + 1, 2):
        n = 2**p
        for seed in range(args.seeds):
            items = list(range(n))
            random.Random(seed * 1000 + p).shuffle(items)
            counter = [0]
            assert merge_sort(items, counter) == sorted(items)
            ratio = counter[0] / (n * math.log2(n))
            print(f"n={n} (2^{p}), seed {seed}: {counter[0]} comparisons = {ratio:.4f} n log2 n")
            trackio.init(project=args.project, name=f"n{n}-seed{seed}",
                         config={"n": n, "seed": seed})  # fmt: skip
            trackio.log({f"claims/{args.claim}/{args.metric}": round(ratio, 4),
                         f"claims/{args.claim}/{args.sweep_metric}": n})  # fmt: skip
            trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
