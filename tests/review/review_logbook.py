"""A real Trackio logbook whose recorded run produced the images a review task shows: the run
(``trackio logbook run -- python make_images.py N DARK``) saves ``outputs/full.npy`` and
``outputs/int2.npy`` (``N`` grey 16x16 images each; Trackio records ``.npy`` outputs of a run as
its produced files), so that a scripted reviewer can answer from what it sees
(:func:`review_images.brightness_of`): image ``i`` of int2 is dark (brightness < 60, "not
usable") when ``DARK`` > 0 and ``i % DARK == 0``, else as bright as the full one minus 10."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from openrepro.challenge import ChallengeContext
from openrepro.logbooks.submit import submit_logbook
from openrepro.workspace import pull_paper

__all__ = ["MAKE_IMAGES", "USABLE_BRIGHTNESS", "image_logbook", "trackio"]

#: a scripted reviewer calls an image usable when its brightness is at least this
USABLE_BRIGHTNESS = 60
MAKE_IMAGES = """
import sys
from pathlib import Path
import numpy as np
count, dark = int(sys.argv[1]), int(sys.argv[2])
full = np.stack([np.full((16, 16), 100 + 3 * i, dtype=np.uint8) for i in range(count)])
int2 = np.stack([np.full((16, 16), 20 if dark and i % dark == 0 else 90 + 3 * i, dtype=np.uint8)
                 for i in range(count)])
Path("outputs").mkdir(exist_ok=True)
np.save("outputs/full.npy", full)
np.save("outputs/int2.npy", int2)
print("saved", count, "images per side")
"""


def trackio(ws: Path, *args: str) -> None:
    """The real trackio CLI in a workspace (its own TRACKIO_DIR and HOME, offline)."""
    env = {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    cli = Path(sys.executable).parent / "trackio"
    done = subprocess.run([str(cli), *args], cwd=ws, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr


def image_logbook(
    ctx: ChallengeContext,
    tmp: Path,
    handle: str,
    *,
    paper: str,
    claim: str,
    count: int,
    dark: int = 0,
) -> int:
    """Pull ``paper``, record one run that makes ``count`` image pairs (every ``dark``-th 2-bit
    image unusable), submit as ``handle``; the logbook id."""
    ws = tmp / handle
    pages = pull_paper(ctx, paper, ws).pages
    (ws / "make_images.py").write_text(MAKE_IMAGES)
    trackio(ws, "logbook", "run", "--page", pages[claim], "--", sys.executable,
            "make_images.py", str(count), str(dark))  # fmt: skip
    return submit_logbook(ctx, ws, handle=handle).logbook_id
