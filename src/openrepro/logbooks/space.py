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

**Gradio Spaces.** The 2026 event also scored logbooks published as Gradio Spaces: an
``app.py`` that shows Markdown pages (``pages/*.md``) and result files (``evidence/*.json``,
CSV), with no ``logbook.json``. :func:`read_gradio_space` reads them, from a folder or a
``space:`` id (:data:`GRADIO_PATTERNS` are downloaded then), as testimony pages plus files no
recorded run produced (format ``trackio``, format version ``gradio-space``); paper tags come
from the Space card's front matter (``tags: [paper-<id>]``).

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
from openrepro.logbooks.records import Cell, FileRef, LogbookRecord, Metric, Run
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
    "GRADIO_FORMAT_VERSION",
    "GRADIO_PATTERNS",
    "download_space",
    "is_gradio_space",
    "parse_space_ref",
    "read_gradio_space",
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
    patterns = ALLOW_PATTERNS
    if MANIFEST not in sizes:
        gradio = "app.py" in sizes and any(fnmatch.fnmatch(n, "pages/*.md") for n in sizes)
        if not gradio:
            raise LogbookError(
                f"Space {space_id}: no {MANIFEST} in it (not a logbook published by Trackio) "
                "and no app.py with pages/*.md (not a Gradio-Space logbook)"
            )
        patterns = GRADIO_PATTERNS
    wanted = [n for n in sorted(sizes) if any(fnmatch.fnmatch(n, p) for p in patterns)]
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
            allow_patterns=patterns,
            endpoint=endpoint,
            token=token,
            max_workers=4,
        )
    except Exception as exc:  # as above
        raise _hub_error(space_id, exc) from exc
    written = sum((dest / name).stat().st_size for name in wanted if (dest / name).is_file())
    if written > max_bytes:  # the file list understated the sizes
        raise LogbookError(f"Space {space_id}: downloaded {written} bytes, over {max_bytes}")
    if patterns is ALLOW_PATTERNS and not (dest / MANIFEST).is_file():
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
        return [m for db in dbs for m in _read_db(db, budget, db.name)]
    if (folder / "metrics.parquet").is_file():
        found = read_trackio_export(folder)
        budget.metrics(len(found))
        return found
    return []


def read_space_logbook(folder: Path) -> LogbookRecord:
    """Read a downloaded logbook Space (``logbook.json`` at the root of ``folder``, or a
    Gradio-Space logbook: :func:`read_gradio_space`)."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file() and is_gradio_space(folder):
        return read_gradio_space(folder)
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


# ---- Gradio Spaces: pages, an app, files ----

#: what a Gradio-Space logbook needs, downloaded by :func:`download_space` when the Space has no
#: ``logbook.json`` (``*`` crosses folders in these patterns)
GRADIO_PATTERNS = ["README.md", "app.py", "pages/*.md", "evidence/*", EVIDENCE_MAP_FILE]
GRADIO_FORMAT_VERSION = "gradio-space"
_FRONT_MATTER_RE = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SLUG_RE = re.compile(r"[^a-z0-9]+")


def _front_matter(text: str) -> tuple[str, list[str]]:
    """``(title, tags)`` of a Space card's YAML front matter (the two keys read; a simple
    reader: ``key: value`` lines and ``- item`` lists)."""
    match = _FRONT_MATTER_RE.match(text.replace("\r\n", "\n"))
    if match is None:
        return "", []
    title, tags, key = "", [], ""
    for line in match.group(1).splitlines():
        stripped = line.strip()
        if stripped.startswith("- ") and key == "tags":
            tags.append(stripped[2:].strip().strip("'\""))
        elif ":" in line and not line.startswith((" ", "\t")):
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "title":
                title = value.strip("'\"")
            elif key == "tags" and value.startswith("["):
                tags += [t.strip().strip("'\"") for t in value.strip("[]").split(",") if t.strip()]
    return title, tags[:50]


def is_gradio_space(folder: Path) -> bool:
    """A Gradio-Space logbook: ``app.py`` and Markdown pages under ``pages/``, no ``logbook.json``
    (a Trackio logbook, local or published, has one)."""
    pages = folder / "pages"
    return (
        (folder / "app.py").is_file()
        and pages.is_dir()
        and not (folder / MANIFEST).is_file()
        and any(p.suffix == ".md" and p.is_file() for p in pages.rglob("*.md"))
    )


def _page_slug(relative: PurePosixPath) -> str:
    parts = list(relative.parts[1:])  # under pages/
    if parts and parts[-1] == "page.md" and len(parts) > 1:
        parts = parts[:-1]
    else:
        parts[-1] = parts[-1][: -len(".md")]
    return _SLUG_RE.sub("-", "/".join(parts).lower()).strip("-") or "page"


def read_gradio_space(folder: Path, *, max_files: int = DEFAULT_MAX_FILES) -> LogbookRecord:
    """Read a Gradio-Space logbook (the event's other layout: ``app.py`` showing Markdown pages
    ``pages/*.md`` and result files, often ``evidence/*.json``): each page is testimony, every
    other file of the Space (``evidence/`` and the rest, hidden files, ``pages/`` and the card
    aside) a file no recorded run produced. It has no runs and no metrics, so nothing in it is
    evidence by itself: a value in its files stays ``testimony`` until a higher level (a replay,
    an attested job) stands behind it."""
    from openrepro.logbooks.bundle import file_ref
    from openrepro.logbooks.linking import paper_refs
    from openrepro.logbooks.records import Page, Testimony
    from openrepro.logbooks.tables import index_tables
    from openrepro.logbooks.trackio_reader import _claims

    if not is_gradio_space(folder):
        raise LogbookError(f"{folder}: not a Gradio-Space logbook (app.py and pages/*.md)")
    warnings: list[str] = []
    card = folder / "README.md"
    title, tags = _front_matter(_read_text(card, "README.md")) if card.is_file() else ("", [])
    pages: list[Page] = []
    testimony: list[Testimony] = []
    seen: set[str] = set()
    for path in sorted((folder / "pages").rglob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = PurePosixPath(path.relative_to(folder).as_posix())
        slug = _page_slug(relative)
        if slug in seen:
            warnings.append(f"{relative}: page name {slug!r} repeats; read as {slug}~2")
            slug += "~2"
        seen.add(slug)
        text = _read_text(path, str(relative)).replace("\r\n", "\n")
        heading = _HEADING_RE.search(text)
        page_title = heading.group(1).strip("*_ ") if heading else slug
        cell = Cell(id=f"{slug}#0", type="markdown", page=slug, body=text.strip())
        pages.append(Page(slug=slug, title=page_title, cells=[cell]))
        testimony.append(Testimony(page=slug, cell=cell.id, text=text))
    files: list[FileRef] = []
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder)
        hidden = any(part.startswith(".") for part in name.parts)
        if hidden or path.is_symlink() or not path.is_file():
            continue
        if name.parts[0] == "pages" or name.as_posix() in ("README.md", EVIDENCE_MAP_FILE):
            continue
        if len(files) >= max_files:
            warnings.append(f"more than {max_files} files: the rest are left out")
            break
        files.append(file_ref(folder, name.as_posix(), "Gradio Space"))
    tables, problems = index_tables(folder, [], pages, [(ref, "", "") for ref in files])
    refs = paper_refs(None, tags, "README.md (Space card)")
    paper_id = next((r.value for r in refs if r.kind == "tag"), None)
    return LogbookRecord(
        format="trackio", format_version=GRADIO_FORMAT_VERSION, title=title,
        paper_id=paper_id, claims=_claims(paper_id, pages, []), pages=pages, testimony=testimony,
        files=files, source=str(folder), tags=tags, paper_refs=refs, tables=tables,
        warnings=[*warnings, *problems],
    )  # fmt: skip
