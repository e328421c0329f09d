"""A bundle's runs are its manifest's word: nothing recorded them on the participant's machine.

The attack: a bundle declaring two runs and the metrics the claim needs was judged ``verified``
(bundles get no cell checks). Now its values are ``testimony`` (``run_self_declared``: rule R2a
gives ``inconclusive``) until a replay in the sandbox re-runs the declared commands and matches;
then the verdict is ``verified`` at the level ``replayed``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cases import ensure_paper
from test_replay import _verdict

from openrepro.challenge import ChallengeContext
from openrepro.evidence.checks import stored_levels
from openrepro.logbooks.submit import submit_logbook
from openrepro.provenance import replay_logbook

KEY = "claims/p1/C1/accuracy"
SCRIPT = """
import sys, trackio
value, name = int(sys.argv[1]) / 10, sys.argv[2]  # computed, not spelled out
trackio.init(project="bundle-p1", name=name)
trackio.log({"claims/p1/C1/accuracy": value})
trackio.finish()
print(f"GLUE accuracy {value}")
"""


def _bundle(root: Path, values: dict[str, float]) -> Path:
    """A bundle for ``p1`` whose runs (one per seed) run ``train.py`` and log ``values``."""
    (root / "logs").mkdir(parents=True)
    (root / "train.py").write_text(SCRIPT, encoding="utf-8")
    runs, metrics = [], []
    for name, value in values.items():
        (root / "logs" / f"{name}.txt").write_text(f"GLUE accuracy {value}\n", encoding="utf-8")
        runs.append({"id": name, "command": ["python", "train.py", str(round(value * 10)), name],
                     "exit_code": 0, "duration_s": 2.0, "log": f"logs/{name}.txt",
                     "scripts": ["train.py"]})  # fmt: skip
        metrics.append({"run": name, "key": KEY, "step": 0, "value": value})
    manifest = {"openrepro_bundle": 1, "paper": "p1", "participant": "ada",
                "claims": ["p1/C1"], "runs": runs, "metrics": metrics}  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_bundle_is_inconclusive_until_a_replay_matches_its_runs(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    ensure_paper(challenge)
    root = _bundle(tmp_path / "bundle", {"seed0": 88.0, "seed1": 88.3})
    book = submit_logbook(challenge, root, handle="ada").logbook_id
    before = _verdict(challenge, book)
    # the same values from a Trackio logbook's recorded runs are verified (test_replay's honest
    # logbook): here only the manifest says the runs happened
    assert (before.verdict, before.provenance) == ("inconclusive", "testimony"), before.rationale
    assert "run_self_declared" in before.flags
    report = replay_logbook(challenge, book, claim="p1/C1", budget_seconds=120)
    assert [r.status for r in report.results] == ["matched", "matched"], report.results
    with challenge.store.session() as session:
        assert stored_levels(session, book).submitted_at is not None  # the server's time
    after = _verdict(challenge, book)  # the newer replay makes the judge look again
    assert (after.verdict, after.provenance) == ("verified", "replayed"), after.rationale
    assert "run_self_declared" not in after.flags
