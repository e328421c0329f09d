"""The sandbox a replay runs in: bubblewrap (``bwrap``), resource limits, an unprivileged user.

A replay runs participant code. :func:`run_sandboxed` starts it under `bubblewrap
<https://github.com/containers/bubblewrap>`_ (Debian's ``bubblewrap`` package, the sandbox
Flatpak runs applications in), with:

- **filesystem**: only what a run needs, read-only: ``/usr`` (and ``/bin``, ``/lib*``,
  ``/sbin``, links into it or folders), ``/etc`` with its secrets masked (:data:`ETC_SECRETS`:
  ``shadow``, ``gshadow``, ``sudoers``, ``ssh``, ``ssl/private`` ...), the interpreter's own
  folders and the folders named in ``keep``; a size-capped ``/tmp``, a minimal ``/dev`` and a
  fresh ``/proc``. Nothing else of the host exists inside (no ``/root``, ``/home``, ``/srv``,
  ``/var``, no challenge folder), so ``/proc/self/mountinfo`` names only these mounts and the
  replay's own folder. A folder named in ``hide`` that lies under one of them is covered by an
  empty tmpfs;
- **the replay's folder** (``box``): the run sees a copy of it in a tmpfs capped at
  :attr:`SandboxLimits.disk_mb` (the copy's own size added), at the same path; when the run
  ends, every process left in the sandbox is killed and the regular files the run created or
  changed come back to the host through a pipe (a tar stream, read with caps); the host writes
  them into ``box`` itself, as regular files (never a link, a device or a FIFO: links the run
  planted do not exist outside, so nothing openrepro reads or writes afterwards follows one);
- **namespaces**: new PID, IPC, UTS, cgroup and network namespaces: no network at all, only a
  loopback device of its own; the process dies with its parent and runs in a new session;
- **user**: when openrepro is not root, the sandbox runs as the same user in a new user
  namespace (no nested user namespaces: ``--disable-userns``); when it is root, bubblewrap runs
  privileged, with every capability dropped but the three its starter needs (set uid, set gid,
  chown), and the starter drops to ``nobody`` (65534) before the run starts: the run has no
  capability and only the rights of ``nobody`` (files only root may read stay unreadable, the
  process limit applies). An interpreter ``nobody`` cannot run makes :func:`sandbox_problem`
  refuse the sandbox (install openrepro where other users can read it);
- **limits** (rlimits set before ``bwrap`` starts, inherited by everything inside): CPU seconds,
  address space, file size, number of processes (counted for the user, above those it already
  has), no core dumps; the tmpfs caps on the replay's folder and ``/tmp``; the output kept is
  capped (the rest is read and dropped); and a wall-clock limit that kills the whole sandbox.

:func:`sandbox_problem` says why the sandbox cannot run here (no ``bwrap``, it cannot create
namespaces, or ``nobody`` cannot run the interpreter); a replay then does not run at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path, PurePosixPath
from typing import IO, Literal

from pydantic import BaseModel

__all__ = [
    "ETC_SECRETS",
    "SANDBOX_TOOL",
    "SYSTEM_DIRS",
    "SandboxLimits",
    "run_sandboxed",
    "sandbox_argv",
    "sandbox_description",
    "sandbox_problem",
]

SANDBOX_TOOL = "bwrap"
#: the host folders a run sees (read-only), besides the interpreter's and ``/etc``
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: files and folders of ``/etc`` masked inside the sandbox (empty file or empty folder)
ETC_SECRETS = (
    "shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssh", "ssl/private",
    "security/opasswd", "credstore", "credstore.encrypted", ".pwd.lock", "machine-id",
    "netrc", "openrepro",
)  # fmt: skip
NOBODY = 65534
_TMP_BYTES = 64 * 1024 * 1024  # the sandbox's own /tmp
_EMPTY_BYTES = 1024 * 1024  # a hiding tmpfs
_MAX_OUTPUT = 200_000
_MAX_FILES_BACK = 100_000  # files a run may hand back
_IN = "/.replay-in"  # where the host's copy of the replay's folder is bound (read-only)
_ROOT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN")

#: runs inside the sandbox, as the first process: copy the folder in, drop to the sandbox's
#: user, run the command, kill what is left, send back what the run wrote (a tar stream)
_STARTER = r"""
import json, os, shutil, signal, stat, subprocess, sys, tarfile, time
spec = json.loads(sys.argv[1])
box, source, uid = spec["box"], spec["source"], spec["uid"]
for root, dirs, files in os.walk(source):
    target = os.path.normpath(os.path.join(box, os.path.relpath(root, source)))
    os.makedirs(target, exist_ok=True)
    for name in files:
        path = os.path.join(root, name)
        if stat.S_ISREG(os.lstat(path).st_mode):
            shutil.copyfile(path, os.path.join(target, name))
if uid is not None:
    for root, dirs, files in os.walk(box):
        os.chown(root, uid, uid)
        for name in files:
            os.chown(os.path.join(root, name), uid, uid)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    assert os.getuid() == uid and os.geteuid() == uid
def snapshot():
    seen = {}
    for root, dirs, files in os.walk(box):
        for name in files:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                seen[os.path.relpath(path, box)] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return seen
before = snapshot()
sys.stdout.flush()
try:
    proc = subprocess.Popen(sys.argv[3:], cwd=spec["cwd"], stdin=subprocess.DEVNULL)
    code = proc.wait()
except OSError as exc:
    print(f"cannot run {sys.argv[3]!r}: {exc}", flush=True)
    code = 127
for _ in range(3):
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    time.sleep(0.05)
out = os.fdopen(spec["fd"], "wb")
with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
    for rel, info in sorted(snapshot().items()):
        if before.get(rel) == info:
            continue
        try:
            fd = os.open(os.path.join(box, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as handle:
            held = os.fstat(handle.fileno())
            if not stat.S_ISREG(held.st_mode):
                continue
            member = tarfile.TarInfo(rel)
            member.size, member.mode, member.mtime = held.st_size, 0o644, int(held.st_mtime)
            tar.addfile(member, handle)
out.close()
os._exit(code if code >= 0 else 128 - code)
"""


class SandboxLimits(BaseModel):
    """Resource limits of one sandboxed command."""

    wall_s: float
    memory_mb: int = 4096
    cpu_s: int | None = None  # default: the wall-clock limit, rounded up
    processes: int = 256
    file_mb: int = 1024
    disk_mb: int = 2048  # what the run may write in its folder (its tmpfs; the copy's size added)


def _bwrap() -> str | None:
    return shutil.which(SANDBOX_TOOL)


def _interpreter_dirs() -> list[Path]:
    """Folders this interpreter needs (a ``python`` command runs under it)."""
    dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    dirs |= {Path(p) for p in sys.path if p and Path(p).is_dir() and "site-packages" in p}
    return sorted({d.resolve() for d in dirs if d.exists()})


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _shown(keep: Sequence[Path]) -> list[Path]:
    """The host folders bound read-only: the system's, the interpreter's, ``keep``."""
    wanted = [Path(d) for d in SYSTEM_DIRS if Path(d).is_dir() and not Path(d).is_symlink()]
    wanted += [*_interpreter_dirs(), *(p.resolve() for p in keep)]
    wanted = [p for p in wanted if p.is_dir() and p != Path("/")]
    # a folder inside another one shown is shown with it
    return sorted({p for p in wanted if not any(q != p and _under(p, q) for q in wanted)})


def _parents(folder: Path, made: set[Path]) -> list[str]:
    """``--dir`` arguments making ``folder``'s missing parents readable by all (bubblewrap
    makes them 0700 otherwise: ``nobody`` could not reach what is bound below them)."""
    argv: list[str] = []
    for parent in reversed(folder.parents):
        if parent not in made:
            made.add(parent)
            argv += ["--perms", "0755", "--dir", str(parent)]
    return argv


def _mode() -> Literal["user", "nobody"]:
    """Who the run is: ``user`` (openrepro is not root: the same user, in a user namespace),
    ``nobody`` (openrepro is root: the starter drops to uid 65534 inside the sandbox)."""
    return "user" if os.geteuid() != 0 else "nobody"


def sandbox_argv(
    command: Sequence[str], box: Path, *, cwd: Path | None = None, hide: Sequence[Path] = (),
    keep: Sequence[Path] = (), disk_bytes: int = 2048 * 1024 * 1024, result_fd: int = 3,
) -> list[str]:  # fmt: skip
    """The ``bwrap`` command line running ``command`` in ``cwd`` (default ``box``) on a copy of
    ``box`` (see the module docstring); what the run wrote goes to ``result_fd``."""
    tool = _bwrap() or SANDBOX_TOOL
    box = box.resolve()
    cwd = (cwd or box).resolve()
    argv = [tool, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname",
            "replay"]  # fmt: skip
    if _mode() == "user":
        argv += ["--unshare-user", "--disable-userns"]
    else:
        argv += ["--cap-drop", "ALL"]
        for cap in _ROOT_CAPS:
            argv += ["--cap-add", cap]
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), name]
    # a fresh /tmp first: a folder shown below it (an interpreter or a checkout under /tmp) is
    # bound on top of it, not hidden by it
    argv += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size", str(_TMP_BYTES),
             "--tmpfs", "/tmp"]  # fmt: skip
    shown = _shown(keep)
    made: set[Path] = {Path("/"), Path("/tmp")}
    for folder in shown:
        argv += [*_parents(folder, made), "--ro-bind", str(folder), str(folder)]
    if Path("/etc").is_dir():
        argv += ["--ro-bind", "/etc", "/etc"]
        for name in ETC_SECRETS:
            secret = Path("/etc") / name
            if secret.is_symlink() or not secret.exists():
                continue
            if secret.is_dir():
                argv += ["--size", str(_EMPTY_BYTES), "--tmpfs", str(secret)]
            else:
                argv += ["--ro-bind", "/dev/null", str(secret)]
    for folder in hide:
        resolved = folder.resolve()
        if any(_under(resolved, s) for s in [*shown, Path("/etc")]) and resolved.is_dir():
            argv += ["--size", str(_EMPTY_BYTES), "--tmpfs", str(resolved)]
    argv += ["--ro-bind", str(box), _IN, *_parents(box, made), "--size", str(disk_bytes),
             "--tmpfs", str(box)]  # fmt: skip
    uid = NOBODY if _mode() == "nobody" else None
    spec = {"box": str(box), "source": _IN, "uid": uid, "cwd": str(cwd), "fd": result_fd}
    argv += ["--chdir", "/", "--", sys.executable, "-I", "-S", "-c", _STARTER, json.dumps(spec),
             "--", *command]  # fmt: skip
    return argv


def _processes_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


def _prepare(limits: SandboxLimits) -> Callable[[], None]:
    """Set the limits in the child, before ``bwrap`` starts (inherited by the run)."""
    uid = NOBODY if _mode() == "nobody" else os.getuid()
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

    return apply


@cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run on this machine (``None``: it can)."""
    if not sys.platform.startswith("linux"):
        return f"the replay sandbox (bubblewrap) needs Linux; this is {sys.platform}"
    if _bwrap() is None:
        return "bubblewrap is not installed (`apt-get install bubblewrap`): no sandbox, no replay"
    try:
        with tempfile.TemporaryDirectory(prefix="openrepro-sandbox-") as probe:
            code, output, _ = run_sandboxed(
                [sys.executable, "-c", "print('ok')"], Path(probe), {"PATH": "/usr/bin:/bin"},
                SandboxLimits(wall_s=30),
            )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot start: {exc}"
    if code != 0 or "ok" not in output:
        why = output.strip()[-300:]
        if _mode() == "nobody":
            return (f"the sandbox cannot run this interpreter as nobody ({sys.executable}): "
                    f"install openrepro where other users can read it ({why or code})")  # fmt: skip
        return f"bubblewrap cannot create its namespaces here: {why or code}"
    return None


def sandbox_description() -> str:
    """What the sandbox isolates on this machine, in one line."""
    who = "as nobody without capabilities, " if _mode() == "nobody" else ""
    return (
        f"bubblewrap: only the system and the interpreter (read-only), {who}no home, no "
        "network, only a size-capped copy of its own folder writable; CPU, memory, process, "
        "file-size, disk and wall-clock limits"
    )


def _kill(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _drain(stream: IO[bytes], keep: int, into: IO[bytes] | bytearray) -> Callable[[], bool]:
    """Read ``stream`` to its end in a thread, keeping its first ``keep`` bytes; the returned
    function joins it and says whether the stream was longer."""
    over = [False]

    def read() -> None:
        held = 0
        for block in iter(lambda: stream.read(1 << 16), b""):
            room = keep - held
            if room > 0:
                part = block[:room]
                if isinstance(into, bytearray):
                    into.extend(part)
                else:
                    into.write(part)
                held += len(part)
            if len(block) > max(room, 0):
                over[0] = True

    thread = threading.Thread(target=read, daemon=True)
    thread.start()

    def join() -> bool:
        thread.join(30)
        return over[0]

    return join


def _safe_member(name: str) -> PurePosixPath | None:
    pure = PurePosixPath(name)
    if (not name or pure.is_absolute() or ".." in pure.parts or "\x00" in name
            or len(name) > 4096):  # fmt: skip
        return None
    return pure


def _write_back(archive: IO[bytes], box: Path, cap: int) -> list[str]:
    """Write the regular files of the tar stream ``archive`` into ``box`` (made by openrepro:
    no links in it), each through a fresh file moved in place; returns problems."""
    problems: list[str] = []
    count = total = 0
    try:
        with tarfile.open(fileobj=archive, mode="r|") as tar:
            for member in tar:
                rel = _safe_member(member.name)
                count, total = count + 1, total + max(member.size, 0)
                if count > _MAX_FILES_BACK or total > cap:
                    problems.append(f"the run wrote over {_MAX_FILES_BACK} files or {cap} "
                                    "bytes: the rest is left out")  # fmt: skip
                    break
                if rel is None or not member.isfile():
                    problems.append(f"{member.name!r} is not a regular file: left out")
                    continue
                source = tar.extractfile(member)
                if source is None:
                    continue
                target = box / rel
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    fd, name = tempfile.mkstemp(dir=target.parent, prefix=".back-")
                    with os.fdopen(fd, "wb") as out:
                        shutil.copyfileobj(source, out)
                    os.replace(name, target)
                except OSError as exc:
                    problems.append(f"{rel}: cannot be written back ({exc.strerror})")
                    with contextlib.suppress(OSError, UnboundLocalError):
                        os.unlink(name)
    except (tarfile.TarError, OSError, EOFError) as exc:
        problems.append(f"what the run wrote could not be read back: {exc}")
    return problems


def run_sandboxed(
    command: Sequence[str], box: Path, env: dict[str, str], limits: SandboxLimits, *,
    cwd: Path | None = None, hide: Sequence[Path] = (), keep: Sequence[Path] = (),
) -> tuple[int | None, str, float]:  # fmt: skip
    """Run ``command`` in the sandbox, in ``cwd`` (default ``box``), on a size-capped copy of
    ``box``; the regular files the run created or changed are written back into ``box``
    (see the module docstring): ``(exit code or None on timeout, output (stdout and stderr,
    capped), seconds)``."""
    box = box.resolve()
    size = sum(p.stat().st_size for p in box.rglob("*") if p.is_file() and not p.is_symlink())
    cap = limits.disk_mb * 1024 * 1024 + size
    read_end, write_end = os.pipe()
    started = time.monotonic()
    try:
        argv = sandbox_argv(command, box, cwd=cwd, hide=hide, keep=keep,
                            disk_bytes=cap + _EMPTY_BYTES, result_fd=write_end)  # fmt: skip
        proc = subprocess.Popen(
            argv, cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_prepare(limits),
            pass_fds=(write_end,),
        )  # fmt: skip
    finally:
        os.close(write_end)
    output = bytearray()
    with tempfile.TemporaryFile() as spool, os.fdopen(read_end, "rb") as results:
        assert proc.stdout is not None
        output_done = _drain(proc.stdout, _MAX_OUTPUT, output)
        results_done = _drain(results, cap + cap // 10 + (1 << 20), spool)
        try:
            code: int | None = proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            _kill(proc.pid)  # bwrap dies; --die-with-parent and the PID namespace take the rest
            proc.wait()
            code = None
        output_done()
        too_long = results_done()
        seconds = time.monotonic() - started
        problems: list[str] = []
        if code is not None and too_long:
            problems.append("what the run wrote is over the folder's cap: nothing comes back")
        elif code is not None:
            spool.seek(0)
            problems = _write_back(spool, box, cap)
    text = output.decode("utf-8", errors="replace")
    if problems:
        text += "".join(f"\n[sandbox] {p}" for p in problems[:5])
    return code, text, seconds
