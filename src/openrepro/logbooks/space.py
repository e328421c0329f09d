"""Read a Trackio logbook published as a static Hugging Face Space (``trackio logbook publish``).

Layout of the Space (trackio 0.43, ``logbook._push``): the contents of the project's
``.trackio/logbook/`` folder, uploaded to the Space's root, plus a generated ``README.md``::

    README.md                    Space card (sdk: static, tags trackio / trackio-logbook)
    logbook.json                 the manifest (``traces`` emptied, ``traces_ref`` /
                                 ``workspace_ref`` pointing at a private dataset and bucket)
    pages/index.md               the pages, as in the local logbook
    pages/<slug>/page.md
    index.html, logbook.css, logbook.js, *.png, bucket-icon.svg    the static viewer
    workspace.json               reference-only (no file list)

``traces/`` is removed before the upload. Files a run produced (``path`` of artifact cells) are
*not* in the Space: trackio pushes them to the artifacts bucket, so a published logbook's
artifact cells are kept as cells only (no file, no hash, not a run's ``produced`` file). Neither
are metrics: trackio keeps them in its SQLite project file, or deploys a dashboard as a separate
Space. When a participant adds a Trackio static export (``metrics.parquet`` and ``runs.json``,
as ``SQLiteStorage.export_for_static_space`` writes them) to the Space root, its metrics are read
(``source="trackio-export"``); a ``*.db`` in ``trackio/`` or ``.trackio/`` of the folder read
takes precedence, as for a local logbook.

Only what a logbook needs is downloaded (:data:`ALLOW_PATTERNS`), after the Space's file list
was checked against a file-count and byte cap (those of archives, by default).

A Space reference is written ``space:owner/name``, ``hf:owner/name`` or
``https://huggingface.co/spaces/owner/name`` (also ``hf.co``); a bare ``owner/name`` is a local
path, never a Space, so a folder named ``a/b`` is never mistaken for one. The
``https://owner-name.hf.space`` form is not accepted: the Hub folds ``_``, ``.`` and ``-`` of
both parts into that host name, so the id cannot be recovered from it (trackio prints the
``huggingface.co/spaces`` form).
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from openrepro.errors import LogbookError
from openrepro.logbooks.limits import Budget
from openrepro.logbooks.manifest import EVIDENCE_MAP_FILE, page_tree
from openrepro.logbooks.records import Cell, LogbookRecord, Metric, Run
from openrepro.logbooks.trackio_reader import (
    MANIFEST,
    _Builder,
    _CellHeader,
    _find_dbs,
    _page_path,
    _read_db,
    _read_manifest,
    _read_text,
    build_record,
    read_trackio_export,
)

__all__ = [
    "ALLOW_PATTERNS",
    "download_space",
    "parse_space_ref",
    "read_space_logbook",
    "space_url",
]

#: the participant's evidence map sits at the Space's root, as at a local logbook's
ALLOW_PATTERNS = [MANIFEST, "pages/*.md", "metrics.parquet", "runs.json", EVIDENCE_MAP_FILE]
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_MAX_FILES = 5000
_PREFIXES = ("space:", "hf:")
_HUB_HOSTS = frozenset({"huggingface.co", "www.huggingface.co", "hf.co"})
_PART_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def _valid_id(space_id: str) -> bool:
    parts = space_id.split("/")
    return (
        len(parts) == 2
        and all(_PART_RE.fullmatch(p) for p in parts)
        and "--" not in space_id
        and ".." not in space_id
        and not any(p.endswith((".", "-")) for p in parts)
    )


def space_url(space_id: str) -> str:
    """The Space's page on the Hub."""
    return f"https://huggingface.co/spaces/{space_id}"


def parse_space_ref(text: str) -> str | None:
    """The Space id ``owner/name`` that ``text`` names, or ``None`` if it names no Space.

    Space references are ``space:owner/name``, ``hf:owner/name`` (``hf:spaces/owner/name`` too)
    and ``https://huggingface.co/spaces/owner/name[/...]``; anything else (``owner/name`` included)
    is left to be a local path. A reference of that form whose id is not a valid repo id is a
    :class:`LogbookError` rather than a path.
    """
    text = text.strip()
    lowered = text.lower()
    for prefix in _PREFIXES:
        if lowered.startswith(prefix):
            space_id = text[len(prefix) :].strip().strip("/")
            if space_id.startswith("spaces/"):
                space_id = space_id[len("spaces/") :]
            if not _valid_id(space_id):
                raise LogbookError(f"{text}: {space_id!r} is not a Space id (owner/name)")
            return space_id
    if not lowered.startswith("https://"):
        return None
    url = urlsplit(text)
    if (url.hostname or "").lower() not in _HUB_HOSTS:
        return None
    parts = [p for p in url.path.split("/") if p]
    if len(parts) < 3 or parts[0] != "spaces":
        return None
    space_id = f"{parts[1]}/{parts[2]}"
    if not _valid_id(space_id):
        raise LogbookError(f"{text}: {space_id!r} is not a Space id (owner/name)")
    return space_id


# ---- downloading ----


def _hub_error(space_id: str, exc: Exception) -> LogbookError:
    from huggingface_hub.errors import (
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    where = f"Space {space_id}"
    status = exc.response.status_code if isinstance(exc, HfHubHTTPError) else None
    if isinstance(exc, RevisionNotFoundError):
        return LogbookError(f"{where}: revision not found ({status})")
    if isinstance(exc, RepositoryNotFoundError) or status in (401, 403, 404):
        if status == 404:
            return LogbookError(f"{where}: not found (404)")
        return LogbookError(
            f"{where}: private or not found ({status}): a token with read access is needed"
        )
    if isinstance(exc, OfflineModeIsEnabled):
        return LogbookError(f"{where}: cannot download with HF_HUB_OFFLINE set")
    if status is not None:
        return LogbookError(f"{where}: the Hub answered {status}")
    return LogbookError(f"{where}: cannot download ({type(exc).__name__}: {exc})")


def download_space(
    space_id: str,
    dest: Path,
    *,
    endpoint: str | None = None,
    token: str | bool | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_files: int = DEFAULT_MAX_FILES,
) -> Path:
    """Download the logbook files of Space ``space_id`` into ``dest`` (new or empty); returns it.

    The Space's file list (with sizes) is read first; a Space without ``logbook.json``, or whose
    files to download number more than ``max_files`` or total more than ``max_bytes``, is
    refused before anything is downloaded. ``endpoint`` and ``token`` default to
    huggingface_hub's settings (``HF_ENDPOINT``, ``HF_TOKEN`` or the stored login);
    ``token=False`` sends no token at all, as for a participant's submission: the server's own
    token could read (and the board then publish) a private Space.
    """
    from huggingface_hub import HfApi, snapshot_download

    if not _valid_id(space_id):
        raise LogbookError(f"{space_id!r} is not a Space id (owner/name)")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise LogbookError(f"{dest}: must be a new or empty folder to download Space {space_id}")
    api = HfApi(endpoint=endpoint, token=token)
    try:
        info = api.space_info(space_id, files_metadata=True)
    except Exception as exc:  # HfHubHTTPError, or the HTTP client's transport errors
        raise _hub_error(space_id, exc) from exc
    sizes = {s.rfilename: s.size or 0 for s in info.siblings or []}
    if MANIFEST not in sizes:
        raise LogbookError(
            f"Space {space_id}: no {MANIFEST} in it (not a logbook published by Trackio)"
        )
    wanted = [n for n in sorted(sizes) if any(fnmatch.fnmatch(n, p) for p in ALLOW_PATTERNS)]
    total = sum(sizes[name] for name in wanted)
    if len(wanted) > max_files:
        raise LogbookError(
            f"Space {space_id}: {len(wanted)} logbook files, more than the cap of {max_files}"
        )
    if total > max_bytes:
        raise LogbookError(
            f"Space {space_id}: its logbook files total {total} bytes, more than the cap of "
            f"{max_bytes}"
        )
    dest.mkdir(parents=True, exist_ok=True)
    try:
        snapshot_download(
            space_id,
            repo_type="space",
            revision=info.sha,
            local_dir=dest,
            cache_dir=dest / ".cache" / "openrepro-hub",
            allow_patterns=ALLOW_PATTERNS,
            endpoint=endpoint,
            token=token,
            max_workers=4,
        )
    except Exception as exc:  # as above
        raise _hub_error(space_id, exc) from exc
    written = sum((dest / name).stat().st_size for name in wanted if (dest / name).is_file())
    if written > max_bytes:  # the file list understated the sizes
        raise LogbookError(f"Space {space_id}: downloaded {written} bytes, over {max_bytes}")
    if not (dest / MANIFEST).is_file():
        raise LogbookError(f"Space {space_id}: {MANIFEST} was not downloaded")
    return dest


# ---- reading ----


class _SpaceBuilder(_Builder):
    """An artifact cell whose file is not in the Space (it is in trackio's bucket) is kept as a
    cell only, like a Trackio-artifact cell: there is nothing to hash."""

    def _add_cell(
        self, cell: Cell, header: _CellHeader, last_run: Run | None, where: str
    ) -> Run | None:
        if cell.type == "artifact" and header.path and not self._present(header.path):
            return last_run if header.auto else None
        return super()._add_cell(cell, header, last_run, where)

    def _present(self, relative: str) -> bool:
        pure = PurePosixPath(relative)
        if pure.is_absolute() or ".." in pure.parts or "\\" in relative or not relative.strip():
            return True  # let the reader refuse it
        path = self.base / pure
        return path.is_file() or path.is_symlink()


def _metrics(folder: Path, budget: Budget) -> list[Metric]:
    dbs = _find_dbs(folder, None, None)
    if dbs:
        return [m for db in dbs for m in _read_db(db, budget)]
    if (folder / "metrics.parquet").is_file():
        found = read_trackio_export(folder)
        budget.metrics(len(found))
        return found
    return []


def read_space_logbook(folder: Path) -> LogbookRecord:
    """Read a downloaded logbook Space (``logbook.json`` at the root of ``folder``)."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise LogbookError(f"{folder}: no {MANIFEST} (not a published Trackio logbook)")
    manifest = _read_manifest(manifest_path, MANIFEST)
    builder = _SpaceBuilder(folder)
    budget = Budget(MANIFEST)  # the caps of every logbook: openrepro.logbooks.limits
    nodes, problems = page_tree(folder, manifest)
    builder.warnings.extend(problems)
    for node in nodes:
        budget.pages()
        path = _page_path(folder, node, MANIFEST)
        name = path.relative_to(folder).as_posix()
        builder.add_page(node, budget.text(_read_text(path, name)), name)
        budget.cells(len(builder.pages[-1].cells))
    return build_record(manifest, builder, _metrics(folder, budget), str(folder))
