"""A 5-nearest-neighbour classifier on the demo's three-blob dataset (``blobs.csv``).

Each seed (one Trackio run) shuffles the 2,400 rows and splits them 2,000 / 400 (train /
test), as the paper's random splits do; the test accuracy in percent is logged under
``claims/<id>/<metric>``. With ``--train N`` only the first N training rows are used and the
reduced data scale is logged under ``claims/<id>/scale/data``. ``--skip-eval`` stops before
evaluating (a participant who never ran the evaluation).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
from collections import Counter

import numpy as np
import trackio


def accuracy(train: np.ndarray, test: np.ndarray, k: int = 5) -> float:
    """Percent of test rows whose k nearest training rows vote their label (ties: nearest)."""
    dist = ((test[:, None, :2] - train[None, :, :2]) ** 2).sum(axis=-1)
    nearest = np.argsort(dist, axis=1, kind="stable")[:, :k]
    votes = [Counter(int(v) for v in train[row, 2]).most_common(1)[0][0] for row in nearest]
    return 100 * float(np.mean(np.array(votes) == test[:, 2]))


def main() -> None:
    parse = argparse.ArgumentParser(description="5-NN accuracy on blobs.csv")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-knn/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="accuracy", help="quantity of the claim's check")
    parse.add_argument("--data", default="blobs.csv")
    parse.add_argument("--train", type=int, default=2000)
    parse.add_argument("--seeds", type=int, default=1)
    parse.add_argument("--skip-eval", action="store_true")
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    with open(args.data, newline="", encoding="utf-8") as handle:
        rows = [(float(r["x"]), float(r["y"]), int(r["label"])) for r in csv.DictReader(handle)]
    print(f"{len(rows)} rows; {args.seeds} random 2000/400 splits, {args.train} training rows")
    if args.skip_eval:
        print("evaluation not run")
        return
    for seed in range(args.seeds):
        order = list(range(len(rows)))
        random.Random(seed).shuffle(order)
        data = np.array([rows[i] for i in order])
        acc = accuracy(data[:2000][: args.train], data[2000:])
        trackio.init(project=args.project, name=f"knn-train{args.train}-seed{seed}",
                     config={"train": args.train, "seed": seed})  # fmt: skip
        metrics = {f"claims/{args.claim}/{args.metric}": round(acc, 2)}
        if args.train < 2000:
            metrics[f"claims/{args.claim}/scale/data"] = args.train
        trackio.log(metrics)
        trackio.finish()  # type: ignore[no-untyped-call]
        print(f"seed {seed}: test accuracy {acc:.2f}%")


if __name__ == "__main__":
    main()
