"""The sandbox a replay runs in: bubblewrap (``bwrap``), resource limits, an unprivileged user.

A replay runs participant code. :func:`run_sandboxed` starts it under `bubblewrap
<https://github.com/containers/bubblewrap>`_ (Debian's ``bubblewrap`` package, the sandbox
Flatpak runs applications in), with:

- **filesystem**: the whole system read-only (``--ro-bind / /``); empty size-capped tmpfs over
  ``/root``, ``/home``, ``/tmp``, ``/var/tmp``, ``/run``, ``/mnt``, ``/media``, ``/srv``, the
  organizer's ``$HOME`` wherever it is, and every folder named in ``hide`` (the challenge's
  folder: its database, file store, settings);
  the interpreter's own folders bound back read-only where a tmpfs hid them; the replay's fresh
  folder bound read-write: the only writable place that outlives the run; a minimal ``/dev``
  and a fresh ``/proc``;
- **namespaces**: new user, PID, IPC, UTS, cgroup and network namespaces (``--unshare-all``):
  no network at all, only a loopback device of its own; no nested user namespaces
  (``--disable-userns``); the process dies with its parent and runs in a new session;
- **user**: when openrepro runs as root, the sandbox runs as ``nobody`` (65534), so files only
  root may read stay unreadable even where they are visible (where the interpreter lies in a
  folder nobody cannot read, it keeps uid 0 outside, shown as 65534 inside and without any
  capability; then no process limit applies, and :func:`sandbox_description` says so);
- **limits** (rlimits set before ``bwrap`` starts, inherited by everything inside): CPU seconds,
  address space, file size, number of processes (counted for the user, above those it already
  has), no core dumps; and a wall-clock limit that kills the whole sandbox.

:func:`sandbox_problem` says why the sandbox cannot run here (no ``bwrap``, or it cannot create
namespaces); a replay then does not run at all.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

__all__ = [
    "HIDDEN_SYSTEM_DIRS",
    "SANDBOX_TOOL",
    "SandboxLimits",
    "run_sandboxed",
    "sandbox_argv",
    "sandbox_description",
    "sandbox_problem",
]

SANDBOX_TOOL = "bwrap"
#: folders of the host replaced by an empty tmpfs inside the sandbox
HIDDEN_SYSTEM_DIRS = ("/root", "/home", "/tmp", "/var/tmp", "/run", "/mnt", "/media", "/srv")
NOBODY = 65534
_TMP_BYTES = 64 * 1024 * 1024  # the sandbox's own /tmp
_EMPTY_BYTES = 1024 * 1024  # the other hiding tmpfs
_MAX_OUTPUT = 200_000


class SandboxLimits(BaseModel):
    """Resource limits of one sandboxed command."""

    wall_s: float
    memory_mb: int = 4096
    cpu_s: int | None = None  # default: the wall-clock limit, rounded up
    processes: int = 256
    file_mb: int = 1024


def _bwrap() -> str | None:
    return shutil.which(SANDBOX_TOOL)


def _interpreter_dirs() -> list[Path]:
    """Folders this interpreter needs (a ``python`` command runs under it)."""
    dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    dirs |= {Path(p) for p in sys.path if p and Path(p).is_dir() and "site-packages" in p}
    return sorted({d.resolve() for d in dirs if d.exists()})


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _home() -> list[Path]:
    """The organizer's home folder, wherever it is (hidden like ``/root`` and ``/home``)."""
    home = os.environ.get("HOME", "")
    return [Path(home)] if home and Path(home).resolve() != Path("/") else []


def _shown_again(work: Path, hide: Sequence[Path], keep: Sequence[Path]) -> list[Path]:
    """The folders to bind back read-only because a hiding tmpfs covers them."""
    hidden = [Path(n) for n in HIDDEN_SYSTEM_DIRS] + [h.resolve() for h in [*hide, *_home()]]
    wanted = [*_interpreter_dirs(), *(p.resolve() for p in keep)]
    shown = [p for p in wanted if any(_under(p, h) for h in hidden) and not _under(work, p)]
    # a folder inside another one shown is shown with it
    return [p for p in shown if not any(q != p and _under(p, q) for q in shown)]


def sandbox_argv(
    command: Sequence[str], work: Path, *, cwd: Path | None = None, hide: Sequence[Path] = (),
    keep: Sequence[Path] = (),
) -> list[str]:  # fmt: skip
    """The ``bwrap`` command line running ``command`` in ``cwd`` (default ``work``), with
    ``work`` the only writable folder (see the module docstring). The interpreter's folders
    and ``keep`` are bound back read-only where a hidden folder covers them."""
    tool = _bwrap() or SANDBOX_TOOL
    work = work.resolve()
    cwd = (cwd or work).resolve()
    argv = [tool, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--hostname", "replay", "--ro-bind", "/", "/",
            "--dev", "/dev", "--proc", "/proc"]  # fmt: skip
    for name in HIDDEN_SYSTEM_DIRS:
        size = _TMP_BYTES if name == "/tmp" else _EMPTY_BYTES
        if Path(name).is_dir() and not Path(name).is_symlink():
            argv += ["--size", str(size), "--tmpfs", name]
    for folder in [*hide, *_home()]:
        resolved = folder.resolve()
        if resolved.is_dir() and not _under(work, resolved) and resolved != Path("/"):
            argv += ["--size", str(_EMPTY_BYTES), "--tmpfs", str(resolved)]
    for folder in _shown_again(work, hide, keep):
        argv += ["--ro-bind", str(folder), str(folder)]
    if _mode() == "root":
        argv += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    argv += ["--bind", str(work), str(work), "--chdir", str(cwd), "--", *command]
    return argv


def _processes_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


def _reachable_by_others(path: Path) -> bool:
    """Can a user with no rights of its own reach (and read) ``path``?"""
    try:
        for folder in [path, *path.parents]:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        return bool(path.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


@cache
def _mode() -> Literal["user", "nobody", "root"]:
    """Who the sandbox runs as: ``user`` (openrepro is not root: the same user), ``nobody``
    (openrepro is root: the sandbox drops to uid 65534), ``root`` (openrepro is root and its
    interpreter lies where nobody cannot read it: the sandbox keeps uid 0 outside, shown as
    65534 inside, with no capabilities; the process limit cannot apply)."""
    if os.geteuid() != 0:
        return "user"
    if all(_reachable_by_others(d) for d in _interpreter_dirs()):
        return "nobody"
    return "root"


def _as_sandbox_user() -> int | None:
    """The uid the sandbox drops to before it starts (``None``: it keeps this one)."""
    return NOBODY if _mode() == "nobody" else None


def _prepare(limits: SandboxLimits) -> Callable[[], None]:
    """Set the limits (and drop root) in the child, before ``bwrap`` starts."""
    user = _as_sandbox_user()
    uid = user if user is not None else os.getuid()
    # RLIMIT_NPROC counts every process of the user: allow this many more than it has now
    nproc = _processes_of(uid) + limits.processes
    cpu = limits.cpu_s if limits.cpu_s is not None else max(1, int(limits.wall_s + 0.999))
    memory = limits.memory_mb * 1024 * 1024
    size = limits.file_mb * 1024 * 1024

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if user is not None:
            os.setgroups([])
            os.setgid(user)
            os.setuid(user)

    return apply


def hand_over(folder: Path) -> None:
    """Give ``folder`` (recursively) to the sandbox's user when that is not the current one."""
    user = _as_sandbox_user()
    if user is None:
        return
    for root, dirs, files in os.walk(folder):
        os.chown(root, user, user)
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), user, user, follow_symlinks=False)


@cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run on this machine (``None``: it can)."""
    if not sys.platform.startswith("linux"):
        return f"the replay sandbox (bubblewrap) needs Linux; this is {sys.platform}"
    if _bwrap() is None:
        return "bubblewrap is not installed (`apt-get install bubblewrap`): no sandbox, no replay"
    try:
        with tempfile.TemporaryDirectory(prefix="openrepro-sandbox-") as probe:
            hand_over(Path(probe))
            done = subprocess.run(
                sandbox_argv(["true"], Path(probe)), capture_output=True, timeout=30,
                check=False, preexec_fn=_prepare(SandboxLimits(wall_s=30)),
            )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot start: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", errors="replace").strip()[:300]
        return f"bubblewrap cannot create its namespaces here: {why or done.returncode}"
    return None


def sandbox_description() -> str:
    """What the sandbox isolates on this machine, in one line."""
    mode = _mode()
    who = {"user": "", "nobody": "as nobody, ",
           "root": "as root mapped to nobody without capabilities, "}[mode]  # fmt: skip
    limits = "CPU, memory, file-size and wall-clock limits (no process limit: root)" if (
        mode == "root") else "CPU, memory, process, file-size and wall-clock limits"  # fmt: skip
    return (
        f"bubblewrap: read-only system, {who}no home, no network, only its own folder "
        f"writable; {limits}"
    )


def _kill(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_sandboxed(
    command: Sequence[str], work: Path, env: dict[str, str], limits: SandboxLimits, *,
    cwd: Path | None = None, hide: Sequence[Path] = (), keep: Sequence[Path] = (),
) -> tuple[int | None, str, float]:  # fmt: skip
    """Run ``command`` in the sandbox, in ``cwd`` (default ``work``), with ``work`` its only
    writable folder: ``(exit code or None on timeout, output (stdout and stderr, capped),
    seconds)``. ``work`` is handed to the sandbox's user first."""
    hand_over(work)
    started = time.monotonic()
    proc = subprocess.Popen(
        sandbox_argv(command, work, cwd=cwd, hide=hide, keep=keep), cwd="/", env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True, preexec_fn=_prepare(limits),
    )  # fmt: skip
    try:
        raw, _ = proc.communicate(timeout=limits.wall_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill(proc.pid)  # bwrap dies; --die-with-parent and the PID namespace take the rest
        raw, _ = proc.communicate()
        code = None
    output = raw[:_MAX_OUTPUT].decode("utf-8", errors="replace")
    return code, output, time.monotonic() - started
