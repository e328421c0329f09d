"""Real Trackio logbooks for the organizer workflows, made with the helpers of
``tests/judge/cases.py`` (the trackio CLI, run once per session; each test submits the folders
to its own challenge).

* paper ``rl1``, claim ``C1`` (efficiency): "Sampling takes 0.12 s per trajectory". Participant
  ``ada`` times a whole batch of 50 trajectories and logs it as the per-trajectory time (6.0 s),
  with ``rollout/batch_size = 50`` in the same run, and writes that the claim is falsified: a
  planted **false falsification** (per-trajectory vs per-batch-of-50 timing). The judge says
  falsified (6.0 vs 0.12); the re-check's code must name the normalisation problem.
* paper ``p1`` (the judge's labelled paper), claim ``C1`` (88.1 GLUE accuracy): participant
  ``falsified-1`` measures 71 on three seeds: a genuine falsification, to be confirmed.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.claims.checks import Check, Constant, Direction, Quantity, Relation
from openrepro.claims.service import set_check
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

__all__ = ["RL_ABSTRACT", "build_workspaces", "cases", "load_scenario"]

RL_ABSTRACT = (
    "Our sampler generates one trajectory in 0.12 s per trajectory on a single A100, "
    "an 8x speed-up over the baseline sampler."
)


def _load_cases() -> ModuleType:
    path = Path(__file__).parent / "judge" / "cases.py"
    spec = importlib.util.spec_from_file_location("judge_cases_for_organizer", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cases = _load_cases()


def _import_rl(ctx: ChallengeContext) -> None:
    record = PaperRecord(venue_id="rl1", title="Fast Rollouts", abstract=RL_ABSTRACT,
                         authors=["Ada Author <ada@example.org>", "Bo Author"])  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id, [record], source="t")
    with ctx.store.session() as s:
        view = add_claim(s, ctx.challenge_id, "rl1", text="Sampling takes 0.12 s per "
                         "trajectory.", kind="efficiency", quotes=["0.12 s per trajectory"],
                         editor="org", drafting="rules")  # fmt: skip
        if view.check is None:  # the rules draft none for this phrasing: the organizer does
            check = Check(
                relation=Relation.equal,
                subject="seconds_per_trajectory",
                quantities=[Quantity(name="seconds_per_trajectory", unit="s")],
                constant=Constant(value=0.12, text="0.12 s"),
                direction=Direction.lower,
            )
            set_check(s, ctx.challenge_id, view.id, check, editor="org", reason="curated")


def load_scenario(ctx: ChallengeContext) -> None:
    """The papers and claims of the scenario (same venue ids and keys in every challenge)."""
    cases.ensure_paper(ctx)
    _import_rl(ctx)


def build_workspaces(root: Path) -> dict[str, Path]:
    """Make the logbooks with the trackio CLI in a scratch challenge; handle -> folder."""
    ctx = init_challenge(root / "scratch", "scratch")
    try:
        load_scenario(ctx)
        ada = root / "ada"
        page = pull_paper(ctx, "rl1", ada).pages["rl1/C1"]
        (ada / "train.py").write_text(cases.TRAIN, encoding="utf-8")
        trackio = str(Path(sys.executable).parent / "trackio")
        cases._call(ada, trackio, "logbook", "run", "--page", page, "--", sys.executable,
                    "train.py", "6.0", "0", "rollout/batch_size=50",
                    "claims/rl1/C1/seconds_per_trajectory")  # fmt: skip
        cases._call(ada, trackio, "logbook", "cell", "markdown",
                    "Claim rl1/C1: falsified, sampling is 50x slower than the paper says.",
                    "--page", page)  # fmt: skip
        bad = next(c for c in cases.CASES if c.name == "falsified-1")
        folder = root / bad.name
        page = pull_paper(ctx, "p1", folder).pages["p1/C1"]
        cases._play(bad, folder, page)
    finally:
        ctx.close()
    shutil.rmtree(root / "scratch")
    return {"ada": ada, "falsified-1": folder}


def submit_all(ctx: ChallengeContext, workspaces: dict[str, Path]) -> None:
    load_scenario(ctx)
    for handle, folder in workspaces.items():
        submit_logbook(ctx, folder, handle=handle)
