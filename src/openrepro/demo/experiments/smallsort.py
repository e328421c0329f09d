"""Element operations (comparisons + moves) of insertion sort vs merge sort on lists of n keys.

Logs ``claims/<id>/speedup`` = operations(merge sort) / operations(insertion sort), averaged
over random lists.
"""

from __future__ import annotations

import argparse
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
    parse.add_argument("--n", type=int, default=8)
    parse.add_argument("--lists", type=int, default=200)
    args = parse.parse_args()
    rng = random.Random(0)
    lists = [rng.sample(range(10 * args.n), args.n) for _ in range(args.lists)]
    merge = sum(merge_ops(x) for x in lists)
    insertion = sum(insertion_ops(x) for x in lists)
    trackio.init(project=args.project, name=f"n{args.n}", config={"n": args.n})
    trackio.log({f"claims/{args.claim}/speedup": round(merge / insertion, 3), "sort/n": args.n})
    trackio.finish()  # type: ignore[no-untyped-call]
    print(
        f"n={args.n}: merge sort {merge / args.lists:.1f} ops, insertion sort "
        f"{insertion / args.lists:.1f} ops per list: speed-up {merge / insertion:.3f}x"
    )


if __name__ == "__main__":
    main()
