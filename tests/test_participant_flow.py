"""The participant path end to end: pull a paper, reproduce with the real Trackio CLI, submit.

Nothing is simulated: the workspace comes from `pull`, the logbook is written by `trackio
logbook run` and `trackio.log`, and `submit` reads it back into the store.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.logbooks.service import list_logbooks, load_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

TRAIN = """
import trackio
trackio.init(project="repro-p1", name="seed0", config={"seed": 0})
for step, value in enumerate([0.85, 0.87, 0.881]):
    trackio.log({"claims/p1/C1/accuracy": value}, step=step)
trackio.finish()
with open("results.csv", "w") as f:
    f.write("seed,accuracy\\n0,0.881\\n")
print("final accuracy 0.881")
"""


def _trackio(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRACKIO_DIR": str(workspace / ".trackio"), "HOME": str(workspace),
           "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}  # fmt: skip
    cli = Path(sys.executable).parent / "trackio"
    return subprocess.run([str(cli), *args], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def test_pull_reproduce_with_trackio_and_submit(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    abstract = "On GLUE, the method reaches 88.1 average accuracy with a 350M-parameter backbone."
    record = PaperRecord(venue_id="p1", title="Sparse", abstract=abstract)
    import_papers(challenge.store, challenge.challenge_id, [record], source="t")
    with challenge.store.session() as s:
        add_claim(s, challenge.challenge_id, "p1", text="88.1 on GLUE.", kind="result",
                  quotes=["reaches 88.1 average accuracy"], editor="org",
                  drafting="rules")  # fmt: skip
    workspace = tmp_path / "ws"
    pulled = pull_paper(challenge, "p1", workspace)
    page = pulled.pages["p1/C1"]

    (workspace / "train.py").write_text(TRAIN, encoding="utf-8")
    ok = _trackio(workspace, "logbook", "run", "--page", page, "--", sys.executable, "train.py")
    assert ok.returncode == 0, ok.stderr
    failed = _trackio(workspace, "logbook", "run", "--page", page, "--", sys.executable, "-c",
                      "import sys; print('out of memory'); sys.exit(3)")  # fmt: skip
    assert failed.returncode != 0 or "exit 3" in failed.stdout + failed.stderr
    note = _trackio(workspace, "logbook", "cell", "markdown", "Claim p1/C1: verified!",
                    "--page", page)  # fmt: skip
    assert note.returncode == 0, note.stderr

    report = submit_logbook(challenge, workspace, handle="ada")
    assert (report.status, report.paper_id, report.format) == ("new", "p1", "trackio")
    assert report.warnings == []
    with challenge.store.session() as s:
        (summary,) = list_logbooks(s, challenge.challenge_id)
        stored = load_logbook(s, challenge.challenge_id, summary.id)
    assert [r.exit_code for r in stored.runs] == [0, 3]
    first = stored.runs[0]
    assert first.duration_s is not None and first.duration_s > 0
    assert "final accuracy 0.881" in first.output
    assert "trackio.log" in first.scripts["train.py"]
    (produced,) = first.produced
    assert produced.path == "results.csv"
    assert produced.sha256 == hashlib.sha256((workspace / "results.csv").read_bytes()).hexdigest()
    assert "out of memory" in stored.runs[1].output
    values = [(m.key, m.step, m.value) for m in stored.metrics]
    assert values == [("claims/p1/C1/accuracy", 0, 0.85), ("claims/p1/C1/accuracy", 1, 0.87),
                      ("claims/p1/C1/accuracy", 2, 0.881)]  # fmt: skip
    assert "p1/C1" in stored.claims
    assert any("verified" in t.text for t in stored.testimony)
    assert submit_logbook(challenge, workspace, handle="ada").status == "unchanged"
