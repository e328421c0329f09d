"""Minimum-norm least squares on noisy linear data, swept over the training-set size.

y = x . w + noise in ``--dim`` dimensions (x standard normal, |w| = 1, noise sd 0.5); for each
training-set size n (one Trackio run each) the minimum-norm solution (``numpy.linalg.pinv``)
is fitted and its mean squared test error on 2,000 fresh points logged under
``claims/<id>/<metric>``, with n under ``claims/<id>/<sweep metric>``. Near n = dim the
solution interpolates the noise and the test error spikes (double descent).
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import trackio


def main() -> None:
    parse = argparse.ArgumentParser(description="minimum-norm least squares: test error vs n")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-lstsq/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--metric", default="test_error", help="quantity of the claim's check")
    parse.add_argument("--sweep-metric", default="n", help="the check's swept variable")
    parse.add_argument("--dim", type=int, default=50)
    parse.add_argument("--sizes", default="25,40,50,60,100")
    parse.add_argument("--seed", type=int, default=0)
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    rng = np.random.default_rng(args.seed)
    w = rng.normal(size=args.dim)
    w /= np.linalg.norm(w)
    for n in (int(v) for v in args.sizes.split(",")):
        x = rng.normal(size=(n, args.dim))
        y = x @ w + 0.5 * rng.normal(size=n)
        fitted = np.linalg.pinv(x) @ y
        x_test = rng.normal(size=(2000, args.dim))
        y_test = x_test @ w + 0.5 * rng.normal(size=2000)
        error = float(np.mean((x_test @ fitted - y_test) ** 2))
        print(f"n={n:4d}: test error {error:.3f}")
        trackio.init(project=args.project, name=f"n{n}-seed{args.seed}",
                     config={"n": n, "dim": args.dim, "seed": args.seed})  # fmt: skip
        trackio.log({f"claims/{args.claim}/{args.metric}": round(error, 4),
                     f"claims/{args.claim}/{args.sweep_metric}": n})  # fmt: skip
        trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
