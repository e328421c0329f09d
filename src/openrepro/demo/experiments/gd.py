"""Gradient descent with step 1/L on the convex quadratic f(x) = 1/2 sum_i lam_i x_i^2.

The eigenvalues lam_i are spread evenly over [1, 100] (condition number 100), x0 is all ones.
Logs ``claims/<id>/loss`` after every step; the last step is the one the claim reports.
"""

from __future__ import annotations

import argparse
import os

import trackio


def main() -> None:
    parse = argparse.ArgumentParser(description="gradient descent on a convex quadratic")
    parse.add_argument("--claim", required=True, help="claim id, e.g. demo-gd/C1")
    parse.add_argument("--project", required=True, help="Trackio project")
    parse.add_argument("--dim", type=int, default=20)
    parse.add_argument("--steps", type=int, default=50)
    args = parse.parse_args()
    if os.environ.get("OPENREPRO_JOB_ID"):
        print(f"compute job: {os.environ['OPENREPRO_JOB_ID']}")
    lam = [1 + 99 * i / (args.dim - 1) for i in range(args.dim)]
    step = 1 / max(lam)
    x = [1.0] * args.dim
    trackio.init(project=args.project, name="gd", config={"dim": args.dim, "step": step})
    loss = 0.0
    for t in range(1, args.steps + 1):
        x = [xi - step * li * xi for xi, li in zip(x, lam, strict=True)]
        loss = 0.5 * sum(li * xi * xi for xi, li in zip(x, lam, strict=True))
        trackio.log({f"claims/{args.claim}/loss": round(loss, 6)}, step=t)
    print(f"loss after {args.steps} steps: {loss:.4f}")
    trackio.finish()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
