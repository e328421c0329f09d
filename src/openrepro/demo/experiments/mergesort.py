"""Comparisons made by top-down merge sort, divided by n log2 n, on random permutations.

Logs ``claims/<id>/ratio`` for n = 2^10 ... 2^max (the step is log2 n), the largest n last.
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
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-sort/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--max-log2", type=int, default=16)
    parse.add_argument("--seed", type=int, default=0)
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    rng = random.Random(args.seed)
    trackio.init(project=args.project, name=f"mergesort-seed{args.seed}")
    for p in range(10, args.max_log2 + 1, 2):
        n = 2**p
        items = list(range(n))
        rng.shuffle(items)
        counter = [0]
        assert merge_sort(items, counter) == sorted(items)
        ratio = counter[0] / (n * math.log2(n))
        print(f"n=2^{p}: {counter[0]} comparisons = {ratio:.4f} n log2 n")
        trackio.log({f"claims/{args.claim}/ratio": round(ratio, 4)}, step=p)
    trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
