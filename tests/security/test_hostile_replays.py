"""Hostile participants, round 3: replays and runs (docs/security.md).

A replay runs the participant's code. It must not touch the organizer's files afterwards
(links planted in its folder), read the host, fork or write without bound, vouch for numbers
the code only prints or copies, stop ``replay --all`` with one odd logbook, or take a
hand-written file for one a run produced. Real Trackio logbooks (the trackio CLI) and the real
bubblewrap sandbox (``source scripts/bubblewrap.sh``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cases import ensure_paper
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.evidence.checks import stored_levels
from openrepro.logbooks.linking import run_writes
from openrepro.logbooks.records import LogbookRecord, Run
from openrepro.logbooks.service import load_logbook
from openrepro.logbooks.submit import submit_logbook
from openrepro.provenance import (
    SandboxLimits,
    replay_all,
    replay_logbook,
    replay_run,
    run_sandboxed,
    sandbox_problem,
)
from openrepro.store.tables_provenance import Replay
from openrepro.workspace import pull_paper

TRACKIO = str(Path(sys.executable).parent / "trackio")
ALLOW_NO_SANDBOX = "OPENREPRO_TEST_ALLOW_NO_SANDBOX"


@pytest.fixture(autouse=True)
def _need_sandbox() -> None:
    problem = sandbox_problem()
    if problem is not None:
        if os.environ.get(ALLOW_NO_SANDBOX) == "1":
            pytest.skip(problem)
        pytest.fail(f"{problem} (or set {ALLOW_NO_SANDBOX}=1 to skip the sandbox tests)")


def _call(ws: Path, *args: str) -> str:
    env = {**os.environ, "TRACKIO_DIR": str(ws / ".trackio"), "HOME": str(ws),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    done = subprocess.run(list(args), cwd=ws, env=env, capture_output=True, text=True,
                          timeout=180, check=False)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _workspace(ctx: ChallengeContext, ws: Path) -> str:
    ensure_paper(ctx)
    return pull_paper(ctx, "p1", ws).pages["p1/C1"]


def _record(ctx: ChallengeContext, logbook_id: int) -> LogbookRecord:
    with ctx.store.session() as session:
        return load_logbook(session, ctx.challenge_id, logbook_id)


# --- finding 3: links planted in the replay's folder ------------------------------------------

PLANT = """
import os, sys
victim = sys.argv[1]
trackio_dir = os.environ["TRACKIO_DIR"]
# every path openrepro touched after a replay, a link into the organizer's folder
os.makedirs(".replay-logbook/.trackio/logbook", exist_ok=True)
os.symlink(victim + "/openrepro.toml", ".replay-logbook/.trackio/logbook/logbook.json")
os.symlink(victim + "/pages", ".replay-logbook/.trackio/logbook/pages")
os.makedirs("results", exist_ok=True)
os.symlink(victim + "/store.db", "results/out.csv")
os.remove("notes.csv")
os.symlink(victim + "/notes.csv", "notes.csv")
os.symlink(victim, "linked-folder")
import shutil
shutil.rmtree(trackio_dir, ignore_errors=True)
os.symlink(victim, trackio_dir)
print("planted")
"""


def test_links_planted_by_a_replay_are_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "challenge"
    (victim / "pages").mkdir(parents=True)
    files = {"openrepro.toml": "database_url = 'sqlite:///store.db'\n",
             "store.db": "the challenge's database\n", "notes.csv": "seed,acc\n0,0.5\n",
             "pages/index.md": "# the organizer's page\n"}  # fmt: skip
    for name, text in files.items():
        (victim / name).write_text(text, encoding="utf-8")
    store = tmp_path / "store"
    store.mkdir()
    (store / "notes.csv").write_text("seed,acc\n0,0.5\n", encoding="utf-8")
    from openrepro.logbooks.records import FileRef

    notes = FileRef(path="notes.csv", sha256="0" * 64, size=15)
    out = FileRef(path="results/out.csv", sha256="1" * 64, size=25)
    run = Run(id="plant", command=["python", "plant.py", str(victim)], exit_code=0,
              scripts={"plant.py": PLANT}, output="planted\n", produced=[out])  # fmt: skip
    record = LogbookRecord(format="trackio", format_version="2", runs=[run], files=[notes, out])
    located = {"notes.csv": store / "notes.csv", "results/out.csv": victim / "store.db"}
    result = replay_run(record, run, lambda ref: located.get(ref.path), timeout_s=60,
                        memory_mb=1024)  # fmt: skip
    assert "planted" in result.details["output_tail"], result.details
    for name, text in files.items():
        assert (victim / name).read_text(encoding="utf-8") == text, name
    assert sorted(p.name for p in victim.iterdir()) == ["notes.csv", "openrepro.toml", "pages",
                                                         "store.db"]  # fmt: skip
    assert [p.name for p in (victim / "pages").iterdir()] == ["index.md"]
    # a link is no file the replay wrote: the produced file is missing, nothing is reproduced
    assert result.status == "mismatched", result.details
    assert result.details["files_reproduced"] == {}
    assert "the challenge's database" not in json.dumps(result.details)


# --- finding 7 and 8: the sandbox reads the host, forks and writes without bound -------------

PROBE = """
import os, sys
for path in ("/etc/shadow", sys.argv[1], sys.argv[2]):
    try:
        open(path).read()
        print("read:", path)
    except OSError as exc:
        print("denied:", path, type(exc).__name__)
try:
    mounts = open("/proc/self/mountinfo").read()
except OSError:
    mounts = ""
print("mountinfo names the challenge:", sys.argv[3] in mounts)
print("uid:", os.getuid(), os.geteuid())
"""


def test_the_sandbox_does_not_read_the_host(tmp_path: Path) -> None:
    hidden = tmp_path / "challenge"
    hidden.mkdir()
    elsewhere = Path(__file__).resolve()  # a world-readable file no run needs
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work)}
    code, output, _ = run_sandboxed(
        [sys.executable, "-c", PROBE, str(elsewhere), "/etc/passwd", str(hidden)], work, env,
        SandboxLimits(wall_s=60), hide=[hidden],
    )  # fmt: skip
    assert code == 0, output
    assert "denied: /etc/shadow" in output, output
    assert f"denied: {elsewhere}" in output, output
    assert "read: /etc/passwd" in output  # what programs need is still there
    assert "mountinfo names the challenge: False" in output, output
    if os.geteuid() == 0:  # the organizer is root: the run is not
        assert "uid: 65534 65534" in output, output


FORK = """
import os, time
children = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    children += 1
print("children:", children)
"""

FILL = """
import os
written = 0
try:
    for i in range(48):
        with open(f"fill{i}.bin", "wb") as out:
            out.write(b"0" * (1024 * 1024))
        written += 1
except OSError as exc:
    print("stopped:", type(exc).__name__)
print("written MiB:", written)
"""


def test_the_sandbox_bounds_processes_and_disk(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work)}
    _, output, _ = run_sandboxed([sys.executable, "-c", FORK], work, env,
                                    SandboxLimits(wall_s=60, processes=20))  # fmt: skip
    children = int(output.split("children:")[1].split()[0])
    assert children < 40, output
    _, output, _ = run_sandboxed([sys.executable, "-c", FILL], work, env,
                                    SandboxLimits(wall_s=60, disk_mb=8))  # fmt: skip
    on_disk = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    assert on_disk <= 9 * 1024 * 1024, (on_disk, output)
    assert "stopped:" in output, output


# --- finding 4: a replay vouches for literals -------------------------------------------------

COMPUTE = """
import random, sys
seed = int(sys.argv[sys.argv.index("--seed") + 1])
rng = random.Random(seed)
scores = [88.0 + rng.random() for _ in range(200)]
print(f"RESULT seed={seed} accuracy={sum(scores) / len(scores):.4f}")
"""

IGNORES_SEED = """
import sys
base = sum(range(10))  # computed, but the seed plays no part
print(f"RESULT seed=0 accuracy={base * 2 + 5.0:.1f}")
"""


def test_a_replay_of_literals_or_copies_is_not_computed(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    ws = tmp_path / "literal"
    slug = _workspace(challenge, ws)
    (ws / "backup.csv").write_text("seed,accuracy\n0,95.0\n1,95.2\n", encoding="utf-8")
    (ws / "compute.py").write_text(COMPUTE, encoding="utf-8")
    (ws / "fixed.py").write_text(IGNORES_SEED, encoding="utf-8")
    run = (TRACKIO, "logbook", "run", "--page", slug, "--")
    _call(ws, *run, "printf", "RESULT seed=0 accuracy=95.0\\n")
    _call(ws, *run, "bash", "-c", "cat backup.csv > results.csv")
    _call(ws, *run, sys.executable, "fixed.py", "--seed", "0")
    _call(ws, *run, sys.executable, "compute.py", "--seed", "0")
    book = submit_logbook(challenge, ws, handle="literal").logbook_id
    report = replay_logbook(challenge, book, budget_seconds=240)
    by_command = {" ".join(r.details.get("command", [])): r for r in report.results}
    statuses = {cmd.rsplit("/", 1)[-1]: (r.status, r.level) for cmd, r in by_command.items()}
    printf = next(r for c, r in by_command.items() if c.startswith("printf"))
    copy = next(r for c, r in by_command.items() if "cat backup.csv" in c)
    fixed = next(r for c, r in by_command.items() if "fixed.py" in c)
    honest = next(r for c, r in by_command.items() if "compute.py" in c)
    assert (printf.status, printf.level) == ("not_computed", "self-recorded"), statuses
    assert (copy.status, copy.level) == ("not_computed", "self-recorded"), copy.details
    assert (fixed.status, fixed.level) == ("not_computed", "self-recorded"), fixed.details
    assert "fresh seed" in fixed.details["not_computed"]
    assert (honest.status, honest.level) == ("matched", "replayed"), honest.details
    with challenge.store.session() as session:
        levels = stored_levels(session, book)
        stored = {row.run_id: row.status for row in session.scalars(select(Replay))}
    assert stored[printf.run_id] == "not_computed"
    assert levels.runs.get(printf.run_id) is None or levels.runs[printf.run_id].level != "replayed"
    assert levels.runs[honest.run_id].level == "replayed"
    assert "results.csv" not in levels.files


# --- finding 9: one logbook aborts replay --all ------------------------------------------------


def test_one_odd_logbook_does_not_stop_replay_all(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    odd = tmp_path / "odd"
    slug = _workspace(challenge, odd)
    (odd / "x.py").write_text("print('hello 1.5')\n", encoding="utf-8")
    _call(odd, TRACKIO, "logbook", "run", "--page", slug, "--", sys.executable, "x.py")
    page = next((odd / ".trackio" / "logbook" / "pages").rglob("page.md"))
    text = page.read_text(encoding="utf-8")
    assert "title=x.py" in text
    page.write_text(text.replace("title=x.py", "title=claims.json/x.py"), encoding="utf-8")
    assert (odd / "claims.json").is_file()  # a stored file of the logbook
    odd_book = submit_logbook(challenge, odd, handle="odd").logbook_id
    fine = tmp_path / "fine"
    slug = _workspace(challenge, fine)
    (fine / "y.py").write_text("print('value', 6 * 0.25)\n", encoding="utf-8")
    _call(fine, TRACKIO, "logbook", "run", "--page", slug, "--", sys.executable, "y.py")
    fine_book = submit_logbook(challenge, fine, handle="fine").logbook_id
    reports = {r.logbook_id: r for r in replay_all(challenge, budget_per_logbook=60)}
    assert set(reports) == {odd_book, fine_book}
    [odd_result] = reports[odd_book].results
    assert odd_result.status == "failed", odd_result.details
    assert "claims.json" in odd_result.details["problem"]
    assert [r.status for r in reports[fine_book].results] == ["matched"]


# --- finding 10: a hand-written file counts as produced ---------------------------------------


def test_redirects_are_read_from_shell_words() -> None:
    def files(*command: str) -> set[str]:
        return run_writes(Run(id="r", command=list(command)))[0]

    assert files("bash", "-c", "echo '>summary.csv'") == set()
    assert files("bash", "-c", "echo hi > out.txt") == {"out.txt"}
    assert files("bash", "-c", "python x.py >> log.csv 2>err.txt") == {"log.csv", "err.txt"}
    assert files("bash", "-c", "python x.py | tee -a runs.csv") == {"runs.csv"}
    assert files("bash", "-c", "echo 'a | tee b.csv'") == set()
    assert files("echo", ">summary.csv") == set()  # no shell: the word is printed


def test_a_hand_written_file_is_not_a_runs_product(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    ws = tmp_path / "hand"
    slug = _workspace(challenge, ws)
    run = (TRACKIO, "logbook", "run", "--page", slug, "--")
    _call(ws, *run, sys.executable, "-c", 'print("evaluating")', "--out", "results.csv")
    _call(ws, *run, "bash", "-c", "echo '>summary.csv'")
    time.sleep(2.5)  # past the runs' windows and their slack
    (ws / "results.csv").write_text("seed,accuracy\n0,88.1\n", encoding="utf-8")
    (ws / "summary.csv").write_text("seed,accuracy\n0,88.1\n", encoding="utf-8")
    book = submit_logbook(challenge, ws, handle="hand").logbook_id
    record = _record(challenge, book)
    produced = {ref.path for r in record.runs for ref in r.produced}
    assert "results.csv" not in produced and "summary.csv" not in produced
    # the redirect word is quoted: inside the echo's window the file is still not its product
    [echo] = [r for r in record.runs if r.command[:1] == ["bash"]]
    assert "summary.csv" not in run_writes(echo)[0]
