"""Run the openrepro CLI in forked child processes, without paying its imports each time.

``python cli_forkserver.py`` imports :mod:`openrepro.cli` and every command's module once (what
``python -m openrepro`` imports by the time it runs a command, and scipy.stats, which the judge
imports when it first evaluates), then reads one JSON request per line on stdin:
``{"args": [...], "env": {...}, "stderr": "path"}``, optionally with ``"environ"`` (the child's
whole environment instead of the server's updated by ``env``), ``"cwd"`` and ``"stdout"`` (a
path; else ``/dev/null``). For each it forks a child that runs the ``openrepro`` module as
``__main__`` with those arguments, as ``python -m openrepro`` does (``sys.argv``,
``sys.path[0]`` the working folder, stdin ``/dev/null``; exit code and traceback of an unexpected
error as the interpreter's; threads waited for, atexit handlers run, output flushed, but no
teardown of the imported modules), and answers ``{"pid": N}`` at once, then
``{"status": S}`` (the ``waitpid`` status) when the child ends. The caller may SIGKILL the child
at any moment: the child is a real process with its own database connections, killed as
abruptly as any other.

Used by the crash-safety tests (forty kills per database would spend a minute importing) and by
the CLI tests' :class:`ForkServer` (``tests/cli/test_cli.py``'s ``run``): starting
``python -m openrepro`` costs ~2 s of imports on the CI machine.

A forked child sees the environment it is given, but modules imported by the server read theirs
at import time (``huggingface_hub`` its ``HF_*`` settings, the board its connection limits): the
client forks only for an environment that differs from the server's in openrepro's own settings,
which are read when a command runs, and starts a real process otherwise.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Read by a module at import time, not by the settings when a command runs (board/server.py).
IMPORT_TIME_SETTINGS = ("OPENREPRO_MAX_CONNECTIONS",)
# Read by nothing the server imports: pytest names the running test in it.
IGNORED = frozenset({"PYTEST_CURRENT_TEST"})
# Imported lazily by nearly every command (the store's migrations): once, by the server.
PRELOADED = ("alembic.command", "alembic.runtime.migration", "scipy.stats")


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m openrepro <args>``; never returns."""
    stdin = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request.get("stdout") or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(stdin, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    code: int = 1
    try:
        if "environ" in request:
            os.environ.clear()
            os.environ.update(request["environ"])
        os.environ.update(request.get("env", {}))
        if request.get("cwd"):
            os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as `python -m` puts it
        sys.argv = ["openrepro", *request["args"]]
        runpy.run_module("openrepro", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:  # what the interpreter makes of it
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()  # as an uncaught error's, exit 1
    finally:
        # The interpreter's exit but for tearing down the imported modules, which in a forked
        # child copies most of the heap (~0.8 s): wait for threads, run atexit, flush, exit.
        try:
            threading._shutdown()  # type: ignore[attr-defined]
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve() -> None:
    import importlib

    import typer.core
    import typer.main

    import openrepro.cli

    # The imports, done once; the children share them. The command line imports a command's
    # module only when the command runs: load every one here, as the forked children would.
    root = typer.main.get_command(openrepro.cli.app)
    assert isinstance(root, typer.core.TyperGroup)
    ctx = root.make_context("openrepro", [], resilient_parsing=True)
    for command in root.list_commands(ctx):
        root.get_command(ctx, command)
    for name in PRELOADED:
        importlib.import_module(name)

    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": status}), flush=True)


class ForkServer:
    """A started server and its client side: :meth:`run` is ``subprocess.run([python, -m,
    openrepro, *args], capture_output=True, text=True, timeout=...)`` in a forked child."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        self._lock = threading.Lock()
        self._folder = tempfile.TemporaryDirectory(prefix="cli-forkserver-")
        self._process = subprocess.Popen([sys.executable, __file__], env=self.environ,
                                         text=True, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE)  # fmt: skip

    def can_run(self, environ: Mapping[str, str]) -> bool:
        """Whether a child of this server sees what a fresh process with ``environ`` would."""

        def imported(env: Mapping[str, str]) -> dict[str, str]:
            return {
                k: v
                for k, v in env.items()
                if k not in IGNORED
                and (not k.startswith("OPENREPRO_") or k.startswith(IMPORT_TIME_SETTINGS))
            }

        return self._process.poll() is None and imported(environ) == imported(self.environ)

    def run(
        self, args: list[str], cwd: Path, environ: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        with self._lock:
            out = Path(self._folder.name) / "stdout"
            err = Path(self._folder.name) / "stderr"
            request = {"args": args, "environ": dict(environ), "cwd": str(cwd),
                       "stdout": str(out), "stderr": str(err)}  # fmt: skip
            assert self._process.stdin is not None and self._process.stdout is not None
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            pid = json.loads(self._process.stdout.readline())["pid"]
            expired = threading.Event()

            def kill() -> None:
                expired.set()
                os.kill(pid, 9)

            timer = threading.Timer(timeout, kill)
            timer.start()
            try:
                status = json.loads(self._process.stdout.readline())["status"]
            finally:
                timer.cancel()
            command = [sys.executable, "-m", "openrepro", *args]
            stdout, stderr = out.read_text(), err.read_text()  # text=True: locale, newlines
            if expired.is_set():
                raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
            return subprocess.CompletedProcess(
                command, os.waitstatus_to_exitcode(status), stdout, stderr
            )

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)
        self._folder.cleanup()


if __name__ == "__main__":
    serve()
