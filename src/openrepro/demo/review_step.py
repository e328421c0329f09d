"""The demo's human-judged claim: a perceptual claim decided by a scripted reviewer who answers
a blinded review task in real Chromium, through the review server, with answers in the store.

:func:`run_review_step` adds one fictional paper ("images stay visually usable under 2-bit
quantization"; the rules draft its ``human`` check, rule H1), registers a participant whose
recorded Trackio run saves the 2-bit images (an ``.npy`` array of 20 grey images), makes the
review task from that run's output, and registers an organizer as the reviewer. The review page
is served on 127.0.0.1 (uvicorn in a thread) and Chromium, driven by Playwright, plays the
reviewer: for each item it reads the shown image's pixels in the page and presses ``u``
(usable) when its mean brightness is at least :data:`USABLE_BRIGHTNESS`, else ``n``. The judge
then decides the claim from the stored answers (``verified`` at the ``reviewed`` level when the
organizer's answers clear the bar with confidence).

Without Chromium or Playwright the step says so (``skipped``) and still judges the claim, which
stays ``inconclusive`` (rule H0: nobody answered).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import BaseModel, Field

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.service import redraft_checks
from openrepro.evidence.reviews import stored_reviews
from openrepro.identity.service import register
from openrepro.intake import submit
from openrepro.judge.service import judge_logbooks
from openrepro.papers import PaperRecord, import_papers
from openrepro.review import StoredAnswerLog, create_stored_task, load_task, schedule
from openrepro.review.server import create_app
from openrepro.workspace import pull_paper

__all__ = [
    "CHROMIUM_ENV",
    "USABLE_BRIGHTNESS",
    "ReviewStepReport",
    "chromium_path",
    "run_review_step",
]

CHROMIUM_ENV = "OPENREPRO_TEST_CHROMIUM"
USABLE_BRIGHTNESS = 60
PAPER = "demo-quant"
PARTICIPANT = "eve"
REVIEWER = "org-reviewer"
QUOTE = "the images generated under 2-bit quantization stay visually usable"
IMAGES = 20
_MAKE_IMAGES = """
import numpy as np
from pathlib import Path
Path("outputs").mkdir(exist_ok=True)
images = np.stack([np.full((16, 16), 90 + 4 * i, dtype=np.uint8) for i in range(20)])
np.save("outputs/int2.npy", images)
print("saved", len(images), "2-bit images")
"""
_LOOK = """(threshold) => {
  const img = document.getElementById('left');
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) { sum += data[i]; }
  return sum / (data.length / 4) >= threshold ? 'u' : 'n';
}"""


class ReviewStepReport(BaseModel):
    claim: str
    task: str = ""
    items: int = 0
    answered: int = 0
    browser: str = ""  # the Chromium that answered, "" when skipped
    skipped: str = ""  # why no browser answered
    verdict: str = ""
    rule: str = ""
    provenance: str = ""
    flags: list[str] = Field(default_factory=list)
    seconds: float = 0.0


def chromium_path() -> str:
    """Debian's Chromium (the path ``scripts/chromium.sh`` exports, else on PATH), or ""."""
    found = os.environ.get(CHROMIUM_ENV) or shutil.which("chromium")
    return found or shutil.which("chromium-browser") or ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _record_run(ctx: ChallengeContext, ws: Path) -> int:
    page = pull_paper(ctx, PAPER, ws).pages[f"{PAPER}/C1"]
    (ws / "make_images.py").write_text(_MAKE_IMAGES, encoding="utf-8")
    cli = Path(sys.executable).parent / "trackio"
    env = {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    subprocess.run(
        [str(cli) if cli.exists() else "trackio", "logbook", "run", "--page", page, "--",
         sys.executable, "make_images.py"],
        cwd=ws, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return submit(ctx, ws, PARTICIPANT).logbook_id


def _answer_in_chromium(app: Any, chromium: str, slots: int) -> int:
    """Serve ``app`` on 127.0.0.1 and answer every slot in Chromium; the number answered."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    playwright = importlib.import_module("playwright.sync_api")
    answered = 0
    try:
        with playwright.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            for done in range(slots):
                page.wait_for_function(
                    "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)"
                )
                page.keyboard.press(page.evaluate(_LOOK, USABLE_BRIGHTNESS))
                page.wait_for_function(
                    "t => document.getElementById('progress').textContent.startsWith(t)",
                    arg=f"{done + 1} / {slots}",
                )
                answered += 1
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return answered


def run_review_step(ctx: ChallengeContext, work: Path) -> ReviewStepReport:
    """The demo's perceptual claim, decided by a scripted reviewer (module docstring)."""
    started = time.perf_counter()
    record = PaperRecord(venue_id=PAPER, title="Two-bit diffusion, fictional",
                         abstract=f"We find that {QUOTE}.")  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id, [record], source="demo")
    with ctx.store.session() as session:
        view = add_claim(session, ctx.challenge_id, PAPER, text="2-bit images stay usable.",
                         kind="qualitative", quotes=[QUOTE], editor="organizer")  # fmt: skip
        if view.check is None:  # the gate leaves human judgements to a person: the organizer
            redraft_checks(session, ctx.challenge_id, [view.id], editor="organizer",
                           drafting="rules", reason="the organizer reviewed the rules' "
                           "human-judgement reading")  # fmt: skip
    register(ctx, PARTICIPANT, name="quantizer: shows images, cannot judge them herself")
    register(ctx, REVIEWER, role="organizer", name="reviews perceptual claims")
    logbook = _record_run(ctx, work / PARTICIPANT / PAPER)
    made = create_stored_task(ctx, view.id, logbook, work / "review" / PAPER,
                              pattern="outputs/int2.npy", reviewers=[REVIEWER], seed=1,
                              repeat_share=0.2)  # fmt: skip
    report = ReviewStepReport(claim=view.id, task=made.name, items=made.items)
    chromium = chromium_path()
    if not chromium or importlib.util.find_spec("playwright") is None:
        report.skipped = "Chromium or Playwright is not available: nobody answered the task"
    else:
        task = load_task(Path(made.folder))
        app = create_app(task.folder, REVIEWER, StoredAnswerLog(ctx, task, REVIEWER))
        _answer_in_chromium(app, chromium, len(schedule(task, REVIEWER)))
        report.browser = chromium
    judged = judge_logbooks(ctx, None, logbook_ids=[logbook])
    row = next(r for r in judged.verdicts if r.claim_id == view.id)
    with ctx.store.session() as session:
        stored = stored_reviews(session, logbook)
    report.answered = sum(len(r.answers) for r in stored.values())
    report.verdict, report.rule, report.provenance = row.verdict, row.rule, row.provenance
    report.flags = list(row.flags)
    report.seconds = round(time.perf_counter() - started, 2)
    return report
