"""`replay --all --jobs`: each logbook's replay runs as a local job through the jobs backend
(its own supervisor, priced in the credit ledger) and stores its results in the sandbox's
terms, as the single-process replay does (a real local job: about 5 s)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.jobs import balance, wait_job
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.provenance.replay import REPLAY_ACCOUNT, replay_as_jobs
from openrepro.store.tables_provenance import Replay

# the values are computed (1 / 2), not spelled out: a replay of a literal is not_computed
SCRIPT = "open('out.csv', 'w').write(f'seed,acc\\n0,{1 / 2}\\n')\nprint('acc', 1 / 2)\n"


def _bundle(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "make.py").write_text(SCRIPT, encoding="utf-8")
    (root / "out.csv").write_text("seed,acc\n0,0.5\n", encoding="utf-8")
    (root / "make.txt").write_text("acc 0.5\n", encoding="utf-8")
    manifest = {
        "openrepro_bundle": 1, "paper": "p1", "participant": "ada", "claims": ["p1/C1"],
        "runs": [{"id": "make", "command": ["python", "make.py"], "exit_code": 0,
                  "log": "make.txt", "scripts": ["make.py"], "produced": ["out.csv"]}],
    }  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_replays_run_as_priced_local_jobs(challenge: ChallengeContext, tmp_path: Path) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    book = submit_logbook(challenge, _bundle(tmp_path / "b")).logbook_id
    [job] = replay_as_jobs(challenge, budget_per_logbook=60)
    assert job.backend == "local" and job.command[-6:-4] == ["replay", str(book)]
    done = wait_job(challenge, job.id, timeout_s=120)
    assert done.status == "completed", done.error
    with challenge.store.session() as session:
        [row] = session.scalars(select(Replay).where(Replay.logbook_id == book)).all()
        assert (row.status, row.level) == ("matched", "replayed")
        assert set(row.details["files_reproduced"]) == {"out.csv"}
    account = balance(challenge, REPLAY_ACCOUNT)  # the job was priced and settled
    assert (account.participant, account.reserved_usd) == (REPLAY_ACCOUNT, 0.0)
    assert account.available_usd == account.budget_usd + account.granted_usd - account.spent_usd
