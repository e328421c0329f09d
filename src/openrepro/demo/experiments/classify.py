"""A 5-nearest-neighbour classifier on the demo's three-blob dataset (``blobs.csv``).

The first 2,000 rows train, the last 400 test. Logs ``claims/<id>/accuracy`` in percent; with
``--train N`` only the first N training rows are used and the reduced data scale is logged
under ``claims/<id>/scale/data``. ``--skip-eval`` stops before evaluating (a participant who
never ran the evaluation).
"""

from __future__ import annotations

import argparse
import csv
import os
from collections import Counter

import trackio


def main() -> None:
    parse = argparse.ArgumentParser(description="5-NN accuracy on blobs.csv")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-knn/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--data", default="blobs.csv")
    parse.add_argument("--train", type=int, default=2000)
    parse.add_argument("--skip-eval", action="store_true")
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    with open(args.data, newline="", encoding="utf-8") as handle:
        rows = [(float(r["x"]), float(r["y"]), int(r["label"])) for r in csv.DictReader(handle)]
    train, test = rows[:2000][: args.train], rows[2000:]
    print(f"{len(train)} training rows, {len(test)} test rows")
    if args.skip_eval:
        print("evaluation not run")
        return
    correct = 0
    for x, y, label in test:
        near = sorted(train, key=lambda r: (r[0] - x) ** 2 + (r[1] - y) ** 2)[:5]
        vote = Counter(r[2] for r in near).most_common(1)[0][0]
        correct += vote == label
    accuracy = 100 * correct / len(test)
    trackio.init(project=args.project, name=f"knn-train{len(train)}")
    metrics = {f"claims/{args.claim}/accuracy": round(accuracy, 2)}
    if args.train < 2000:
        metrics[f"claims/{args.claim}/scale/data"] = len(train)
    trackio.log(metrics)
    trackio.finish()  # type: ignore[no-untyped-call]
    print(f"test accuracy: {accuracy:.2f}%")


if __name__ == "__main__":
    main()
