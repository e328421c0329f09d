"""Randomized marking (the paper's Marker++) against Belady's offline optimum, swept over k.

Requests are drawn uniformly from k + 1 pages, the classic lower-bound sequence: the online
algorithm's miss ratio to the optimum grows like the harmonic number H_k ~ ln k. One Trackio
run per cache size k (a sweep point), logging the ratio under ``claims/<id>/<metric>`` and k
under ``claims/<id>/<sweep metric>``, as the claim's check asks.
"""

from __future__ import annotations

import argparse
import os
import random

import trackio


def belady_misses(requests: list[int], k: int, buggy: bool = False) -> int:
    """Misses of the offline optimum: evict the page requested furthest in the future."""
    nxt: list[int] = [0] * len(requests)
    last: dict[int, int] = {}
    for i in range(len(requests) - 1, -1, -1):
        nxt[i] = last.get(requests[i], len(requests))
        last[requests[i]] = i
    cache: dict[int, int] = {}  # page -> next use
    misses = 0
    for i, page in enumerate(requests):
        if page not in cache:
            misses += 1
            if len(cache) >= k:
                victims = sorted(cache, key=cache.__getitem__)
                # the buggy eviction indexes one past the end once the cache holds 16 pages
                del cache[victims[len(victims) if buggy and k >= 16 else -1]]
        cache[page] = nxt[i]
    return misses


def marking_misses(requests: list[int], k: int, rng: random.Random) -> int:
    """Misses of randomized marking: evict a uniformly random unmarked page."""
    cache: set[int] = set()
    marked: set[int] = set()
    misses = 0
    for page in requests:
        if page not in cache:
            misses += 1
            if len(cache) >= k:
                if not cache - marked:
                    marked.clear()  # a new phase
                cache.discard(rng.choice(sorted(cache - marked)))
            cache.add(page)
        marked.add(page)
    return misses


def main() -> None:
    parse = argparse.ArgumentParser(description="randomized marking vs Belady's optimum")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-paging/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="ratio", help="quantity of the claim's check")
    parse.add_argument("--sweep-metric", default="k", help="the check's swept variable")
    parse.add_argument("--ks", default="2,4,8,16,32,64", help="cache sizes, one run each")
    parse.add_argument("--seed", type=int, default=0)
    parse.add_argument("--buggy", action="store_true", help="(a participant's bug)")
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    rng = random.Random(args.seed)
    for k in (int(v) for v in args.ks.split(",")):
        requests = [rng.randrange(k + 1) for _ in range(1000 * k)]
        ratio = marking_misses(requests, k, rng) / belady_misses(requests, k, buggy=args.buggy)
        print(f"k={k:3d}  misses(marking)/misses(OPT) = {ratio:.3f}")
        trackio.init(project=args.project, name=f"k{k}-seed{args.seed}",
                     config={"k": k, "seed": args.seed})  # fmt: skip
        trackio.log({f"claims/{args.claim}/{args.metric}": round(ratio, 4),
                     f"claims/{args.claim}/{args.sweep_metric}": k})  # fmt: skip
        trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
