"""`openrepro replay`: re-run a logbook's recorded runs in a sandbox and compare what they produce.

For each run cell that backs a claim's evidence (every run of the logbook without ``claim``),
:func:`replay_run` builds a fresh temporary working copy: the logbook's stored files (from the
content-addressed store) and the scripts the run cell shows, at their paths; the files the run
is recorded to have produced are left out, so the replay must make them again. It runs the
recorded command there in the sandbox of :mod:`openrepro.provenance.sandbox` (bubblewrap:
read-only system, no home, no network, the working copy the only writable place; CPU, memory,
process, file-size and wall-clock limits) with a minimal environment (``HOME``, ``TMPDIR`` and
``TRACKIO_DIR`` inside the copy, ``HF_HUB_OFFLINE=1``). A ``python``/``python3`` command runs
under this interpreter. The metrics the replay logs land in the fresh ``TRACKIO_DIR`` and are
read back by :func:`~openrepro.logbooks.trackio_reader.read_trackio_logbook`. Without a working
sandbox nothing runs (``skipped``, with the reason).

It then compares with the record: the exit code; every metric the run logged (last step per
series and key) within the claim's tolerance (``rel_tol``); every recorded output line, exactly
for its text and within the tolerance for its numbers (lines about time or speed are skipped);
every file the run is recorded to have produced, and every logbook file the replay wrote again
(byte for byte, else line by line with numbers within the tolerance). A matched replay whose
numbers the code did not compute (:func:`_not_computed`: a produced file that is a copy of one
it was given, or every value spelled out by its command or code or standing on a line of its
data files; for a seeded command, the same values again under a fresh seed) is
``not_computed``. The result (``matched``, ``not_computed``, ``mismatched``, ``failed``,
``timeout``, ``skipped``, or ``queued`` when the run's recorded duration exceeds the remaining
budget) is stored in the ``replays`` table; only a matched replay makes the run's evidence, and
the logbook files it wrote again (``files_reproduced``), ``replayed``. What the run wrote comes
back from the sandbox as regular files only (no links), and its Trackio store is read through a
stub logbook in a folder of its own. A run that could not be replayed says why
(``cannot_replay``: ``gpu``, ``data``, ``network``, ``package``, ``sandbox``).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import math
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import claim_view, find_claim
from openrepro.errors import LogbookError, NotFoundError, StoreError
from openrepro.evidence.decide import DEFAULT_REL_TOL
from openrepro.evidence.gather import measurements
from openrepro.evidence.levels import ProvenanceLevel
from openrepro.jobs.records import JobView
from openrepro.logbooks.records import FileRef, LogbookRecord, Metric, Run
from openrepro.logbooks.service import load_logbook, locator
from openrepro.logbooks.trackio_reader import read_trackio_logbook
from openrepro.provenance.sandbox import (
    SandboxLimits,
    run_sandboxed,
    sandbox_description,
    sandbox_problem,
)
from openrepro.store import Logbook, Paper
from openrepro.store.revisions import latest_logbook_ids
from openrepro.store.tables_provenance import Replay

__all__ = [
    "REPLAY_ACCOUNT",
    "ReplayReport",
    "ReplayResult",
    "ReplayStatus",
    "compare_outputs",
    "diagnose",
    "file_differs",
    "replay_all",
    "replay_as_jobs",
    "replay_logbook",
    "replay_run",
    "replay_targets",
    "runs_for_claim",
]

ReplayStatus = Literal[
    "matched", "mismatched", "not_computed", "failed", "timeout", "skipped", "queued"
]
_PYTHON_RE = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_TIMING_RE = re.compile(
    r"(?i)\b(?:time|elapsed|duration|seconds?|secs?|ms|eta|it/s|s/it|throughput|speed|"
    r"took|wall|samples/s|tokens/s)\b|\d(?:s|ms)\b|%\|"
)
#: what Trackio itself prints around a run (its version and cache path differ between the
#: participant's machine and the replay): not the run's output
_TRACKIO_CHATTER_RE = re.compile(
    r"(?i)^\s*(?:\*\s.*\btrackio\b|\*\s*view dashboard|\*\s*created new run|\*\s*or by running"
    r"|trackio show\b)"
)
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_MAX_OUTPUT = 200_000


class ReplayResult(BaseModel):
    """What one replay (or attestation) of one run found."""

    run_id: str
    status: ReplayStatus
    level: ProvenanceLevel = "self-recorded"  # what the run earns from it
    seconds: float = 0.0
    details: dict[str, Any] = Field(default_factory=dict)
    replay_id: int | None = None  # the stored row


class ReplayReport(BaseModel):
    logbook_id: int
    claim: str | None = None
    isolation: str = ""
    budget_seconds: float = 0.0
    results: list[ReplayResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# ---- which runs, and the working copy ----


def runs_for_claim(record: LogbookRecord, claim_id: str | None) -> list[Run]:
    """The runs backing ``claim_id``'s measurements (every run when ``claim_id`` is None)."""
    if claim_id is None:
        return list(record.runs)
    wanted = {m.run for m in measurements(record, claim_id) if m.run}
    return [run for run in record.runs if run.id in wanted]


def _safe_relative(path: str) -> PurePosixPath | None:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        return None
    return pure


_CODE_SKIP = frozenset({".git", ".trackio", ".venv", "venv", "node_modules", "__pycache__"})
CODE_MAX_FILES = 20_000
CODE_MAX_BYTES = 512 * 1024 * 1024


def _copy_code(code: Path, work: Path, produced: set[str]) -> list[str]:
    """Copy a checkout of the participant's code into ``work`` (regular files only; hidden
    folders, virtual environments and the files the run is recorded to produce left out;
    capped at :data:`CODE_MAX_FILES` files and :data:`CODE_MAX_BYTES` bytes)."""
    warnings: list[str] = []
    count = size = 0
    for root, dirs, files in os.walk(code):
        dirs[:] = sorted(d for d in dirs if d not in _CODE_SKIP and not d.startswith("."))
        for name in sorted(files):
            source = Path(root) / name
            rel = source.relative_to(code).as_posix()
            if rel in produced or source.is_symlink() or not source.is_file():
                continue
            count, size = count + 1, size + source.stat().st_size
            if count > CODE_MAX_FILES or size > CODE_MAX_BYTES:
                return [f"{code}: over {CODE_MAX_FILES} files or {CODE_MAX_BYTES} bytes: "
                        "the rest of the code is left out"]  # fmt: skip
            target = work / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return warnings


def _working_copy(
    record: LogbookRecord, run: Run, locate: Callable[[FileRef], Path | None], work: Path,
    code: Path | None = None,
) -> list[str]:  # fmt: skip
    """Fill ``work`` with ``code`` (a checkout of the participant's code, when given), then the
    logbook's stored files (but those ``run`` is recorded to have produced) and the run's
    scripts over it; returns warnings."""
    warnings: list[str] = []
    produced = {ref.path for ref in run.produced}
    if code is not None:
        warnings += _copy_code(code, work, produced)
    logs = {r.output.strip() for r in record.runs if r.output.strip()}
    for ref in record.files:
        if ref.path in produced:
            continue
        rel = _safe_relative(ref.path)
        source = locate(ref)
        if rel is None or source is None:
            warnings.append(f"file {ref.path} is not in the store: left out of the working copy")
            continue
        if record.format == "bundle" and _is_log(source, logs):
            continue  # a bundle's run log is the record of a run's output, not its input
        try:
            target = work / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        except OSError as exc:
            raise LogbookError(f"file {ref.path!r} cannot be placed in the working copy: "
                               f"{exc.strerror} (another file of the logbook is in its way)"
                               ) from exc  # fmt: skip
    for name, text in run.scripts.items():
        rel = _safe_relative(name)
        if rel is None:
            warnings.append(f"script {name!r} has an unsafe path: left out")
            continue
        try:
            target = work / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            raise LogbookError(f"script {name!r} cannot be placed in the working copy: "
                               f"{exc.strerror} (a file of the logbook is in its way)"
                               ) from exc  # fmt: skip
    return warnings


def _is_log(path: Path, logs: set[str]) -> bool:
    """Is ``path`` a run's recorded output (a bundle keeps each run's log as a file)?"""
    if not logs or path.stat().st_size > _TEXT_CAP:
        return False
    return path.read_text(encoding="utf-8", errors="replace").strip() in logs


def _command(run: Run) -> list[str]:
    """The recorded command, with a ``python`` interpreter mapped to this one."""
    if not run.command:
        return []
    head = PurePosixPath(run.command[0]).name
    if _PYTHON_RE.match(head):
        return [sys.executable, *run.command[1:]]
    return list(run.command)


def _environment(work: Path, trackio_dir: Path) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TZ")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(
        HOME=str(work), TMPDIR=str(work / ".tmp"), TRACKIO_DIR=str(trackio_dir),
        HF_HUB_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1", PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
        TRACKIO_LOGBOOK_AUTONOTE="0", CUDA_VISIBLE_DEVICES="", MPLBACKEND="Agg",
    )  # fmt: skip
    return env


# ---- what could not be replayed, and why ----

_GPU_COMMAND_RE = re.compile(
    r"(?i)(?:--(?:device|accelerator)[= ](?:cuda|gpu)\S*|\bcuda:\d|--gpus?\b|\bnvidia-smi\b|"
    r"\btorchrun\b|\baccelerate launch\b)"
)
_DIAGNOSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("gpu", re.compile(
        r"(?i)no CUDA GPUs are available|Torch not compiled with CUDA|CUDA driver|"
        r"cuda(?:Get|Set)Device|Found no NVIDIA driver|nvidia-smi: (?:command )?not found|"
        r"device_count\(\) (?:==|returned) 0|no GPU|CUDA is not available|"
        r"NCCL|cudaErrorNoDevice")),
    ("network", re.compile(
        r"(?i)Temporary failure in name resolution|Name or service not known|"
        r"Network is unreachable|OfflineModeIsEnabled|LocalEntryNotFoundError|"
        r"couldn't connect to 'https?://|Failed to establish a new connection|"
        r"Could not resolve host|getaddrinfo failed|urlopen error")),
    ("package", re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")),
    ("data", re.compile(
        r"(?:FileNotFoundError|No such file or directory)[^\n]*?'([^'\n]+)'|"
        r"can't open file '([^'\n]+)'")),
)  # fmt: skip
_WHY = {
    "gpu": "needs a GPU (the sandbox has none)",
    "network": "needs the network (the sandbox has none)",
    "package": "needs a package that is not installed here",
    "data": "needs a file that is not in the logbook",
}


def diagnose(run: Run, output: str) -> tuple[str, str] | None:
    """Why a run cannot be replayed here, from its command (before) or its failed replay's
    output (after): ``(kind, reason)`` with kind ``gpu``, ``network``, ``package`` or
    ``data``; ``None`` when nothing says."""
    if not output and _GPU_COMMAND_RE.search(" ".join(run.command)):
        return "gpu", f"{_WHY['gpu']}: the command asks for one"
    for kind, pattern in _DIAGNOSES:
        match = pattern.search(output)
        if match is not None:
            named = next((g for g in match.groups() if g), "")
            what = f": {named}" if named else ""
            return kind, _WHY[kind] + what
    return None


# ---- comparison ----


def _last_values(metrics: list[Metric]) -> dict[tuple[str, str], float]:
    last: dict[tuple[str, str], Metric] = {}
    for metric in metrics:
        held = last.get((metric.run, metric.key))
        if held is None or metric.step >= held.step:
            last[(metric.run, metric.key)] = metric
    return {k: m.value for k, m in last.items()}


def _recorded_metrics(record: LogbookRecord, run: Run) -> dict[tuple[str, str], float]:
    """The metrics the record ties to ``run`` (any claim), last step per series and key."""
    tied: list[Metric] = []
    claims = {key.rsplit("/", 1)[0] for m in record.metrics if m.key.startswith("claims/")
              for key in [m.key.rsplit("/", 1)[0]]}  # fmt: skip
    for claim_id in claims:
        prefix = claim_id[len("claims/") :]
        for m in measurements(record, prefix):
            if m.run == run.id:
                tied.append(
                    Metric(run=m.seed, key=m.pointer.key, step=m.pointer.step or 0, value=m.value)
                )
    return _last_values(tied)


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12)


_PATH_RE = re.compile(r"(?:[A-Za-z]:)?[/\\][^\s\"'`]+")


def _skeleton(line: str) -> str:
    """A line's text with numbers as ``#`` and absolute paths as ``<path>`` (the working copy
    is elsewhere than the participant's folder)."""
    return " ".join(_NUMBER_RE.sub("#", _PATH_RE.sub("<path>", line)).split())


def _numbers_of(line: str) -> list[float]:
    return [float(n) for n in _NUMBER_RE.findall(_PATH_RE.sub("<path>", line))]


def _same_numbers(a: list[float], b: list[float], rel_tol: float) -> bool:
    return len(a) == len(b) and all(_close(x, y, rel_tol) for x, y in zip(a, b, strict=True))


def compare_outputs(recorded: str, replayed: str, rel_tol: float) -> list[str]:
    """Recorded output lines with no counterpart in the replayed output (same text, numbers
    within ``rel_tol``, absolute paths ignored); blank lines, lines about time or speed and
    Trackio's own messages (``* Trackio metrics logged to ...``) are not compared."""
    pool: dict[str, list[list[float]]] = {}
    for line in replayed.splitlines():
        pool.setdefault(_skeleton(line), []).append(_numbers_of(line))
    missing: list[str] = []
    for line in recorded.splitlines():
        if (
            not line.strip()
            or _TIMING_RE.search(line)
            or _TRACKIO_CHATTER_RE.search(line)
            or line.strip() == "[interrupted]"
        ):
            continue
        numbers = _numbers_of(line)
        candidates = pool.get(_skeleton(line), [])
        hit = next(
            (i for i, c in enumerate(candidates) if _same_numbers(c, numbers, rel_tol)), None
        )
        if hit is None:
            missing.append(line)
        else:
            candidates.pop(hit)
    return missing


def _replayed_metrics(trackio_dir: Path) -> list[Metric]:
    """Read the replay's Trackio store as the logbook reader does (through a stub logbook in a
    fresh folder of its own, outside the replay's: nothing there is the participant's)."""
    if not trackio_dir.is_dir() or trackio_dir.is_symlink():
        return []
    with tempfile.TemporaryDirectory(prefix="openrepro-replay-stub-") as fresh:
        pages = Path(fresh) / ".trackio" / "logbook" / "pages"
        pages.mkdir(parents=True)
        (pages.parent / "logbook.json").write_text(
            '{"schema_version": 2, "root": {"slug": "index", "file": "pages/index.md"}}',
            encoding="utf-8",
        )
        (pages / "index.md").write_text("# replay\n", encoding="utf-8")
        return read_trackio_logbook(Path(fresh), trackio_dir=trackio_dir).metrics


def _judge_replay(
    record: LogbookRecord, run: Run, code: int | None, output: str, metrics: list[Metric],
    rel_tol: float,
) -> tuple[ReplayStatus, dict[str, Any]]:  # fmt: skip
    details: dict[str, Any] = {"exit_code": code, "recorded_exit_code": run.exit_code}
    if code is None:
        return "timeout", details
    if run.exit_code is not None and code != run.exit_code:
        details["problem"] = f"exit code {code}, recorded {run.exit_code}"
        return "failed", details
    recorded = _recorded_metrics(record, run)
    replayed = _last_values(metrics)
    metric_problems = []
    for (series, key), value in sorted(recorded.items()):
        again = replayed.get((series, key))
        if again is None:
            metric_problems.append(f"{key} ({series}) was not logged by the replay")
        elif not _close(again, value, rel_tol):
            metric_problems.append(f"{key} ({series}): recorded {value!r}, replayed {again!r}")
    missing_lines = compare_outputs(run.output, output, rel_tol)
    details.update(
        metrics_compared=len(recorded), metric_problems=metric_problems,
        output_lines_missing=missing_lines[:20], rel_tol=rel_tol,
    )  # fmt: skip
    return ("mismatched" if metric_problems or missing_lines else "matched"), details


# ---- files ----

_SCRATCH = (".tmp",)
_TEXT_CAP = 5_000_000


def _snapshot(work: Path) -> dict[str, tuple[int, int, int]]:
    """``(inode, size, mtime_ns)`` of every regular file under ``work``, by relative path."""
    found: dict[str, tuple[int, int, int]] = {}
    for path in work.rglob("*"):
        rel = path.relative_to(work)
        if rel.parts[0] in _SCRATCH or path.is_symlink() or not path.is_file():
            continue
        info = path.stat()
        found[rel.as_posix()] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return found


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _text(path: Path) -> str | None:
    if path.stat().st_size > _TEXT_CAP:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def file_differs(recorded: Path, replayed: Path, rel_tol: float) -> str | None:
    """How the replayed file differs from the recorded one (``None``: the same bytes, or the
    same lines with numbers within ``rel_tol``, lines about time or speed aside)."""
    if _sha256(recorded) == _sha256(replayed):
        return None
    old, new = _text(recorded), _text(replayed)
    if old is None or new is None:
        return "other bytes"
    lines = [len([x for x in text.splitlines() if x.strip()]) for text in (old, new)]
    if lines[0] != lines[1]:
        return f"{lines[1]} lines, recorded {lines[0]}"
    missing = compare_outputs(old, new, rel_tol)
    return f"line {missing[0]!r} differs" if missing else None


def _compare_files(
    record: LogbookRecord, run: Run, locate: Callable[[FileRef], Path | None], work: Path,
    before: dict[str, tuple[int, int, int]], rel_tol: float,
) -> dict[str, Any]:  # fmt: skip
    """What the replay wrote, against the logbook's files: ``files_reproduced`` (path ->
    sha256 of the logbook's file), ``file_problems`` (files the run is recorded to have
    produced, missing or different: a mismatch), ``files_differ`` (other logbook files the
    replay wrote otherwise: noted only)."""
    after = _snapshot(work)
    written = {path for path, info in after.items() if before.get(path) != info}
    produced = {ref.path for ref in run.produced}
    reproduced: dict[str, str] = {}
    problems: list[str] = []
    differ: list[str] = []
    for ref in record.files:
        is_produced = ref.path in produced
        if ref.path not in written:
            if is_produced:
                problems.append(f"{ref.path} was not written by the replay")
            continue
        stored = locate(ref)
        if stored is None:
            continue
        why = file_differs(stored, work / ref.path, rel_tol)
        if why is None:
            reproduced[ref.path] = ref.sha256
        elif is_produced:
            problems.append(f"{ref.path}: {why}")
        else:
            differ.append(f"{ref.path}: {why}")
    return {"files_reproduced": reproduced, "file_problems": problems[:20],
            "files_differ": differ[:20], "files_written": len(written),
            "written_paths": sorted(written)}  # fmt: skip


# ---- one run ----


def _skip(run: Run, kind: str, problem: str) -> ReplayResult:
    return ReplayResult(run_id=run.id, status="skipped",
                        details={"problem": problem, "cannot_replay": kind})  # fmt: skip


class _Attempt(BaseModel):
    """What one sandboxed run of a command gave."""

    exit_code: int | None
    output: str
    seconds: float
    metrics: list[Metric]
    files: dict[str, Any]
    numbers: list[float]  # the evidence numbers it gave (see _evidence_numbers)
    warnings: list[str]
    work: str


def _attempt(
    record: LogbookRecord, run: Run, command: list[str], locate: Callable[[FileRef], Path | None],
    limits: SandboxLimits, rel_tol: float, hide: Sequence[Path], code: Path | None,
    literal: Callable[[Path], _Inputs] | None = None,
) -> tuple[_Attempt, _Inputs | None]:  # fmt: skip
    """Run ``command`` once in the sandbox on a fresh working copy; with ``literal``, also read
    what the working copy held before the run (for :func:`_not_computed`)."""
    with tempfile.TemporaryDirectory(prefix="openrepro-replay-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / ".tmp").mkdir()
        trackio_dir = Path(tmp) / "trackio"
        warnings = _working_copy(record, run, locate, work, code)
        inputs = literal(work) if literal is not None else None
        before = _snapshot(work)
        exit_code, output, seconds = run_sandboxed(
            command, Path(tmp), _environment(work, trackio_dir), limits, cwd=work, hide=hide
        )
        # what the run wrote came back as regular files made by openrepro (no links)
        files = _compare_files(record, run, locate, work, before, rel_tol)
        try:
            metrics = _replayed_metrics(trackio_dir)
        except LogbookError as exc:
            metrics = []
            warnings.append(f"cannot read the replay's metrics: {exc}")
        wanted = {ref.path for ref in run.produced}
        produced = [work / path for path in files["written_paths"] if path in wanted]
        numbers = _evidence_numbers(output, metrics, produced)
    files.pop("written_paths")
    attempt = _Attempt(exit_code=exit_code, output=output, seconds=seconds, metrics=metrics,
                       files=files, numbers=numbers, warnings=warnings, work=str(work))  # fmt: skip
    return attempt, inputs


def replay_run(
    record: LogbookRecord,
    run: Run,
    locate: Callable[[FileRef], Path | None],
    *,
    timeout_s: float,
    memory_mb: int,
    rel_tol: float = DEFAULT_REL_TOL,
    hide: Sequence[Path] = (),
    code: Path | None = None,
) -> ReplayResult:
    """Replay one run in the sandbox, in a fresh temporary working copy (see the module
    docstring). ``hide``: folders of this machine the replay must not see (the challenge's);
    ``code``: a checkout of the participant's code, copied in under the logbook's files (a
    run cell records the command, not always the code it ran)."""
    command = _command(run)
    if not command:
        return ReplayResult(run_id=run.id, status="skipped", details={"problem": "no command"})
    problem = sandbox_problem()
    if problem is not None:
        return _skip(run, "sandbox", problem)
    needs = diagnose(run, "")
    if needs is not None:
        return _skip(run, *needs)
    limits = SandboxLimits(wall_s=timeout_s, memory_mb=memory_mb)
    try:
        first, inputs = _attempt(record, run, command, locate, limits, rel_tol, hide, code,
                                 literal=lambda work: _read_inputs(run, work))  # fmt: skip
    except (OSError, LogbookError) as exc:
        failure = {"problem": f"cannot replay {command[0]!r}: {exc}", "command": command}
        return ReplayResult(run_id=run.id, status="failed", details=failure)
    output, files, seconds = first.output, first.files, first.seconds
    status, details = _judge_replay(record, run, first.exit_code, output, first.metrics, rel_tol)
    details.update(files)
    if status == "matched" and files["file_problems"]:
        status = "mismatched"
    if status == "matched" and inputs is not None:
        why_not = _not_computed(run, first, inputs)
        if why_not is None:
            fresh = _fresh_seed(run, command)
            if fresh is not None:
                seeded = [*command[: fresh[0]], fresh[1], *command[fresh[0] + 1 :]]
                try:
                    again, _ = _attempt(record, run, seeded, locate, limits, rel_tol, hide, code)
                except (OSError, LogbookError):
                    again = None
                if again is not None and again.exit_code == first.exit_code:
                    seconds += again.seconds
                    why_not, spread = _seed_check(first, again, rel_tol)
                    details["fresh_seed"] = {"command": seeded, "numbers": again.numbers[:20],
                                             "outside_spread": spread}  # fmt: skip
                    if spread and why_not is None:
                        status = "mismatched"
                        details["problem"] = ("under a fresh seed the numbers leave the claim's "
                                              f"spread ({rel_tol:g}): {spread[0]}")  # fmt: skip
        if why_not is not None:
            status = "not_computed"
            details["not_computed"] = why_not
    if status == "failed":
        why = diagnose(run, output.replace(f"{first.work}/", ""))
        if why is not None:
            details["cannot_replay"], details["problem"] = why
    if status != "matched":
        details["files_reproduced"] = {}
    details.update(
        command=command, sandbox=sandbox_description(), warnings=first.warnings,
        output_tail=output[-2000:], timeout_s=timeout_s, memory_mb=memory_mb,
    )  # fmt: skip
    level: ProvenanceLevel = "replayed" if status == "matched" else "self-recorded"
    if status == "mismatched":
        level = "testimony"
    return ReplayResult(run_id=run.id, status=status, level=level, seconds=round(seconds, 3),
                        details=details)  # fmt: skip


# ---- numbers a run computed, and numbers it only repeated ----

_FLOAT_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+)(?![\w.])")
_CODE_SUFFIXES = frozenset({".py", ".sh", ".bash", ".zsh", ".r", ".jl", ".js", ".ts", ".pl",
                            ".rb", ".lua", ".m", ".ipynb"})  # fmt: skip
_INPUTS_CAP = 64 * 1024 * 1024  # bytes of the working copy read for literals and copies
_SEED_FLAGS = ("--seed", "--random-seed", "--random_seed", "--rng-seed", "--rng_seed")
_SEED_OFFSET = 7919


class _Inputs(BaseModel):
    """What a run was given before it ran: the numbers its code and command spell out, the
    lines and sha256 of its data files."""

    literals: set[float] = Field(default_factory=set)
    lines: set[str] = Field(default_factory=set)
    hashes: set[str] = Field(default_factory=set)


def _floats(text: str) -> list[float]:
    """The numbers of ``text`` written with a decimal point or an exponent (values, not
    counters, seeds or indices)."""
    found = []
    for token in _FLOAT_RE.findall(_PATH_RE.sub("<path>", text)):
        with contextlib.suppress(ValueError):
            value = float(token)
            if math.isfinite(value):
                found.append(value)
    return found


def _all_numbers(text: str) -> set[float]:
    found: set[float] = set()
    for token in _NUMBER_RE.findall(text):
        with contextlib.suppress(ValueError):
            found.add(float(token))
    return found


def _python_literals(source: str) -> set[float]:
    """The numbers a Python script spells out: numeric constants and the numbers inside its
    strings (docstrings and comments aside); the whole text where it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _all_numbers(source)
    docstrings = {
        id(node.value) for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }  # fmt: skip
    found: set[float] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        value = node.value
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            found.add(float(value))
            found.add(-float(value))
        elif isinstance(value, str):
            found |= _all_numbers(value)
    return found


def _read_inputs(run: Run, work: Path) -> _Inputs:
    """What the working copy and the command give a run (read before it runs)."""
    inputs = _Inputs()
    for word in run.command[1:]:
        inputs.literals |= _all_numbers(word)
    budget = _INPUTS_CAP
    for root, dirs, names in os.walk(work):
        dirs[:] = sorted(d for d in dirs if d not in _SCRATCH)
        for name in sorted(names):
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue
            size = path.stat().st_size
            if size > budget:
                continue
            budget -= size
            data = path.read_bytes()
            inputs.hashes.add(hashlib.sha256(data).hexdigest())
            text = data.decode("utf-8", errors="replace")
            suffix = path.suffix.lower()
            if suffix == ".py":
                inputs.literals |= _python_literals(text)
            elif suffix in _CODE_SUFFIXES:
                inputs.literals |= _all_numbers(text)
            else:
                inputs.lines |= {line.strip() for line in text.splitlines() if line.strip()}
    return inputs


def _compared_lines(output: str) -> list[str]:
    """The output lines a replay compares (as :func:`compare_outputs` does)."""
    return [
        line for line in output.splitlines()
        if line.strip() and not _TIMING_RE.search(line)
        and not _TRACKIO_CHATTER_RE.search(line) and line.strip() != "[interrupted]"
    ]  # fmt: skip


def _evidence_numbers(output: str, metrics: list[Metric], produced: list[Path]) -> list[float]:
    """The values a run gave: the numbers with a decimal point of its compared output lines and
    of the files it is recorded to produce, and the values of its ``claims/`` metrics."""
    numbers = [n for line in _compared_lines(output) for n in _floats(line)]
    numbers += [m.value for m in metrics if m.key.startswith("claims/")]
    for path in produced:
        text = _text(path)
        if text is not None:
            numbers += [n for line in text.splitlines() for n in _floats(line)]
    return numbers


def _not_computed(run: Run, first: _Attempt, inputs: _Inputs) -> str | None:
    """Why the run's numbers were not computed by its code (``None``: nothing says so): a file
    it is recorded to produce is byte for byte one it was given; or every value it gave is
    spelled out by its command or code, or stands on a line of a file it was given."""
    produced = {ref.path: ref.sha256 for ref in run.produced}
    copied = [path for path, sha in first.files.get("files_reproduced", {}).items()
              if path in produced and sha in inputs.hashes]  # fmt: skip
    if copied:
        return f"{copied[0]} is a copy of a file the run was given"
    if not first.numbers:
        return None
    lines = _compared_lines(first.output)
    copied_lines = {n for line in lines if line.strip() in inputs.lines for n in _floats(line)}
    literal = [n for n in first.numbers if n in inputs.literals or n in copied_lines]
    if len(literal) == len(first.numbers):
        shown = ", ".join(f"{n:g}" for n in first.numbers[:5])
        return (
            f"every value it gave ({shown}) is spelled out by its command or code, or "
            "copied from a file it was given"
        )
    return None


def _fresh_seed(run: Run, command: list[str]) -> tuple[int, str] | None:
    """Where ``command`` names its seed, and the word with a fresh one (``None``: not seeded
    by one integer)."""
    for i, word in enumerate(command):
        flag, eq, value = word.partition("=")
        if eq and (flag in _SEED_FLAGS or flag == "seed") and value.lstrip("-").isdigit():
            return i, f"{flag}={int(value) + _SEED_OFFSET}"
        if word in _SEED_FLAGS and i + 1 < len(command) and command[i + 1].isdigit():
            return i + 1, str(int(command[i + 1]) + _SEED_OFFSET)
    return None


def _seed_check(first: _Attempt, again: _Attempt, rel_tol: float) -> tuple[str | None, list[str]]:
    """``(why the numbers are not computed, numbers outside the claim's spread)`` of a replay
    under a fresh seed against the first: the same values again mean the seed plays no part."""
    if first.numbers and first.numbers == again.numbers:
        return ("identical numbers under a fresh seed: the seed plays no part in them", [])
    old = _last_values([m for m in first.metrics if m.key.startswith("claims/")])
    new = _last_values([m for m in again.metrics if m.key.startswith("claims/")])
    by_key: dict[str, list[float]] = {}
    for (_, key), value in new.items():
        by_key.setdefault(key, []).append(value)
    outside = []
    for (_, key), value in sorted(old.items()):
        others = by_key.get(key, [])
        if others and not any(_close(value, o, rel_tol) for o in others):
            outside.append(f"{key}: {value!r}, under a fresh seed {others[0]!r}")
    return None, outside


# ---- logbooks ----


def _claim_row(ctx: ChallengeContext, record: LogbookRecord, claim: str) -> tuple[int, str, float]:
    """``(claim row id, claim id, tolerance)`` of ``claim`` (``C1`` or ``p1/C1``)."""
    venue, _, key = claim.rpartition("/")
    venue = venue or (record.paper_id or "")
    with ctx.store.session() as session:
        found = find_claim(session, ctx.challenge_id, f"{venue}/{key}")
        if found is None:
            raise NotFoundError(f"no claim {venue}/{key}")
        row = found[0]
        view = claim_view(row, venue)
    tols = [v.rel_tol for v in view.reported if v.rel_tol is not None]
    return row.id, view.id, tols[0] if tols else DEFAULT_REL_TOL


def _paper_of(ctx: ChallengeContext, logbook_id: int) -> str:
    with ctx.store.session() as session:
        venue = session.scalar(
            select(Paper.venue_id)
            .join(Logbook, Logbook.paper_id == Paper.id)
            .where(Logbook.id == logbook_id, Paper.challenge_id == ctx.challenge_id)
        )
    if venue is None:
        raise NotFoundError(f"no logbook {logbook_id}")
    return venue


def store_results(
    ctx: ChallengeContext, logbook_id: int, claim_row: int | None, results: list[ReplayResult],
    kind: str = "replay",
) -> None:  # fmt: skip
    """Write ``results`` to the ``replays`` table in one transaction (ids set on the results)."""
    with ctx.store.session() as session:
        rows = [
            Replay(logbook_id=logbook_id, claim_id=claim_row, run_id=r.run_id, kind=kind,
                   status=r.status, level=r.level, details=r.details, seconds=r.seconds)
            for r in results
        ]  # fmt: skip
        session.add_all(rows)
        session.flush()
        for result, row in zip(results, rows, strict=True):
            result.replay_id = row.id


def replay_logbook(
    ctx: ChallengeContext,
    logbook_id: int,
    *,
    claim: str | None = None,
    budget_seconds: float | None = None,
    memory_mb: int | None = None,
    code: Path | None = None,
) -> ReplayReport:
    """Replay the runs behind ``claim`` (every run without it) of one stored logbook, within
    ``budget_seconds`` in all; runs whose recorded duration exceeds what is left are queued."""
    settings = ctx.settings
    if code is not None and not code.is_dir():
        raise NotFoundError(f"{code}: no such folder (the participant's code to replay with)")
    budget = float(budget_seconds if budget_seconds is not None else settings.replay_budget_seconds)
    memory = memory_mb if memory_mb is not None else settings.replay_memory_mb
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
    venue = _paper_of(ctx, logbook_id)
    record = record.model_copy(update={"paper_id": record.paper_id or venue})
    claim_row: int | None = None
    claim_id: str | None = None
    rel_tol = DEFAULT_REL_TOL
    if claim is not None:
        claim_row, claim_id, rel_tol = _claim_row(ctx, record, claim)
    problem = sandbox_problem()
    isolation = sandbox_description() if problem is None else "none"
    report = ReplayReport(
        logbook_id=logbook_id, claim=claim_id, budget_seconds=budget, isolation=isolation
    )
    if problem is not None:
        report.warnings.append(problem)
    locate = locator(settings.resolved_files_dir())
    left = budget
    for run in runs_for_claim(record, claim_id):
        expected = run.duration_s or 0.0
        if run.exit_code not in (0, None):
            failed = {"problem": "the recorded run failed"}
            report.results.append(ReplayResult(run_id=run.id, status="skipped", details=failed))
            continue
        if expected > left or left < 1:
            report.results.append(ReplayResult(
                run_id=run.id, status="queued",
                details={"expected_seconds": expected, "budget_left": round(left, 3)}))  # fmt: skip
            continue
        try:
            result = replay_run(record, run, locate, timeout_s=left, memory_mb=memory,
                                rel_tol=rel_tol, hide=hidden_folders(ctx), code=code)  # fmt: skip
        except StoreError:
            raise
        except Exception as exc:  # one odd run never stops the others
            result = ReplayResult(run_id=run.id, status="failed",
                                  details={"problem": f"cannot replay: {exc}"})  # fmt: skip
        left -= result.seconds
        report.results.append(result)
    store_results(ctx, logbook_id, claim_row, report.results)
    return report


def hidden_folders(ctx: ChallengeContext) -> list[Path]:
    """The organizer's folders a replay must not see: the challenge's folder (its settings,
    database, jobs) and its file store."""
    settings = ctx.settings
    return [settings.directory.resolve(), settings.resolved_files_dir()]


def replay_targets(ctx: ChallengeContext) -> list[int]:
    """The logbooks ``replay --all`` replays: the newest revision per participant and paper."""
    with ctx.store.session() as session:
        return list(latest_logbook_ids(session, ctx.challenge_id))


def replay_all(
    ctx: ChallengeContext, *, budget_per_logbook: float, budget: float | None = None,
    memory_mb: int | None = None, progress: Callable[[ReplayReport], None] | None = None,
) -> list[ReplayReport]:  # fmt: skip
    """Replay the cheap runs of every logbook (:func:`replay_targets`), one after the other;
    each gets ``budget_per_logbook`` seconds, and no more than what is left of ``budget``
    (seconds in all); runs that do not fit are queued."""
    reports: list[ReplayReport] = []
    left = budget
    for logbook_id in replay_targets(ctx):
        share = budget_per_logbook if left is None else max(0.0, min(budget_per_logbook, left))
        try:
            report = replay_logbook(ctx, logbook_id, budget_seconds=share, memory_mb=memory_mb)
        except StoreError:
            raise
        except Exception as exc:  # one odd logbook never stops replay --all
            report = ReplayReport(
                logbook_id=logbook_id,
                budget_seconds=share,
                warnings=[f"logbook {logbook_id} cannot be replayed: {exc}"],
            )
        if left is not None:
            left -= sum(r.seconds for r in report.results)
        reports.append(report)
        if progress is not None:
            progress(report)
    return reports


#: the ledger account replays run as through the jobs backend, unless named
REPLAY_ACCOUNT = "organizers"


def replay_as_jobs(
    ctx: ChallengeContext, *, budget_per_logbook: float, budget: float | None = None,
    memory_mb: int | None = None, handle: str | None = None,
) -> list[JobView]:  # fmt: skip
    """``replay --all`` through the jobs backend: one local job per logbook (its own detached
    supervisor, process group, timeout and log), each running ``openrepro replay LOGBOOK`` in
    the sandbox, priced and reserved in the credit ledger of ``handle`` (default: the setting
    ``jobs_participant``, else ``organizers``). ``budget`` (seconds in all) is shared equally.
    The jobs store their results as they finish (``openrepro jobs ls``/``jobs wait``); a
    logbook whose job cannot be paid for stops the loop with the ledger's error."""
    from openrepro.jobs import run_job

    targets = replay_targets(ctx)
    per = budget_per_logbook
    if budget is not None and targets:
        per = min(per, budget / len(targets))
    account = handle or ctx.settings.jobs_participant or REPLAY_ACCOUNT
    directory = str(ctx.settings.directory.resolve())
    jobs: list[JobView] = []
    for logbook_id in targets:
        command = [sys.executable, "-m", "openrepro", "--dir", directory, "replay",
                   str(logbook_id), "--budget-seconds", f"{per:g}", "--format", "json"]  # fmt: skip
        if memory_mb is not None:
            command += ["--memory-mb", str(memory_mb)]
        jobs.append(run_job(ctx, command, handle=account, backend="local",
                            timeout_s=per + 120, workdir=ctx.settings.directory))  # fmt: skip
    return jobs
