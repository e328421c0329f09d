"""Consistency checks of self-recorded evidence, and the provenance level of each run.

A Trackio run cell is plain Markdown: it can be typed by hand or edited after the run. Trackio
0.43 records no hash of a cell's content, so the checks look for what a hand-made or edited cell
gets wrong (:func:`check_record`, :func:`apply_levels`):

- ``run_cell_inconsistent``: the cell's body does not show what ``trackio logbook run`` writes
  from the header it records: the ``$ <command>`` line and the ``exit <code> · <seconds>s`` line
  must agree with the header's ``command``, ``exit_code`` and ``duration_s``;
- ``output_edited``: the run's output prints the claim's metric (a line naming it, with numbers)
  but none of the values the run logged for it (as printed, to the digits shown);
- ``script_cannot_log_metric``: the scripts the cell shows are the whole program (Python only,
  importing nothing beyond the standard library and numerical packages, read from their syntax
  trees: a comment mentions nothing) and neither import ``trackio`` nor run a command naming it
  or the metric's key, so the run cannot have logged the metric;
- ``output_shows_failure``: the run's header says exit 0 but its output ends in a Python
  traceback (``CUDA out of memory``): the exit code is not what ran;
- ``run_times_inconsistent``: the run's recorded times cannot be true: a duration above 30
  days or negative (a window that would take in metrics logged long after the run), its
  Trackio run logging before its window began, a start after the logbook's last update, or a
  run (with the metrics in its window) dated after the logbook's submission
  (:func:`openrepro.logbooks.runs.run_time_problems`);
- ``run_self_declared``: the run is an openrepro bundle's entry: the manifest declares it, and
  no tool recorded it on the participant's machine (no cell, no times, metrics typed in the
  manifest): its measurements are ``testimony`` unless a matched replay or attestation lifts
  the run;
- ``artifact_changed_after_run``: an artifact cell recorded the file's size when the run wrote it,
  and the file has another size now (the file changed after the run; PaperBench's mtime rule,
  with the size Trackio records standing in for the mtime it does not);
- ``artifact_copied``: a file the value was read from is byte for byte a file of an earlier
  logbook of another participant on the same paper (:func:`copied_files`): it does not count;
- ``metric_outside_run`` (decision table, R2) and ``artifact_not_from_run`` (engine) exist
  already.

A value read from a table (a file the run produced, a table it printed) is not a logged
metric: the script and output checks do not apply to it, and it is downgraded to ``testimony``
when its file changed after the run (``artifact_changed_after_run``).

A run with ``run_cell_inconsistent``, ``output_edited``, ``script_cannot_log_metric``,
``output_shows_failure`` or ``run_times_inconsistent`` is downgraded to ``testimony``: its
measurements no longer count, whatever a replay found. A stored replay or attestation
(:class:`EvidenceLevels`, from the ``replays`` table) raises a run to ``replayed``/``attested``
when it matched, and downgrades it to ``testimony`` with ``replay_mismatch`` /
``attestation_mismatch`` when it did not; a bundle's run (``run_self_declared``) starts at
``testimony`` and only a matched replay or attestation raises it. A value read from a logbook
file that a matched replay wrote again (``EvidenceLevels.files``) is ``replayed``, whichever run
the logbook ties the file to.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.evidence.gather import claim_metric_prefix
from openrepro.evidence.levels import ProvenanceLevel, check_level, level_rank, weakest
from openrepro.evidence.records import Flag, Measurement
from openrepro.logbooks.records import LogbookRecord, Run, changed_after_run
from openrepro.logbooks.runs import run_time_problems
from openrepro.store import Logbook
from openrepro.store.tables_provenance import Replay

__all__ = [
    "DOWNGRADING_FLAGS",
    "EvidenceLevels",
    "RunStanding",
    "apply_levels",
    "artifact_changes",
    "cell_problems",
    "changed_since_submitted",
    "check_record",
    "copied_files",
    "output_disagrees",
    "output_shows_failure",
    "script_can_log",
    "stored_levels",
    "verdict_level",
]

#: Flags that take a run's evidence down to ``testimony``.
DOWNGRADING_FLAGS: tuple[Flag, ...] = (
    "run_cell_inconsistent",
    "output_edited",
    "script_cannot_log_metric",
    "replay_mismatch",
    "attestation_mismatch",
    "run_times_inconsistent",
    "output_shows_failure",
)
#: Third-party packages that cannot log to Trackio on their own (numerical work only).
NON_LOGGING_PACKAGES = frozenset({"numpy", "scipy", "pandas", "sympy", "mpmath", "torch"})

_EXIT_RE = re.compile(r"^exit (-?\d+) · (\d+(?:\.\d+)?)s$", re.MULTILINE)
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class RunStanding(BaseModel):
    """What a replay or an attestation says about one run."""

    level: ProvenanceLevel = "self-recorded"
    flags: list[Flag] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class EvidenceLevels(BaseModel):
    """Standings of a logbook's runs from replays and attestations, keyed by run (cell) id;
    ``files``: logbook files a matched replay wrote again, byte for byte or within tolerance
    (path -> the run replayed), which are ``replayed`` whichever run the logbook ties them to."""

    runs: dict[str, RunStanding] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
    #: sha256 of this logbook's files that are byte for byte a file of an earlier logbook of
    #: another participant (``artifact_copied``: they do not count)
    copied: set[str] = Field(default_factory=set)
    #: paths of files a run produced whose bytes differ from what an earlier revision of this
    #: logbook stored for the same run (``artifact_changed_after_run``, by content hash)
    changed: set[str] = Field(default_factory=set)
    #: when the logbook was submitted (ISO 8601, the server's clock): no run or metric of it
    #: can be dated later (``run_times_inconsistent``)
    submitted_at: str | None = None


def cell_problems(record: LogbookRecord) -> dict[str, list[str]]:
    """Per run id, how its cell's body disagrees with its header (empty: none does)."""
    cells = {cell.id: cell for page in record.pages for cell in page.cells}
    found: dict[str, list[str]] = {}
    if record.format != "trackio":
        return found
    for run in record.runs:
        cell = cells.get(run.id)
        if cell is None:
            continue
        problems: list[str] = []
        if f"$ {shlex.join(run.command)}" not in cell.body.splitlines():
            problems.append("the body does not show the recorded command")
        match = _EXIT_RE.search(cell.body)
        if match is None:
            problems.append("the body has no 'exit <code> · <seconds>s' line")
        else:
            if run.exit_code is not None and int(match.group(1)) != run.exit_code:
                problems.append("the body's exit code differs from the header's")
            if run.duration_s is not None and abs(float(match.group(2)) - run.duration_s) > 0.11:
                problems.append("the body's duration differs from the header's")
        if problems:
            found[run.id] = problems
    return found


def _printed(literal: str, value: float) -> bool:
    """Does the number written as ``literal`` show ``value`` to the digits it has?"""
    number = float(literal)
    mantissa = literal.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    scale = abs(number) * 1.000001 if "e" in literal.lower() else 1.0
    allowed: float = 0.5 * 10.0 ** (-decimals) * scale + 1e-12 * max(abs(value), 1.0)
    return abs(number - value) <= allowed


def output_disagrees(run: Run, metric: str, key: str, values: Sequence[float]) -> bool:
    """The output names the metric on lines with numbers, yet prints none of ``values``."""
    names = {metric.lower(), metric.replace("_", " ").lower(), key.lower()}
    # a name as a word: a one-letter metric ("n", "k": a sweep) is not every line holding it
    named = [re.compile(rf"(?<![\w/]){re.escape(name)}(?![\w/])") for name in names if name]
    numbers = [
        literal
        for line in run.output.splitlines()
        if any(name.search(line.lower()) for name in named)
        for literal in _NUMBER_RE.findall(line.replace(key, ""))
    ]
    if not numbers or not values:
        return False
    return not any(_printed(literal, value) for literal in numbers for value in values)


class _Script(BaseModel):
    """What a Python script's syntax tree shows (comments and docstrings say nothing)."""

    imports: set[str] = Field(default_factory=set)  # top-level modules, absolute imports
    strings: list[str] = Field(default_factory=list)  # string constants
    dynamic: bool = False  # __import__, importlib, exec/eval, runpy: anything could run


_DYNAMIC_CALLS = frozenset({"__import__", "import_module", "exec", "eval", "run_path",
                            "run_module", "spec_from_file_location"})  # fmt: skip
_SHELLS = frozenset({"subprocess", "os", "pty", "multiprocessing"})


def _script(source: str) -> _Script | None:
    """The imports, string constants and dynamic code of ``source`` (None: not Python)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = _Script()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.imports |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.imports.add(node.module.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.strings.append(node.value)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")  # fmt: skip
            found.dynamic |= name in _DYNAMIC_CALLS
    found.dynamic |= bool({"importlib", "runpy"} & found.imports)
    return found


def script_can_log(run: Run, key: str) -> bool:
    """False only when the shown scripts are provably the whole program and cannot log ``key``
    (see the module docstring); True whenever that cannot be told. Imports and strings are read
    from each script's syntax tree, so ``import json  # trackio`` mentions nothing."""
    if not run.scripts or not all(name.endswith(".py") for name in run.scripts):
        return True
    command = shlex.join(run.command)
    if "trackio" in command:
        return True
    parsed = [_script(source) for source in run.scripts.values()]
    scripts = [p for p in parsed if p is not None]
    if len(scripts) != len(parsed):
        return True  # not Python the parser reads: nothing can be told
    local = {name.rsplit("/", 1)[-1][:-3] for name in run.scripts}
    allowed = set(sys.stdlib_module_names) | NON_LOGGING_PACKAGES | local
    for script in scripts:
        if "trackio" in script.imports or script.dynamic:
            return True
        if any(name not in allowed for name in script.imports):
            return True  # another module might log (e.g. a library reporting to Trackio)
        if script.imports & _SHELLS and any(
            "trackio" in text or key in text for text in script.strings
        ):
            return True  # a command it runs might (``trackio log ...``)
    text = "\n".join([command, *(t for script in scripts for t in script.strings)])
    other_files = re.findall(r"[\w./-]+\.(?:py|sh|bash)\b", text)
    shown = {name.rsplit("/", 1)[-1] for name in run.scripts}
    return any(str(path).rsplit("/", 1)[-1] not in shown for path in other_files)


_EXCEPTION_LINE_RE = re.compile(
    r"^(?:[\w.]+(?:Error|Exception|Interrupt|Exit)\b.*|Killed|Segmentation fault.*"
    r"|.*CUDA out of memory.*)$"
)
_TRACEBACK = "Traceback (most recent call last):"


def output_shows_failure(run: Run) -> bool:
    """A run recorded with exit 0 whose output ends in a Python traceback (an exception line
    last, e.g. ``torch.OutOfMemoryError: CUDA out of memory``): the exit code is not what ran."""
    if run.exit_code != 0:
        return False
    tail = run.output[-20_000:]
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines or _TRACEBACK not in tail:
        return False
    return bool(_EXCEPTION_LINE_RE.match(lines[-1]))


def artifact_changes(record: LogbookRecord) -> list[str]:
    """Paths of artifacts whose cell recorded a size other than the file's size now
    (:func:`openrepro.logbooks.records.changed_after_run`)."""
    return [artifact.file.path for artifact, _, _ in changed_after_run(record)]


def check_record(
    record: LogbookRecord, *, submitted_at: str | None = None
) -> dict[str, list[Flag]]:
    """Claim-independent flags per run id (``""`` holds the logbook-wide ones);
    ``submitted_at``: when the logbook was submitted (its runs' times are checked against it)."""
    found: dict[str, list[Flag]] = {run_id: ["run_cell_inconsistent"]
                                    for run_id in cell_problems(record)}  # fmt: skip
    for run_id in run_time_problems(record, submitted_at=submitted_at):
        found.setdefault(run_id, []).append("run_times_inconsistent")
    for run in record.runs:
        if output_shows_failure(run):
            found.setdefault(run.id, []).append("output_shows_failure")
    if artifact_changes(record):
        found.setdefault("", []).append("artifact_changed_after_run")
    return found


def apply_levels(
    record: LogbookRecord,
    claim_id: str,
    found: Sequence[Measurement],
    external: EvidenceLevels | None = None,
) -> tuple[list[Measurement], list[Flag]]:
    """Give each measurement its run's level; returns them and the flags raised on the way."""
    external = external or EvidenceLevels()
    runs = {run.id: run for run in record.runs}
    static = check_record(record, submitted_at=external.submitted_at)
    prefix = claim_metric_prefix(claim_id)
    # a bundle's runs are the manifest's word: nothing recorded them (``run_self_declared``)
    declared = record.format == "bundle"
    changed = set(artifact_changes(record)) | external.changed
    flags: list[Flag] = list(static.get("", []))
    if external.changed:
        flags.append("artifact_changed_after_run")
    levelled: list[Measurement] = []
    # per (run, metric, key), computed once: each measurement re-reading every other one and
    # the whole output made 10,000 bound values quadratic
    values_of: dict[tuple[str, str], list[float]] = {}
    for x in found:
        values_of.setdefault((x.run, x.metric), []).append(x.value)
    script_flags: dict[tuple[str, str, str], list[Flag]] = {}
    for m in found:
        run = runs.get(m.run)
        replayed_file = external.files.get(m.pointer.path) if m.pointer.path else None
        if m.pointer.kind == "table_cell" and replayed_file is not None:
            # a replay in the sandbox wrote this very file again: it is replayed evidence
            # (even if it changed after the recorded run: the replay made it as it is now),
            # unless the replayed run's own record is flawed
            flawed = list(static.get(replayed_file, []))
            flags += flawed
            level_file: ProvenanceLevel = "testimony" if flawed else "replayed"
            levelled.append(m.model_copy(update={"level": level_file}))
            continue
        if run is None or not m.within_run:
            # not tied to a run cell by id (an LLM-picked metric names Trackio's run name)
            level_of: ProvenanceLevel = (
                "self-recorded" if m.within_run and not declared else "testimony"
            )
            if declared and m.within_run:
                flags.append("run_self_declared")
            levelled.append(m.model_copy(update={"level": level_of}))
            continue
        own: list[Flag] = list(static.get(run.id, []))
        if m.pointer.kind == "table_cell":
            # a table the run wrote or printed: no metric to log, no printed metric to
            # compare; a file that changed after the run no longer shows what it wrote
            if m.pointer.path and m.pointer.path in changed:
                own.append("artifact_changed_after_run")
            if {m.pointer.sha256, m.pointer.table} & external.copied:
                own.append("artifact_copied")
        else:
            key = m.pointer.key or prefix + m.metric
            known = script_flags.get((run.id, m.metric, key))
            if known is None:
                known = []
                if not script_can_log(run, key):
                    known.append("script_cannot_log_metric")
                if output_disagrees(run, m.metric, key, values_of.get((run.id, m.metric), [])):
                    known.append("output_edited")
                script_flags[(run.id, m.metric, key)] = known
            own += known
        level: ProvenanceLevel = "testimony" if own else "self-recorded"
        standing = external.runs.get(run.id)
        if standing is not None:
            # a matched replay cannot clear what the record itself gets wrong
            level = "testimony" if own else standing.level
            own += standing.flags
        if declared and not own and level_rank(level) < level_rank("replayed"):
            # a bundle's run: only openrepro re-running it (or a job it watched) shows it ran
            level = "testimony"
            own.append("run_self_declared")
        flags += own
        levelled.append(m if m.level == level else m.model_copy(update={"level": level}))
    return levelled, list(dict.fromkeys(flags))


def verdict_level(used: Iterable[Measurement]) -> ProvenanceLevel:
    """The level a verdict resting on ``used`` takes: the weakest of them (testimony if none)."""
    return weakest(m.level for m in used)


def stored_levels(session: Session, logbook_id: int) -> EvidenceLevels:
    """The standings the ``replays`` table gives a logbook's runs (the newest row of each kind
    per run decides; a matched attestation outranks a matched replay; a mismatch of either
    downgrades the run)."""
    rows = session.scalars(
        select(Replay).where(Replay.logbook_id == logbook_id).order_by(Replay.id)
    ).all()
    latest: dict[tuple[str, str], Replay] = {(row.run_id, row.kind): row for row in rows}
    levels = EvidenceLevels()
    for (run_id, kind), row in sorted(latest.items()):
        standing = levels.runs.setdefault(run_id, RunStanding())
        if row.status == "mismatched":
            flag: Flag = "attestation_mismatch" if kind == "attest" else "replay_mismatch"
            standing.flags.append(flag)
            standing.notes.append(f"{kind} #{row.id} mismatched")
        elif row.status == "matched" and level_rank(row.level) > level_rank(standing.level):
            standing.level = check_level(row.level)
            standing.notes.append(f"{kind} #{row.id} matched")
        if row.status == "matched" and kind == "replay":
            reproduced = (row.details or {}).get("files_reproduced") or {}
            levels.files.update({path: run_id for path in reproduced if isinstance(path, str)})
    for standing in levels.runs.values():
        if standing.flags:
            standing.level = "testimony"
    levels.files = {path: run for path, run in levels.files.items()
                    if not levels.runs.get(run, RunStanding()).flags}  # fmt: skip
    levels.runs = {k: v for k, v in levels.runs.items() if v.flags or v.notes}
    levels.copied = copied_files(session, logbook_id)
    book = session.get(Logbook, logbook_id)
    if book is not None and book.submitted_at is not None:
        when = book.submitted_at  # SQLite gives it back without its zone: UTC
        levels.submitted_at = (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()
    levels.changed = changed_since_submitted(session, logbook_id)
    return levels


def _produced(manifest: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    """(run id, run time, path) -> sha256 of each file a stored record's runs produced."""
    return {
        (str(run.get("id")), str(run.get("created_at")), str(ref.get("path"))): str(ref["sha256"])
        for run in manifest.get("runs") or []
        for ref in run.get("produced") or []
        if isinstance(ref, dict) and ref.get("sha256")
    }


MAX_COPY_PEERS = 500  # earlier logbooks of a paper compared for copied files


def _earlier_manifests(
    session: Session, book: Logbook, *, same_participant: bool
) -> Iterable[dict[str, Any]]:
    """The stored records of logbooks submitted before ``book`` on its paper, newest first (at
    most ``MAX_COPY_PEERS``): the same participant's earlier revisions, or other participants'."""
    mine = Logbook.participant_id == book.participant_id
    return session.scalars(
        select(Logbook.manifest)
        .where(Logbook.paper_id == book.paper_id, mine if same_participant else ~mine,
               Logbook.id < book.id)
        .order_by(Logbook.id.desc())
        .limit(MAX_COPY_PEERS)
    )  # fmt: skip


def changed_since_submitted(session: Session, logbook_id: int) -> set[str]:
    """Paths of files this logbook's runs produced whose content (sha256) differs from what an
    earlier revision of the same participant's logbook stored for the same run (same run id
    and time): the file was edited after the run, whatever its size (Trackio records sizes
    only, so an edit before the first submission is not seen here)."""
    book = session.get(Logbook, logbook_id)
    if book is None:
        return set()
    mine = _produced(book.manifest)
    if not mine:
        return set()
    found: set[str] = set()
    for manifest in _earlier_manifests(session, book, same_participant=True):
        for key, sha in _produced(manifest).items():
            if key in mine and mine[key] != sha:
                found.add(key[2])
    return found


def _file_hashes(manifest: dict[str, Any]) -> set[str]:
    """sha256 of the non-empty files a stored record's runs produced or its cells present."""
    refs = [ref for run in manifest.get("runs") or [] for ref in run.get("produced") or []]
    refs += [artifact.get("file") or {} for artifact in manifest.get("artifacts") or []]
    return {str(r["sha256"]) for r in refs if isinstance(r, dict) and r.get("sha256")
            and r.get("size", 1)}  # fmt: skip


def copied_files(session: Session, logbook_id: int) -> set[str]:
    """The files of logbook ``logbook_id`` that are byte for byte (same sha256) a file of an
    earlier-submitted logbook of another participant on the same paper: a copy is not a
    reproduction (``artifact_copied``). The earlier one keeps its evidence."""
    book = session.get(Logbook, logbook_id)
    if book is None:
        return set()
    mine = _file_hashes(book.manifest)
    if not mine:
        return set()
    found: set[str] = set()
    for manifest in _earlier_manifests(session, book, same_participant=False):
        found |= mine & _file_hashes(manifest)
    return found
