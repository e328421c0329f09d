"""Which paper of the challenge a logbook reproduces.

A logbook names its paper in several ways, and real ones mix them. Trackio writes ``paper`` as
an object (``{"arxiv_id": "2511.03548"}``, sometimes with ``openreview_id``) or ``null``; the
2026 event linked logbooks to papers by the tag ``paper-<OpenReview id>`` (beside
``icml2026-repro``); a logbook may carry both, only one, or several ``paper-*`` tags (one of
them a submission number the challenge does not know). A bundle's ``paper`` is a string.

:func:`paper_refs` lists them as :class:`~openrepro.logbooks.records.PaperRef`; :func:`link_paper`
tries them in this order, and the first step that matches exactly one paper wins:

1. an explicit paper (``openrepro submit --paper``): a venue id, else an arXiv id;
2. a venue id: ``paper`` as a string, or the paper object's ``openreview_id``, ``venue_id``
   or ``id``;
3. a ``paper-<id>`` tag whose id is a paper's venue id;
4. an arXiv id (``paper.arxiv_id``, a bare string, ``arxiv:…`` or an ``arxiv.org`` URL, any
   version) equal to a paper's ``arxiv_id`` (or its venue id ``arxiv:<id>``).

Two papers matched by one step is an error naming both; no match is an error naming every
reference tried.

**Produced files.** A file in the logbook's folder that no run's artifact cell names is still
*produced* when a recorded run is shown to write it (:func:`link_produced`), never on anyone's
word: the run's command names it (``--out results.csv``, ``-o``; inside a ``sh -c``/``bash -c``
line, a redirect ``> out.txt``, ``>> log.csv``, ``&> all.log`` or ``| tee f``, read from the
shell words: a quoted ``'>f'`` is text; a command run without a shell redirects nothing) or
names a folder it writes into (``--output-dir evidence`` writes ``evidence/*.csv``;
``--output``, ``--out-dir``, ``--save-dir``, ``--results-dir`` and their ``_`` spellings), or a
script the run cell shows writes that file name (``open("runs.csv", "a")``, ``to_csv``,
``json.dump``, ``np.savetxt``, ``write_text``: a literal or f-string ending in that name, in
the run's folder, a folder the command names, or, when the command names none, a folder the
script names); and
its time lies inside the run's window (last modified not before the run began and not after
its cell was written, 2 s either side; a file or run without a time links nothing). Such a file
becomes one of the run's ``produced`` files; the others stay testimony.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from openrepro.errors import LogbookError, NotFoundError
from openrepro.logbooks.records import FileRef, PaperRef, Run
from openrepro.logbooks.runs import MAX_RUN_SECONDS
from openrepro.papers.sources.arxiv import normalize_arxiv_id
from openrepro.store import Paper

__all__ = [
    "TAG_PREFIX", "arxiv_of", "link_paper", "link_produced", "paper_refs", "run_writes",
    "shell_writes",
]  # fmt: skip

TAG_PREFIX = "paper-"
_VENUE_KEYS = ("openreview_id", "venue_id", "id")
_ARXIV_KEYS = ("arxiv_id", "arxiv")
_ARXIV_URL_RE = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#]+?)(?:\.pdf)?/?(?:[?#].*)?$", re.I)
_MAX_ID = 300


def arxiv_of(text: str) -> str | None:
    """The arXiv id (no version) that ``text`` names: a bare id, ``arXiv:…`` or a URL."""
    value = text.strip()
    match = _ARXIV_URL_RE.search(value)
    if match:
        value = match.group(1)
    return normalize_arxiv_id(value)


def _text(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text if text and len(text) <= _MAX_ID and "\x00" not in text else None


def paper_refs(paper: str | dict[str, Any] | None, tags: list[str], where: str) -> list[PaperRef]:
    """Every reference to a paper in a logbook's ``paper`` field and tags (``where`` names the
    file, for messages), in linking order."""
    refs: list[PaperRef] = []
    if isinstance(paper, str | int) and not isinstance(paper, bool):
        text = _text(paper)
        if text:
            refs.append(PaperRef(kind="venue_id", value=text, source=f"{where} paper"))
            arxiv = arxiv_of(text)
            if arxiv:
                refs.append(PaperRef(kind="arxiv_id", value=arxiv, source=f"{where} paper"))
    elif isinstance(paper, dict):
        for key in _VENUE_KEYS:
            text = _text(paper.get(key))
            if text:
                refs.append(PaperRef(kind="venue_id", value=text, source=f"{where} paper.{key}"))
        for key in _ARXIV_KEYS:
            text = _text(paper.get(key))
            arxiv = arxiv_of(text) if text else None
            if arxiv:
                refs.append(PaperRef(kind="arxiv_id", value=arxiv, source=f"{where} paper.{key}"))
    for tag in tags:
        if tag.lower().startswith(TAG_PREFIX) and len(tag) > len(TAG_PREFIX):
            value = tag[len(TAG_PREFIX) :].strip()
            if value:
                refs.append(PaperRef(kind="tag", value=value, source=f"{where} tag {tag}"))
    seen: set[tuple[str, str]] = set()
    unique = []
    for ref in refs:
        if (ref.kind, ref.value) not in seen:
            seen.add((ref.kind, ref.value))
            unique.append(ref)
    return unique


def _by_venue(session: Session, challenge_id: int, values: list[str]) -> list[Paper]:
    if not values:
        return []
    return list(
        session.scalars(
            select(Paper)
            .where(Paper.challenge_id == challenge_id, Paper.venue_id.in_(values))
            .order_by(Paper.id)
        )
    )


def _by_arxiv(session: Session, challenge_id: int, values: list[str]) -> list[Paper]:
    found: dict[int, Paper] = {}
    for value in values:
        query = (
            select(Paper)
            .where(
                Paper.challenge_id == challenge_id,
                or_(
                    Paper.arxiv_id == value,
                    Paper.arxiv_id.like(f"{value}v%"),
                    Paper.venue_id == f"arxiv:{value}",
                ),
            )
            .order_by(Paper.id)
        )
        for paper in session.scalars(query):
            if arxiv_of(paper.arxiv_id or paper.venue_id) == value:
                found[paper.id] = paper
    return list(found.values())


def _describe(refs: list[PaperRef]) -> str:
    return ", ".join(f"{r.kind} {r.value!r} ({r.source})" for r in refs)


def _one(papers: list[Paper], refs: list[PaperRef], step: str) -> Paper | None:
    if len(papers) > 1:
        names = " and ".join(f"{p.venue_id!r} ({p.title[:60]})" for p in papers[:4])
        raise LogbookError(
            f"the logbook's {step} match several papers of this challenge: {names}; "
            f"references: {_describe(refs)}. Say which with --paper"
        )
    return papers[0] if papers else None


def link_paper(
    session: Session, challenge_id: int, refs: list[PaperRef], *, explicit: str | None = None
) -> tuple[Paper, PaperRef]:
    """The paper ``refs`` (or ``explicit``) name, and the reference that decided (see the module
    docstring for the order). Raises :class:`NotFoundError` when nothing matches."""
    if explicit is not None:
        text = _text(explicit)
        if text is None:
            raise LogbookError(f"--paper {explicit!r} is not a paper id")
        ref = PaperRef(kind="venue_id", value=text, source="--paper")
        paper = _one(_by_venue(session, challenge_id, [text]), [ref], "--paper")
        arxiv = arxiv_of(text)
        if paper is None and arxiv:
            ref = PaperRef(kind="arxiv_id", value=arxiv, source="--paper")
            paper = _one(_by_arxiv(session, challenge_id, [arxiv]), [ref], "--paper")
        if paper is None:
            raise NotFoundError(f"--paper {text!r} is not a paper of this challenge")
        return paper, ref
    steps = (
        ("venue ids", "venue_id", _by_venue),
        ("paper-* tags", "tag", _by_venue),
        ("arXiv ids", "arxiv_id", _by_arxiv),
    )
    for step, kind, find in steps:
        chosen = [r for r in refs if r.kind == kind]
        papers = find(session, challenge_id, [r.value for r in chosen])
        paper = _one(papers, chosen, step)
        if paper is not None:
            decided = next(
                (r for r in chosen if r.value in (paper.venue_id, arxiv_of(paper.arxiv_id or ""))),
                chosen[0],
            )
            return paper, decided
    if not refs:
        raise LogbookError(
            "the logbook does not say which paper it reproduces (no paper, no paper-<id> tag): "
            "give --paper"
        )
    raise NotFoundError(f"the logbook's paper is not in this challenge; tried {_describe(refs)}")


# ---- produced files ----

_DIR_FLAGS = frozenset(
    f"--{stem}{sep}{word}"
    for stem in ("output", "out", "save", "results", "result", "log", "logs", "artifact")
    for sep in ("-", "_")
    for word in ("dir", "directory", "folder", "path", "root")
) | {"--outdir", "--output", "--out", "--save", "--results", "--logdir"}  # fmt: skip
_FILE_FLAGS = frozenset({"--out", "--output", "-o", "--out-file", "--output-file", "--out_file",
                         "--output_file", "--csv", "--json", "--results", "--save"})  # fmt: skip
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>"})
_COMMAND_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "(", ")", "|&"})
_WRITE_CALL_RE = re.compile(
    r"\bopen\([^)]*[\"'](?:[wax]b?\+?)[\"']|\bto_(?:csv|json|parquet)\(|\bjson\.dump\(|"
    r"\bsavetxt\(|\bwrite_(?:text|bytes)\(|\bDictWriter\(|\bcsv\.writer\("
)
_APPEND_RE = re.compile(r"\bopen\([^)]*[\"']a\+?b?[\"']|mode\s*=\s*[\"']a")
_LITERAL_RE = re.compile(r"[\"']([^\"'\n]{1,200}?\.(?:csv|tsv|json|jsonl|ndjson|parquet|txt))[\"']",
                         re.IGNORECASE)  # fmt: skip


_FOLDER_RE = re.compile(r"[\"']((?:\.{0,2}/)?[A-Za-z_][\w\-]*(?:/[\w\-]+)*/?)[\"']")


_MODE_RE = re.compile(r"[rwaxbt+]{1,3}|utf-?8|ascii|latin-?1", re.IGNORECASE)  # not folders


def _norm(path: str) -> str:
    parts = [p for p in PurePosixPath(path.strip().strip("'\"")).parts if p not in (".", "")]
    return "/".join(parts)


def _unquoted(word: str) -> str:
    with contextlib.suppress(ValueError):
        parts = shlex.split(word)
        if len(parts) == 1:
            return parts[0]
    return word


def shell_writes(script: str) -> set[str]:
    """The files a shell command line writes by redirection (``> f``, ``>> f``, ``&> f``,
    ``| tee [-a] f``), read from its shell words: a ``>`` inside quotes is text, not a
    redirect. Unbalanced quotes: nothing (the line would not have run)."""
    lexer = shlex.shlex(script, posix=False, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return set()
    files: set[str] = set()
    for i, token in enumerate(tokens):
        target = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in _WRITE_OPERATORS and target and target not in _COMMAND_SEPARATORS:
            files.add(_unquoted(target))
        elif token == "tee" and (i == 0 or tokens[i - 1] in _COMMAND_SEPARATORS):
            for word in tokens[i + 1 :]:
                if word in _COMMAND_SEPARATORS or word in _WRITE_OPERATORS:
                    break
                if not word.startswith("-"):
                    files.add(_unquoted(word))
    return {name for name in files if name and not name.startswith("&")}


def run_writes(run: Run) -> tuple[set[str], set[str], set[str]]:
    """What ``run`` is shown to write: ``(files, folders, names)``: paths its command names as
    outputs, folders it writes into, and file names (or name endings) its shown scripts write."""
    files: set[str] = set()
    folders: set[str] = set()
    args = list(run.command)
    if len(args) >= 3 and args[0].rsplit("/", 1)[-1] in _SHELLS and args[1] == "-c":
        files |= {_norm(name) for name in shell_writes(args[2])}
        with contextlib.suppress(ValueError):  # unbalanced quotes: the words as recorded
            args = [*args[:2], *shlex.split(args[2])]
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
        if not value or value.startswith("-"):
            continue
        if flag in _DIR_FLAGS and not PurePosixPath(value).suffix:
            folders.add(_norm(value))
        elif flag in _FILE_FLAGS or flag in _DIR_FLAGS:
            files.add(_norm(value))
    names: set[str] = set()
    for source in run.scripts.values():
        if _WRITE_CALL_RE.search(source):
            found = {_norm(m.group(1).rsplit("}", 1)[-1].lstrip("/"))
                     for m in _LITERAL_RE.finditer(source)}  # fmt: skip
            # a folder the script names ("outputs", then OUT / "summary.json") places them,
            # unless the command names where the outputs go (the script's default then not)
            places = {_norm(m.group(1)) for m in _FOLDER_RE.finditer(source)
                      if not _MODE_RE.fullmatch(m.group(1))} - {""}  # fmt: skip
            places = set() if files or folders else places
            names |= found | {f"{place}/{name}" for place in places for name in found}
    return files - {""}, folders - {""}, names - {""}


def _moment(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.strip())
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _writes(run: Run, path: str) -> int:
    """How specifically ``run`` is shown to write ``path`` (0: it is not): the length of the
    path or folder that names it (a script's file name counts in the run's folders)."""
    files, folders, names = run_writes(run)
    if path in files:
        return len(path) + 1
    scores = [len(folder) for folder in folders if path.startswith(f"{folder}/")]
    named = [n for n in names if path == n or any(path == f"{f}/{n}" for f in folders)]
    scores += [len(path) for _ in named]
    return max(scores, default=0)


def _fits(run: Run, mtime: float | None, slack: float) -> bool:
    """A file is the run's only when it was last modified within the run's window (``slack``
    seconds either side): not before the run began, not after its cell was written. A run or a
    file without a time links nothing."""
    end = _moment(run.created_at)
    if mtime is None or end is None:
        return False
    duration = run.duration_s if run.duration_s and run.duration_s > 0 else 0.0
    start = end - min(duration, MAX_RUN_SECONDS)
    return start - slack <= mtime <= end + slack


def link_produced(
    base: Path, runs: Sequence[Run], files: Sequence[FileRef], *, slack: float = 2.0
) -> list[FileRef]:
    """Add to each successful or failed recorded run the ``files`` (found in ``base``) it is
    shown to write and whose timing fits (see the module docstring); returns the files no run
    wrote. A file already produced by a run is left alone."""
    unlinked: list[FileRef] = []
    already = {ref.path for run in runs for ref in run.produced}
    for ref in files:
        if ref.path in already:
            continue
        try:
            mtime: float | None = (base / ref.path).stat().st_mtime
        except OSError:
            mtime = None
        scored = [(_writes(run, ref.path), i) for i, run in enumerate(runs) if run.command]
        fitting = [(score, i) for score, i in scored
                   if score and _fits(runs[i], mtime, slack)]  # fmt: skip
        if not fitting:
            unlinked.append(ref)
            continue
        # the run that names it most exactly; among those, the last (it wrote this version)
        runs[max(fitting)[1]].produced.append(ref)
    return unlinked
