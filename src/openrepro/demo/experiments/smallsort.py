"""Insertion sort against merge sort on short lists, counting element operations.

Per seed (one Trackio run each), random lists of n keys are sorted by both algorithms; each
algorithm's speed, in lists sorted per 1,000 element operations (comparisons + moves), is
logged under the claim's two quantities: ``claims/<id>/<metric>`` (insertion sort) and
``claims/<id>/<baseline metric>`` (merge sort), so the judge has the seeds of both.
"""

from __future__ import annotations

import argparse
import os
import random

import trackio


def insertion_ops(items: list[int]) -> int:
    a, ops = list(items), 0
    for i in range(1, len(a)):
        key, j = a[i], i - 1
        while j >= 0:
            ops += 1  # comparison
            if a[j] <= key:
                break
            a[j + 1] = a[j]
            ops += 1  # move
            j -= 1
        a[j + 1] = key
        ops += 1  # move
    return ops


def merge_ops(items: list[int]) -> int:
    if len(items) <= 1:
        return 0
    mid = len(items) // 2
    left, right = sorted(items[:mid]), sorted(items[mid:])
    ops = merge_ops(items[:mid]) + merge_ops(items[mid:])
    i = j = 0
    while i < len(left) and j < len(right):
        ops += 1  # comparison
        if left[i] <= right[j]:
            i += 1
        else:
            j += 1
    return ops + len(items)  # every key is moved into the merged list


def main() -> None:
    parse = argparse.ArgumentParser(description="insertion sort vs merge sort")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-smallsort/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="insertion", help="insertion sort's quantity")
    parse.add_argument("--baseline-metric", default="merge", help="merge sort's quantity")
    parse.add_argument("--n", type=int, default=5)
    parse.add_argument("--lists", type=int, default=200)
    parse.add_argument("--seeds", type=int, default=3)
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    for seed in range(args.seeds):
        rng = random.Random(seed)
        lists = [rng.sample(range(10 * args.n), args.n) for _ in range(args.lists)]
        merge = sum(merge_ops(x) for x in lists)
        insertion = sum(insertion_ops(x) for x in lists)
        trackio.init(project=args.project, name=f"n{args.n}-seed{seed}",
                     config={"n": args.n, "lists": args.lists, "seed": seed})  # fmt: skip
        per_1000 = {args.metric: 1000 * args.lists / insertion,
                    args.baseline_metric: 1000 * args.lists / merge}  # fmt: skip
        trackio.log({f"claims/{args.claim}/{k}": round(v, 4) for k, v in per_1000.items()})
        trackio.finish()  # type: ignore[no-untyped-call]
        print(f"seed {seed}, n={args.n}: merge sort {merge / args.lists:.1f} ops, insertion sort "
              f"{insertion / args.lists:.1f} ops per list: {merge / insertion:.3f}x")  # fmt: skip


if __name__ == "__main__":
    main()
