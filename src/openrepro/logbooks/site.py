"""A logbook as a static site: ``index.html`` plus the logbook's own images, nothing else.

Used by ``openrepro logbook render`` and ``openrepro logbook publish`` (a static Space). Only
image files of the logbook itself (png, jpg, gif, webp) are copied, renamed by their sha256, so
the page never loads anything from elsewhere; other files are listed with their hashes.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.render import IMAGE_EXTENSIONS, render_logbook

__all__ = ["build_site"]

Locate = Callable[[FileRef], Path | None]


def build_site(record: LogbookRecord, locate: Locate, out: Path) -> Path:
    """Write the site for ``record`` into ``out`` (created); ``locate`` finds a file's bytes."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "files").mkdir(exist_ok=True)

    def file_url(ref: FileRef) -> str | None:
        suffix = PurePosixPath(ref.path).suffix.lower()
        if suffix not in IMAGE_EXTENSIONS:
            return None
        source = locate(ref)
        if source is None or not source.is_file():
            return None
        name = f"{ref.sha256}{suffix}"
        target = out / "files" / name
        if not target.exists():
            shutil.copyfile(source, target)
        return f"files/{name}"

    (out / "index.html").write_text(render_logbook(record, file_url=file_url), encoding="utf-8")
    return out / "index.html"
