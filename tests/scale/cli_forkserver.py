"""Run the openrepro CLI in forked child processes, without paying its imports each time.

``python cli_forkserver.py`` imports :mod:`openrepro.cli` once, then reads one JSON request per
line on stdin: ``{"args": [...], "env": {...}, "stderr": "path"}``. For each it forks a child
that runs the CLI's entry point (:func:`openrepro.cli.main`, what ``python -m openrepro`` runs)
with those arguments, and answers ``{"pid": N}`` at once, then ``{"status": S}`` (the
``waitpid`` status) when the child ends. The caller may SIGKILL the child at any moment: the
child is a real process with its own database connections, killed as abruptly as any other.

Used by the crash-safety tests: starting ``python -m openrepro`` costs ~1.5 s of imports, and
forty kills per database would spend a minute doing nothing else.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

import openrepro.cli
import openrepro.cli.claims
import openrepro.cli.judge

PRELOADED = (openrepro.cli.claims, openrepro.cli.judge)  # the commands' imports, done once


def _child(args: list[str], env: dict[str, str], stderr: str) -> None:
    code = 1
    try:
        err = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        out = os.open(os.devnull, os.O_WRONLY)
        os.dup2(err, 2)
        os.dup2(out, 1)
        os.environ.update(env)
        sys.argv = ["openrepro", *args]
        try:
            openrepro.cli.main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request["args"], request.get("env", {}), request["stderr"])
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": status}), flush=True)


if __name__ == "__main__":
    serve()
