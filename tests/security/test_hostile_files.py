"""Hostile archives and files, beyond tests/logbooks/test_archive.py (which covers slips, absolute
paths, links, devices, bombs, clashes, caps and corrupt archives member by member).

Here: the archive cases that suite lacks (block devices, a link then a write through it, hard
links to an inside member, NUL bytes in zip and pax names, xz/bz2 bombs), and hostile *contents*
of well-formed archives and folders - huge, deeply nested and over-long-number JSON in
manifest.json, logbook.json, cell markers and Trackio metrics, invalid UTF-8, NUL bytes - sent
through ``submit_logbook`` and the API upload on SQLite and PostgreSQL. Each must raise the
project's own error with a message naming the file and the problem, write nothing outside the
target and leave the store (rows and content-addressed files) unchanged.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError, OpenReproError, UnsafeArchiveError
from openrepro.identity import register
from openrepro.logbooks.archive import ArchiveLimits, safe_extract
from openrepro.logbooks.bundle import MAX_JSON_BYTES
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Logbook, Participant

MiB = 1024 * 1024
DEEP = "[" * 50_000 + "]" * 50_000
LONG_INT = "9" * 5_000

# --- archives ----------------------------------------------------------------------------------


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str) -> Path:
    fmt = tarfile.PAX_FORMAT if any(i.pax_headers for i, _ in members) else tarfile.GNU_FORMAT
    with tarfile.open(path, mode, format=fmt) as tar:
        for info, data in members:
            info.size = len(data) if data is not None else 0
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _info(name: str, kind: bytes = tarfile.REGTYPE, **extra: Any) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode = kind, 0o644
    for key, value in extra.items():
        setattr(info, key, value)
    return info


def _zip_nul_name(path: Path) -> Path:
    """A zip whose member is named ``ok\\0/../../evil.txt`` (zipfile cuts names at NUL)."""
    placeholder = "okX/../../evil.txt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(placeholder, b"pwned")
    data = path.read_bytes().replace(placeholder.encode(), b"ok\x00/../../evil.txt")
    path.write_bytes(data)
    return path


def _zip_mode(path: Path, mode: int) -> Path:
    info = zipfile.ZipInfo("node")
    info.external_attr = (mode | 0o644) << 16
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(info, b"")
    return path


def _zeros(path: Path, mode: str) -> Path:
    zeros = bytes(2 * MiB)
    return _tar(path, [(_info(f"z{i}.bin"), zeros) for i in range(2)], mode)


ARCHIVES: list[Any] = [
    pytest.param(
        lambda d: _tar(d / "blk.tar", [(_info("sda", tarfile.BLKTYPE), None)], "w"),
        r"blk\.tar: member 'sda' is a device",
        id="tar-block-device",
    ),
    pytest.param(
        lambda d: _tar(
            d / "through.tgz",
            [
                (_info("d", tarfile.SYMTYPE, linkname=str(d.parent)), None),
                (_info("d/evil.txt"), b"pwned"),
            ],
            "w:gz",
        ),
        r"member 'd' is a symbolic link",
        id="tar-link-then-write-through-it",
    ),
    pytest.param(
        lambda d: _tar(
            d / "inner.tgz",
            [(_info("a.txt"), b"a"), (_info("b.txt", tarfile.LNKTYPE, linkname="a.txt"), None)],
            "w:gz",
        ),
        r"member 'b\.txt' is a hard link",
        id="tar-hardlink-to-inside-member",
    ),
    pytest.param(
        lambda d: _tar(
            d / "nul.tar",
            [(_info("ok.txt", pax_headers={"path": "ok\x00/../../evil.txt"}), b"pwned")],
            "w",
        ),
        r"nul\.tar: member 'ok\\x00/\.\./\.\./evil\.txt' has a control character",
        id="tar-pax-nul-in-name",
    ),
    pytest.param(
        lambda d: _zip_nul_name(d / "nul.zip"),
        r"nul\.zip: member 'ok\\x00/\.\./\.\./evil\.txt' has a control character",
        id="zip-nul-in-name",
    ),
    pytest.param(
        lambda d: _zip_mode(d / "dev.zip", stat.S_IFBLK),
        r"dev\.zip: member 'node' is a device",
        id="zip-block-device",
    ),
    pytest.param(
        lambda d: _zip_mode(d / "fifo.zip", stat.S_IFIFO),
        r"fifo\.zip: member 'node' is a FIFO",
        id="zip-fifo",
    ),
    pytest.param(
        lambda d: _zeros(d / "bomb.tar.xz", "w:xz"),
        r"bomb\.tar\.xz: expands [\d,]+ times",
        id="tar-xz-bomb",
    ),
    pytest.param(
        lambda d: _zeros(d / "bomb.tar.bz2", "w:bz2"),
        r"bomb\.tar\.bz2: expands [\d,]+ times",
        id="tar-bz2-bomb",
    ),
    pytest.param(
        lambda d: _tar(d / "dot.tar", [(_info("."), b"x")], "w"),
        r"member '\.' has an empty name",
        id="tar-file-named-dot",
    ),
]


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.parametrize(("build", "match"), ARCHIVES)
def test_more_hostile_archives(tmp_path: Path, build: Callable[[Path], Path], match: str) -> None:
    uploads, parent = tmp_path / "uploads", tmp_path / "work" / "parent"
    uploads.mkdir()
    parent.mkdir(parents=True)
    archive = build(uploads)
    before = _tree(tmp_path)
    with pytest.raises(UnsafeArchiveError, match=match):
        safe_extract(archive, parent, ArchiveLimits())
    assert _tree(tmp_path) == before, "something was written"
    assert not (tmp_path / "work" / "evil.txt").exists()


# --- hostile contents ----------------------------------------------------------------------------


def _bundle(root: Path, **manifest: Any) -> Path:
    return make_bundle(root, **manifest)


def _raw_manifest(root: Path, data: bytes) -> Path:
    folder = make_bundle(root)
    (folder / "manifest.json").write_bytes(data)
    return folder


def _with_file(root: Path, relative: str, data: bytes) -> Path:
    folder = make_bundle(root)
    (folder / relative).write_bytes(data)
    return folder


def _trackio(
    root: Path,
    *,
    logbook: str | bytes | None = None,
    page: str | bytes = '---\n<!-- trackio-cell\n{"type": "markdown"}\n-->\nNotes.\n',
    rows: list[tuple[Any, ...]] | None = None,
) -> Path:
    """A hand-made Trackio logbook folder (the real CLI's output is used by the XSS suite)."""
    folder = root / "project"
    pages = folder / ".trackio" / "logbook" / "pages"
    pages.mkdir(parents=True)
    root_page = {"slug": "index", "title": "Claim C1", "file": "pages/index.md"}
    manifest = {"schema_version": 2, "title": "Repro", "paper": "p1", "root": root_page}
    text = logbook if logbook is not None else json.dumps(manifest)
    (pages.parent / "logbook.json").write_bytes(text.encode() if isinstance(text, str) else text)
    (pages / "index.md").write_bytes(page.encode() if isinstance(page, str) else page)
    if rows is not None:
        conn = sqlite3.connect(folder / ".trackio" / "repro.db")
        conn.execute("CREATE TABLE metrics (id, run_name, step, timestamp, metrics)")
        conn.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?)", rows)
        conn.commit()
        conn.close()
    return folder


def _cell(header: str) -> str:
    return f"---\n<!-- trackio-cell\n{header}\n-->\nbody\n"


def _huge_manifest(root: Path) -> Path:
    folder = make_bundle(root)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["title"] = "x" * (MAX_JSON_BYTES + 1)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


HOSTILE_CONTENT: list[tuple[str, Callable[[Path], Path], str]] = [
    ("manifest-deep", lambda d: _raw_manifest(d, DEEP.encode()),
     r"manifest\.json: unreadable JSON \(nested too deeply\)"),
    ("manifest-deep-object", lambda d: _raw_manifest(d, ('{"a":' * 20_000 + "1" + "}" * 20_000)
                                                    .encode()),
     r"manifest\.json: unreadable JSON \(nested too deeply\)"),
    ("manifest-long-integer", lambda d: _raw_manifest(d, f'{{"paper": {LONG_INT}}}'.encode()),
     r"manifest\.json: unreadable JSON \(Exceeds the limit"),
    ("manifest-huge", _huge_manifest, r"manifest\.json: [\d,]+ bytes, above the limit of"),
    ("manifest-invalid-utf8", lambda d: _raw_manifest(d, b'{"paper": "p1\xff\xfe"}'),
     r"manifest\.json: not valid UTF-8"),
    ("manifest-nul-byte", lambda d: _raw_manifest(d, b'{"openrepro_bundle": 1,\x00 "paper": 1}'),
     r"manifest\.json: invalid JSON at line 1"),
    ("manifest-nul-in-title", lambda d: _bundle(d, title="a\x00<script>"),
     r"the logbook's title contains a NUL character"),
    ("manifest-nul-in-paper", lambda d: _bundle(d, paper="p1\x00"),
     r"the logbook's paper id contains a NUL character"),
    ("manifest-nested-metric", lambda d: _bundle(d, metrics=[{"run": "seed0", "key": "k",
                                                              "value": [[[[1.0]]]]}]),
     r"manifest\.json: metrics\.0\.value: Input should be a valid number"),
    ("manifest-infinite-metric", lambda d: _raw_manifest(d, json.dumps(
        {"openrepro_bundle": 1, "paper": "p1", "runs": [{"id": "r", "command": ["x"]}],
         "metrics": [{"run": "r", "key": "k", "value": 1e999}]}).encode()),
     r"metrics\.0\.value: Value error, must be a finite number"),
    ("log-invalid-utf8", lambda d: _with_file(d, "logs/seed0.txt", b"epoch 1\n\xc3\x28\n"),
     r"logs/seed0\.txt is not valid UTF-8"),
    ("log-too-large", lambda d: _with_file(d, "logs/seed0.txt", b"a" * (5 * MiB + 1)),
     r"logs/seed0\.txt is larger than 5242880 bytes"),
    ("logbook-deep", lambda d: _trackio(d, logbook='{"schema_version": 2, "root": ' + DEEP + "}"),
     r"logbook\.json: unreadable JSON \(nested too deeply\)"),
    ("logbook-long-integer", lambda d: _trackio(d, logbook=f'{{"schema_version": {LONG_INT}}}'),
     r"logbook\.json: unreadable JSON \(Exceeds the limit"),
    ("logbook-invalid-utf8", lambda d: _trackio(d, logbook=b'{"title": "\xff"}'),
     r"logbook\.json: not valid UTF-8"),
    ("logbook-pages-nested", lambda d: _trackio(d, logbook=json.dumps(
        {"schema_version": 2, "root": _nested_pages(400)})),
     r"logbook\.json: "),
    ("page-invalid-utf8", lambda d: _trackio(d, page=b"# Notes\n\xff\xfe\n"),
     r"pages/index\.md: not valid UTF-8 at byte 8"),
    ("cell-deep", lambda d: _trackio(d, page=_cell(DEEP)),
     r"pages/index\.md, line 3: cell marker is unreadable JSON \(nested too deeply\)"),
    ("cell-long-integer", lambda d: _trackio(d, page=_cell(f'{{"exit_code": {LONG_INT}}}')),
     r"pages/index\.md, line 3: cell marker is unreadable JSON"),
    ("cell-nul", lambda d: _trackio(d, page=_cell('{"type": "mark\x00down"}')),
     r"pages/index\.md, line 3: (unknown cell type|cell marker is not valid JSON)"),
    ("metrics-deep", lambda d: _trackio(d, rows=[(1, "r", 0, None, DEEP)]),
     r"repro\.db: metrics row 1: metrics is unreadable JSON \(nested too deeply\)"),
    ("metrics-long-integer",
     lambda d: _trackio(d, rows=[(1, "r", 0, None, f'{{"k": {LONG_INT}}}')]),
     r"repro\.db: metrics row 1: metrics is unreadable JSON"),
    ("metrics-step-null", lambda d: _trackio(d, rows=[(1, "r", None, None, '{"k": 1}')]),
     r"repro\.db: metrics row 1: step None is not an integer"),
    ("metrics-step-text", lambda d: _trackio(d, rows=[(1, "r", "1e999", None, '{"k": 1}')]),
     r"repro\.db: metrics row 1: step '1e999' is not an integer"),
    ("metrics-not-sqlite", lambda d: _corrupt_db(_trackio(d)),
     r"repro\.db: cannot read the Trackio database"),
]  # fmt: skip


def _nested_pages(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"slug": "leaf", "file": "pages/index.md"}
    for i in range(depth):
        node = {"slug": f"s{i}", "file": "pages/index.md", "children": [node]}
    return node


def _corrupt_db(folder: Path) -> Path:
    (folder / ".trackio" / "repro.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    return folder


ACCEPTED: list[tuple[str, Callable[[Path], Path]]] = [
    # NUL bytes inside a log or a page are text like any other (shown escaped), on both backends
    ("log-with-nul", lambda d: _with_file(d, "logs/seed0.txt", b"epoch\x00 1\naccuracy 0.87\n")),
    ("page-with-nul", lambda d: _trackio(d, page=_cell('{"type": "markdown"}') + "a\x00b\n")),
    # a metric beyond a float's range is skipped like NaN, not a crash
    ("metrics-huge-int", lambda d: _trackio(d, rows=[(1, "r", 0, None, '{"k": 1' + "0" * 400
                                                        + ', "claims/p1/C1/acc": 0.5}')])),
]  # fmt: skip


def _state(ctx: ChallengeContext) -> tuple[int, int, set[str]]:
    with ctx.store.session() as session:
        books = int(session.scalar(select(func.count(Logbook.id))) or 0)
        people = int(session.scalar(select(func.count(Participant.id))) or 0)
    files = ctx.settings.resolved_files_dir()
    return books, people, (_tree(files) if files.exists() else set())


@pytest.fixture
def paper_ctx(challenge: ChallengeContext, tmp_path: Path) -> ChallengeContext:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="Paper one")], source="test")  # fmt: skip
    submit_logbook(challenge, make_bundle(tmp_path / "seed-bundle"), handle="first")
    return challenge


def test_hostile_contents_are_refused_and_nothing_is_stored(
    paper_ctx: ChallengeContext, tmp_path: Path
) -> None:
    before = _state(paper_ctx)
    problems: list[str] = []
    for name, build, match in HOSTILE_CONTENT:
        source = build(tmp_path / name)
        outside = _tree(tmp_path)
        try:
            submit_logbook(paper_ctx, source, handle="mallory")
        except LogbookError as exc:
            if not re.search(match, str(exc)):
                problems.append(f"{name}: message {str(exc)[:300]!r} does not match {match!r}")
            if len(str(exc)) > 2_000:
                problems.append(f"{name}: a {len(str(exc))}-character message")
        except Exception as exc:  # the point: only the project's errors
            problems.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
        else:
            problems.append(f"{name}: accepted")
        assert _state(paper_ctx) == before, f"{name}: the store changed"
        assert _tree(tmp_path) == outside, f"{name}: files were written"
    assert problems == [], "\n".join(problems)


def test_odd_but_harmless_contents_are_stored(paper_ctx: ChallengeContext, tmp_path: Path) -> None:
    for name, build in ACCEPTED:
        report = submit_logbook(paper_ctx, build(tmp_path / name), handle=name)
        assert report.status == "new", name
    books, _, _ = _state(paper_ctx)
    assert books == 1 + len(ACCEPTED)


def _targz(folder: Path, target: Path) -> Path:
    with tarfile.open(target, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return target


def test_hostile_uploads_through_the_api(
    paper_ctx: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upload endpoint: 422 with the project's error, nothing stored, no temp files left."""
    token = register(paper_ctx, "mallory").token
    client = TestClient(create_app(paper_ctx, cache_seconds=0))
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    cases: list[tuple[Path, str]] = [
        (_zip_nul_name(uploads / "nul.zip"), r"has a control character"),
        (_tar(uploads / "link.tgz", [(_info("d", tarfile.SYMTYPE, linkname="/etc"), None),
                                     (_info("d/passwd"), b"x")], "w:gz"),
         r"link\.tgz: member 'd' is a symbolic link"),
        (_zeros(uploads / "xz-bomb.tar", "w:xz"), r"xz-bomb\.tar: expands [\d,]+ times"),
        (_targz(_raw_manifest(tmp_path / "deep", DEEP.encode()), uploads / "deep.tar.gz"),
         r"manifest\.json: unreadable JSON \(nested too deeply\)"),
        (_targz(_trackio(tmp_path / "tdeep", rows=[(1, "r", 0, None, DEEP)]),
                uploads / "metrics.tgz"), r"metrics is unreadable JSON"),
        (_targz(_bundle(tmp_path / "nul", title="\x00"), uploads / "nul.tar.gz"),
         r"title contains a NUL character"),
    ]  # fmt: skip
    before = _state(paper_ctx)
    scratch = tmp_path / "scratch"  # where the upload and its unpacking go
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    for archive, match in cases:
        with archive.open("rb") as fh:
            reply = client.post(
                "/api/v1/logbooks",
                files={"file": (archive.name, fh, "application/octet-stream")},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert reply.status_code == 422, (archive.name, reply.text)
        error = reply.json()["error"]
        assert error["type"] in {"LogbookError", "UnsafeArchiveError"}, error
        assert re.search(match, error["message"]), (archive.name, error)
        assert _state(paper_ctx) == before, archive.name
    assert list(scratch.iterdir()) == [], "temporary files were left behind"
    # an upload above the challenge's byte cap is refused before its body is read
    paper_ctx.settings.archive_max_bytes = 64 * 1024
    big = uploads / "big.tar"
    big.write_bytes(b"\0" * (200 * 1024))
    with big.open("rb") as fh:
        reply = client.post("/api/v1/logbooks", files={"file": ("big.tar", fh)},
                            headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert reply.status_code == 413 and "request body is larger than" in reply.text
    assert _state(paper_ctx) == before


def test_errors_are_the_projects_own() -> None:
    assert issubclass(UnsafeArchiveError, LogbookError)
    assert issubclass(LogbookError, OpenReproError)
