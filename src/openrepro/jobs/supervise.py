"""``python -m openrepro.jobs.supervise CHALLENGE_DIR JOB_ID``: the local job supervisor.

Started detached by ``openrepro jobs run`` (see :mod:`openrepro.jobs.local`); not for people.
"""

from __future__ import annotations

import sys
from pathlib import Path

from openrepro.challenge import open_challenge
from openrepro.jobs.local import supervise

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m openrepro.jobs.supervise CHALLENGE_DIR JOB_ID", file=sys.stderr)
        return 2
    ctx = open_challenge(Path(args[0]), migrate=False)
    try:
        return supervise(ctx, int(args[1]))
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
