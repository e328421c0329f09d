"""Challenge side files participants keep beside their logbook.

Real submissions hold, next to ``.trackio/``: a copy of the challenge's claims (a
``claims_snapshot.json``, ``claims.json`` or ``claims_anchored.json`` the agent downloaded), a
``STATUS.md`` with the event's official verdict, and the paper itself (``paper/*.pdf``). None is
evidence:

* a **claims copy** is testimony about what the participant thought the claims were. It is
  recorded (hashed, kept, its claim count shown) and never read as the challenge's claims: the
  judge uses the claims stored in the challenge;
* a **status file** is testimony (the verdict someone else gave);
* a **paper PDF** is ignored for evidence: it is listed, not kept, never read. A poster or
  slides (:func:`is_poster`: so named, or a one-page PDF) is not the paper and is not listed.

Only the folder's top level and its first level of sub-folders are looked at (``.trackio``,
``.git`` and hidden folders excepted), and at most :data:`MAX_SIDE_FILES` files are recorded.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from openrepro.logbooks.bundle import file_ref
from openrepro.logbooks.manifest import MAX_JSON_BYTES
from openrepro.logbooks.records import FileRef, SideFile, Testimony

__all__ = ["MAX_SIDE_FILES", "find_side_files", "is_poster"]

MAX_SIDE_FILES = 20
MAX_STATUS_BYTES = 1024 * 1024
_CLAIMS_RE = re.compile(r"^(?:.*[_-])?claims(?:[_-].*)?\.json$", re.IGNORECASE)
_STATUS_NAMES = frozenset({"status.md", "status.txt"})
_TEXT_KEYS = ("claim", "text", "statement", "claim_text")


def _candidates(base: Path) -> list[Path]:
    found: list[Path] = []
    folders = [base]
    try:
        folders += sorted(
            d for d in base.iterdir()
            if d.is_dir() and not d.is_symlink() and not d.name.startswith(".")
        )  # fmt: skip
        for folder in folders:
            found.extend(sorted(f for f in folder.iterdir() if f.is_file() and not f.is_symlink()))
    except OSError:
        return found
    return found


def _claim_count(path: Path) -> int | None:
    """How many claims a claims copy lists, or ``None`` when it is not one."""
    if path.stat().st_size > MAX_JSON_BYTES:
        return None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):
        return None
    if isinstance(data, dict):
        data = data.get("claims")
    if not isinstance(data, list) or not data:
        return None
    if not all(isinstance(c, dict) and any(k in c for k in _TEXT_KEYS) for c in data):
        return None
    return len(data)


_POSTER_NAME_RE = re.compile(r"poster|slides?|presentation|talk|banner|teaser", re.IGNORECASE)
_PAGE_COUNT_RE = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)", re.DOTALL)
_PDF_PROBE_BYTES = 4 * 1024 * 1024


def is_poster(path: Path) -> bool:
    """A PDF that is not the paper: named as a poster or slides, or one page long (a poster;
    a paper has several) when its page tree says so in plain text (compressed object streams
    say nothing, and the PDF is then taken by its name)."""
    if _POSTER_NAME_RE.search(path.stem):
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(_PDF_PROBE_BYTES)
    except OSError:
        return False
    counts = [int(n) for n in _PAGE_COUNT_RE.findall(head)]
    return bool(counts) and max(counts) == 1


def _first_line(path: Path) -> str:
    if path.stat().st_size > MAX_STATUS_BYTES:
        return ""
    text = path.read_bytes().decode("utf-8", errors="replace")
    return next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), "")


def find_side_files(base: Path) -> tuple[list[SideFile], list[FileRef], list[Testimony]]:
    """The side files under ``base``; the files to keep (claims copies and status files); and
    the testimony they are (a status file's text)."""
    sides: list[SideFile] = []
    keep: list[FileRef] = []
    testimony: list[Testimony] = []
    for path in _candidates(base):
        if len(sides) >= MAX_SIDE_FILES:
            break
        relative = path.relative_to(base).as_posix()
        name = path.name.lower()
        if (
            name.endswith(".pdf")
            and (path.parent == base or path.parent.name.lower() == "paper")
            and not is_poster(path)
        ):
            size = path.stat().st_size
            sides.append(SideFile(kind="paper-pdf", path=relative, size=size,
                                  summary="a paper PDF: ignored for evidence"))  # fmt: skip
        elif _CLAIMS_RE.match(path.name) and (count := _claim_count(path)) is not None:
            ref = file_ref(base, relative, "claims copy")
            keep.append(ref)
            summary = f"{count} claims (testimony)"
            sides.append(SideFile(kind="claims-copy", path=relative, sha256=ref.sha256,
                                  size=ref.size, summary=summary))  # fmt: skip
        elif name in _STATUS_NAMES and path.parent == base:
            ref = file_ref(base, relative, "status file")
            keep.append(ref)
            line = _first_line(path)
            sides.append(SideFile(kind="status", path=relative, sha256=ref.sha256,
                                  size=ref.size, summary=line[:200]))  # fmt: skip
            if ref.size <= MAX_STATUS_BYTES:
                text = path.read_bytes().decode("utf-8", errors="replace")
                testimony.append(Testimony(page="status", cell=relative, text=text))
    return sides, keep, testimony
