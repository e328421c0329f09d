"""The replay sandbox (bubblewrap): a replayed run cannot read the organizer's home, write
outside its folder or reach the network; an honest run still replays.

These tests need ``bwrap`` (scripts/test.sh installs Debian's ``bubblewrap``); without it they
fail, unless ``OPENREPRO_TEST_ALLOW_NO_SANDBOX=1``, where they are skipped.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from openrepro.logbooks.records import FileRef, LogbookRecord, Run
from openrepro.provenance import SandboxLimits, replay_run, run_sandboxed, sandbox_problem
from openrepro.provenance.replay import compare_outputs, diagnose, file_differs

ALLOW_NO_SANDBOX = "OPENREPRO_TEST_ALLOW_NO_SANDBOX"

ATTACK = """
import socket, sys
secret, outside, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    print("home:", open(secret).read())
except OSError as exc:
    print("home: denied", type(exc).__name__)
try:
    open(outside, "w").write("escaped")
    print("write: done")
except OSError as exc:
    print("write: denied", type(exc).__name__)
try:
    socket.create_connection(("127.0.0.1", port), timeout=3).sendall(b"hello")
    print("socket: connected")
except OSError as exc:
    print("socket: denied", type(exc).__name__)
open("inside.txt", "w").write("mine")
print("done")
"""


@pytest.fixture(autouse=True)
def _need_sandbox() -> None:
    problem = sandbox_problem()
    if problem is not None:
        if os.environ.get(ALLOW_NO_SANDBOX) == "1":
            pytest.skip(problem)
        pytest.fail(f"{problem} (or set {ALLOW_NO_SANDBOX}=1 to skip the sandbox tests)")


@pytest.fixture
def secret() -> Iterator[Path]:
    """A file planted in the organizer's real home folder (removed afterwards)."""
    path = Path.home() / f".openrepro-test-secret-{uuid.uuid4().hex}"
    path.write_text("organizer's token", encoding="utf-8")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


@pytest.fixture
def server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1: ``(port, what it received)``."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                received.append(conn.recv(100) or b"(connected)")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], received
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def test_a_replay_cannot_read_home_write_outside_or_connect(
    secret: Path, server: tuple[int, list[bytes]], tmp_path: Path
) -> None:
    port, received = server
    outside = tmp_path / "escaped.txt"
    # the logbook records the honest-looking output; the replay shows what really happens
    run = Run(id="r1", command=["python", "attack.py", str(secret), str(outside), str(port)],
              exit_code=0, scripts={"attack.py": ATTACK}, output="done\n")  # fmt: skip
    record = LogbookRecord(format="trackio", format_version="2", runs=[run])
    result = replay_run(record, run, lambda ref: None, timeout_s=60, memory_mb=1024)
    output = result.details["output_tail"]
    assert "home: denied" in output, output
    assert "organizer's token" not in output
    assert "write: denied" in output and not outside.exists()
    assert "socket: denied" in output and received == []
    assert result.status == "matched"  # it printed "done", wrote its own file and exited 0
    assert secret.read_text(encoding="utf-8") == "organizer's token"


def test_the_sandbox_hides_the_named_folders_and_keeps_its_own(tmp_path: Path) -> None:
    hidden = tmp_path / "challenge"
    hidden.mkdir()
    (hidden / "store.db").write_text("rows", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    probe = (
        "import os, sys; print(sorted(os.listdir(sys.argv[1])) if os.path.exists(sys.argv[1]) "
        "else []); "
        "open('kept.txt', 'w').write('x'); print(open('/etc/hostname').read() != '')"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "HOME": str(work)}
    code, output, _ = run_sandboxed([sys.executable, "-c", probe, str(hidden)], work, env,
                                    SandboxLimits(wall_s=60), hide=[hidden])  # fmt: skip
    assert code == 0, output
    assert "[]" in output  # the challenge's folder is not there inside
    assert (work / "kept.txt").read_text(encoding="utf-8") == "x"
    assert (hidden / "store.db").read_text(encoding="utf-8") == "rows"


def test_limits_stop_a_runaway(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin")}
    code, _, seconds = run_sandboxed(["sleep", "30"], work, env, SandboxLimits(wall_s=1))
    assert code is None and seconds < 10  # the wall clock killed it
    big = "open('big', 'wb').write(b'0' * (3 * 1024 * 1024))"
    code, output, _ = run_sandboxed([sys.executable, "-c", big], work, env,
                                    SandboxLimits(wall_s=60, file_mb=1))  # fmt: skip
    assert code != 0  # SIGXFSZ or an error: no 3 MiB file
    assert not (work / "big").exists() or (work / "big").stat().st_size <= 1024 * 1024
    hog = "x = bytearray(900 * 1024 * 1024)"
    code, output, _ = run_sandboxed([sys.executable, "-c", hog], work, env,
                                    SandboxLimits(wall_s=60, memory_mb=300))  # fmt: skip
    assert code != 0 and "MemoryError" in output


def test_a_replay_that_needs_what_the_sandbox_lacks_says_why(tmp_path: Path) -> None:
    gpu = Run(id="g", command=["python", "train.py", "--device", "cuda"], exit_code=0)
    kind, why = diagnose(gpu, "") or ("", "")
    assert kind == "gpu" and "asks for one" in why
    data = Run(id="d", command=["python", "-c", "open('data/train.bin')"], exit_code=0)
    record = LogbookRecord(format="trackio", format_version="2", runs=[gpu, data])
    skipped = replay_run(record, gpu, lambda ref: None, timeout_s=30, memory_mb=512)
    assert (skipped.status, skipped.details["cannot_replay"]) == ("skipped", "gpu")
    failed = replay_run(record, data, lambda ref: None, timeout_s=30, memory_mb=512)
    assert failed.status == "failed"
    assert failed.details["cannot_replay"] == "data"
    assert "data/train.bin" in failed.details["problem"]
    net = "import urllib.request; urllib.request.urlopen('http://example.org', timeout=5)"
    web = Run(id="n", command=["python", "-c", net], exit_code=0)
    failed = replay_run(record, web, lambda ref: None, timeout_s=30, memory_mb=512)
    assert (failed.status, failed.details["cannot_replay"]) == ("failed", "network")


def test_file_comparison_tolerates_float_noise(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_text("seed,acc\n0,0.8731\n1,0.8702\n", encoding="utf-8")
    b.write_text("seed,acc\n0,0.87310001\n1,0.8702\n", encoding="utf-8")
    c.write_text("seed,acc\n0,0.61\n1,0.8702\n", encoding="utf-8")
    assert file_differs(a, a, 1e-6) is None
    assert file_differs(a, b, 1e-6) is None
    assert file_differs(a, c, 1e-6) is not None


def test_produced_files_must_be_written_again(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    recorded = store / "results.csv"
    recorded.write_text("seed,acc\n0,0.5\n", encoding="utf-8")
    ref = FileRef(path="results/out.csv", sha256=hashlib.sha256(recorded.read_bytes()).hexdigest(),
                  size=recorded.stat().st_size)  # fmt: skip
    writes = "import os; os.makedirs('results', exist_ok=True); " \
             "open('results/out.csv', 'w').write('seed,acc\\n0,%%s\\n' %% (%s))"  # fmt: skip
    honest = Run(id="h", command=["python", "-c", writes % "1 / 2"], exit_code=0, produced=[ref])
    lazy = Run(id="l", command=["python", "-c", "pass"], exit_code=0, produced=[ref])
    other = Run(id="o", command=["python", "-c", writes % "9 / 10"], exit_code=0, produced=[ref])
    record = LogbookRecord(format="trackio", format_version="2", runs=[honest, lazy, other],
                           files=[ref])  # fmt: skip
    locate = {ref.path: recorded}.get

    def replay(run: Run) -> tuple[str, dict[str, object]]:
        result = replay_run(record, run, lambda r: locate(r.path), timeout_s=30, memory_mb=512)
        return result.status, result.details

    status, details = replay(honest)
    assert status == "matched" and details["files_reproduced"] == {ref.path: ref.sha256}
    status, details = replay(lazy)  # the recorded file is not in its working copy
    assert status == "mismatched" and "was not written" in str(details["file_problems"])
    status, details = replay(other)
    assert status == "mismatched" and details["files_reproduced"] == {}


def test_a_run_replays_with_the_participants_code(tmp_path: Path) -> None:
    """A run cell records the command, not always the code: ``code`` supplies a checkout."""
    code = tmp_path / "repo"
    (code / "src").mkdir(parents=True)
    (code / "src" / "verify.py").write_text("print(f'bound holds: {1 / 4} <= {1 / 2}')\n", "utf-8")
    (code / ".git").mkdir()
    (code / ".git" / "config").write_text("secret\n", encoding="utf-8")
    run = Run(id="v", command=["python", "src/verify.py"], exit_code=0,
              output="bound holds: 0.25 <= 0.5\n")  # fmt: skip
    record = LogbookRecord(format="trackio", format_version="2", runs=[run])
    alone = replay_run(record, run, lambda ref: None, timeout_s=30, memory_mb=512)
    assert (alone.status, alone.details["cannot_replay"]) == ("failed", "data")
    assert alone.details["problem"].endswith("src/verify.py")
    with_code = replay_run(record, run, lambda ref: None, timeout_s=30, memory_mb=512,
                           code=code)  # fmt: skip
    assert with_code.status == "matched", with_code.details


def test_trackios_own_messages_are_not_compared() -> None:
    recorded = "* Trackio metrics logged to the local Trackio cache.\ntrackio show --project r\n"
    assert compare_outputs(recorded + "acc 0.5\n", "acc 0.5\n", 1e-6) == []
    assert compare_outputs(recorded + "acc 0.5\n", "acc 0.7\n", 1e-6) == ["acc 0.5"]
