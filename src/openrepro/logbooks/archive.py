"""Safe unpacking of submitted archives: ``.tar``, ``.tar.gz``/``.tgz`` (also bz2/xz) and ``.zip``.

Every archive is hostile until proven otherwise. :func:`scan_archive` reads only the archive's
directory (zip) or headers (tar) and refuses the whole archive, **before anything is written**,
when one member breaks one rule; :func:`safe_extract` scans, then writes the scanned members into
a fresh folder and enforces the byte caps again while writing, since headers can lie.

Rules. A refusal raises :class:`~openrepro.errors.UnsafeArchiveError` whose message names the
archive, the member and the rule, e.g. ``evil.zip: member '../../etc/x' escapes the extraction
folder``:

* **paths**: no absolute path (``/x``, ``\\x``, a drive letter ``C:``), no ``..`` component, no
  control character (NUL, escape, newline, ...) nor undecodable byte in a name. ``\\`` counts as
  a separator; ``.`` and empty components are dropped (``./a//b`` is ``a/b``).
* **types**: only regular files and folders. Symbolic links, hard links, character and block
  devices, FIFOs, sockets, sparse files, anything else, and encrypted zip members are refused.
* **uniqueness**: two members may not write the same path, nor two paths that differ only in case
  or Unicode normalisation (they clash on macOS and Windows), nor a file where a folder is needed.
* **limits** (:class:`ArchiveLimits`, defaults in brackets): members [5,000]; bytes of one file
  [256 MiB]; bytes unpacked in all [512 MiB]; compression ratio of a zip member and of the whole
  archive [200, members and archives under 1 MiB unpacked are exempt]; bytes of one path component
  [255] and of a whole path [1,024]; folder depth [32].
* **streams**: a compressed tar has no index, so the scan decompresses it; it stops as soon as it
  would read past ``max_total_bytes`` plus a header allowance per member (a gzip bomb, or a
  header that declares a huge long name), never reading unbounded data.

An archive that cannot be read at all (unknown format, corrupt, truncated, a CRC error) raises a
plain :class:`~openrepro.errors.LogbookError` naming the file. Either way nothing stays behind:
:func:`safe_extract` removes its fresh folder on any error.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn, cast

from pydantic import BaseModel, ConfigDict, Field

from openrepro.errors import LogbookError, UnsafeArchiveError

__all__ = ["RATIO_EXEMPT_BYTES", "ArchiveLimits", "Member", "safe_extract", "scan_archive"]

MiB = 1024 * 1024
RATIO_EXEMPT_BYTES = 1 * MiB
"""Members (and archives) that unpack to less than this are exempt from the ratio rule."""

_HEADER_ALLOWANCE = 16 * 1024  # tar stream bytes allowed per member beyond its data
_CHUNK = 1 * MiB
_SHOWN_CHARS = 120
_SEPARATORS = re.compile(r"[/\\]")
_DRIVE = re.compile(r"^[A-Za-z]:")
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_ZIP_METHODS = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)
_ZIP_TYPE_PROBLEMS = {
    stat.S_IFLNK: "is a symbolic link",
    stat.S_IFCHR: "is a device",
    stat.S_IFBLK: "is a device",
    stat.S_IFIFO: "is a FIFO",
    stat.S_IFSOCK: "is a socket",
}
# What the stdlib readers raise on a corrupt, truncated or unsupported archive.
_READ_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    tarfile.TarError,
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
)


class ArchiveLimits(BaseModel):
    """The caps an archive must stay under; every one is checked on the headers, then again
    (the byte caps) while writing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_total_bytes: int = Field(512 * MiB, gt=0, description="Bytes unpacked, all members.")
    max_members: int = Field(5_000, gt=0, description="Members, folders included.")
    max_file_bytes: int = Field(256 * MiB, gt=0, description="Bytes unpacked, one member.")
    max_ratio: float = Field(
        200.0, gt=0, description="Unpacked/packed size, per zip member and for the archive."
    )
    max_name_length: int = Field(255, gt=0, description="UTF-8 bytes of one path component.")
    max_path_length: int = Field(1024, gt=0, description="UTF-8 bytes of a whole path.")
    max_depth: int = Field(32, gt=0, description="Components of a path.")

    @property
    def max_stream_bytes(self) -> int:
        """How far into a (decompressed) tar stream the scan may read."""
        return self.max_total_bytes + (self.max_members + 1) * _HEADER_ALLOWANCE


class Member(BaseModel):
    """One member that passed the scan (the archive's root folder entry is left out)."""

    model_config = ConfigDict(frozen=True)

    name: str  # as written in the archive
    path: str  # normalised: relative, '/'-separated, no '.' or empty component
    is_dir: bool
    size: int  # declared unpacked bytes (0 for a folder)


@dataclass(frozen=True)
class _Entry:
    member: Member
    open: Callable[[], IO[bytes]]


def scan_archive(path: Path, limits: ArchiveLimits) -> list[Member]:
    """Check every member of the archive at ``path`` against the rules; write nothing.

    Raises :class:`UnsafeArchiveError` on the first broken rule and :class:`LogbookError` when
    the file is not a readable archive.
    """
    with ExitStack() as stack:
        return [entry.member for entry in _scan(path, limits, stack)]


def safe_extract(path: Path, parent: Path, limits: ArchiveLimits | None = None) -> Path:
    """Scan the archive at ``path``, then unpack it into a fresh folder inside ``parent``.

    Only regular files (mode 0o644) and folders (0o755) are written; files are created
    exclusively and never through a link. On any error the fresh folder is removed before the
    error propagates, so ``parent`` is left as it was. Returns the fresh folder.
    """
    limits = limits or ArchiveLimits()
    with ExitStack() as stack:
        entries = _scan(path, limits, stack)
        dest = Path(tempfile.mkdtemp(prefix=".unpack-", dir=parent))
        try:
            _write_all(entries, dest, path.name, limits)
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
    return dest


# --- reading -------------------------------------------------------------------------------


class _BoundedStream(io.RawIOBase):
    """A read-only view of a (decompressed) stream that refuses to go past ``limit`` bytes."""

    def __init__(self, inner: IO[bytes], limit: int, archive: str) -> None:
        super().__init__()
        self._inner = inner
        self._limit = limit
        self._archive = archive
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self._limit - self._pos + 1
        self._check(self._pos + size)
        data = self._inner.read(size)
        self._pos += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a tar stream is not sought from its end")
        self._check(offset)
        self._pos = self._inner.seek(offset)
        return self._pos

    def _check(self, end: int) -> None:
        if end > self._limit:
            raise UnsafeArchiveError(
                f"{self._archive}: the tar stream unpacks to more than {self._limit:,} bytes"
                " (a compression bomb?)"
            )


def _scan(path: Path, limits: ArchiveLimits, stack: ExitStack) -> list[_Entry]:
    """Open the archive (kept open by ``stack``) and check all its members."""
    archive = _open(path, limits, stack)
    checker = _Checker(path.name, limits)
    try:
        if isinstance(archive, zipfile.ZipFile):
            entries = _scan_zip(archive, checker)
        else:
            entries = _scan_tar(archive, checker)
    except _READ_ERRORS as exc:
        raise LogbookError(f"{path.name}: corrupt or truncated archive: {exc}") from exc
    checker.check_overall_ratio(path.stat().st_size)
    return entries


def _open(path: Path, limits: ArchiveLimits, stack: ExitStack) -> zipfile.ZipFile | tarfile.TarFile:
    try:
        raw = stack.enter_context(path.open("rb"))
        head = raw.read(6)
        raw.seek(0)
        if head.startswith(_ZIP_MAGIC):
            return stack.enter_context(zipfile.ZipFile(raw))
        inner = _decompressor(head, raw)
        if inner is not raw:
            stack.callback(inner.close)
        bounded = _BoundedStream(inner, limits.max_stream_bytes, path.name)
        fileobj = cast(IO[bytes], bounded)
        return stack.enter_context(tarfile.open(fileobj=fileobj, mode="r:", encoding="utf-8"))
    except _READ_ERRORS as exc:
        raise LogbookError(
            f"{path.name}: not a readable archive (.tar, .tar.gz, .tgz or .zip): {exc}"
        ) from exc


def _decompressor(head: bytes, raw: IO[bytes]) -> IO[bytes]:
    """The decompressed stream of a tar, sniffed from its first bytes (``raw`` for a plain tar)."""
    if head.startswith(b"\x1f\x8b"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    if head.startswith(b"BZh"):
        return cast(IO[bytes], bz2.BZ2File(raw))
    if head.startswith(b"\xfd7zXZ\x00"):
        return cast(IO[bytes], lzma.LZMAFile(raw))
    return raw


def _scan_tar(archive: tarfile.TarFile, checker: _Checker) -> list[_Entry]:
    entries: list[_Entry] = []
    for info in archive:  # lazily: a refusal stops the scan before the next header is read
        member = checker.member(
            info.name, is_dir=info.isdir(), size=info.size, problem=_tar_problem(info)
        )
        if member is not None:
            entries.append(_Entry(member, _tar_opener(archive, info, checker.archive)))
    return entries


def _tar_problem(info: tarfile.TarInfo) -> str | None:
    if info.issym():
        return "is a symbolic link"
    if info.islnk():
        return "is a hard link"
    if info.ischr() or info.isblk():
        return "is a device"
    if info.isfifo():
        return "is a FIFO"
    if info.issparse():
        return "is a sparse file"
    if info.isreg() or info.isdir():
        return None
    return f"is not a regular file or folder (tar type {info.type!r})"


def _tar_opener(
    archive: tarfile.TarFile, info: tarfile.TarInfo, name: str
) -> Callable[[], IO[bytes]]:
    def opener() -> IO[bytes]:
        data = archive.extractfile(info)
        if data is None:
            raise LogbookError(f"{name}: member {_show(info.name)} has no data to read")
        return data

    return opener


def _scan_zip(archive: zipfile.ZipFile, checker: _Checker) -> list[_Entry]:
    infos = archive.infolist()
    checker.check_count(len(infos))
    entries: list[_Entry] = []
    for info in infos:
        kind = stat.S_IFMT(info.external_attr >> 16)
        member = checker.member(
            _zip_name(info),
            # not info.is_dir(): it raises IndexError on an empty name
            is_dir=info.filename.endswith("/") or kind == stat.S_IFDIR,
            size=info.file_size,
            problem=_zip_problem(info, kind),
        )
        if member is None:
            continue
        checker.check_member_ratio(member, info.compress_size)
        entries.append(_Entry(member, _zip_opener(archive, info)))
    return entries


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The member's name; UTF-8 even without the UTF-8 flag (Info-ZIP on Linux omits it).

    :mod:`zipfile` cuts a name at its first NUL; the whole name is kept so the rules refuse it.
    """
    name = info.orig_filename if "\x00" in info.orig_filename else info.filename
    if info.flag_bits & 0x800:
        return name
    try:
        return name.encode("cp437").decode("utf-8")
    except UnicodeError:
        return name


def _zip_problem(info: zipfile.ZipInfo, kind: int) -> str | None:
    if kind in _ZIP_TYPE_PROBLEMS:
        return _ZIP_TYPE_PROBLEMS[kind]
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return f"is not a regular file or folder (mode {kind:#o})"
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.compress_type not in _ZIP_METHODS:
        return f"uses an unsupported compression method ({info.compress_type})"
    return None


def _zip_opener(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[], IO[bytes]]:
    return lambda: archive.open(info)


# --- the rules -----------------------------------------------------------------------------


def _show(name: str) -> str:
    """The name as quoted in messages: escaped (no control character reaches a terminal)."""
    if len(name) <= _SHOWN_CHARS:
        return repr(name)
    return repr(name[:_SHOWN_CHARS]) + "..."


def _fold(parts: Sequence[str]) -> str:
    """The key under which two paths clash on a case- or normalisation-insensitive system."""
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


class _Checker:
    """Applies the per-member rules in archive order and keeps the running totals."""

    def __init__(self, archive: str, limits: ArchiveLimits) -> None:
        self.archive = archive
        self.limits = limits
        self.count = 0
        self.total = 0
        self._seen: dict[str, tuple[str, bool]] = {}  # folded path -> (path, is_dir)

    def refuse(self, name: str, rule: str) -> NoReturn:
        raise UnsafeArchiveError(f"{self.archive}: member {_show(name)} {rule}")

    def member(self, name: str, *, is_dir: bool, size: int, problem: str | None) -> Member | None:
        """Check one member; ``None`` for one that writes nothing new (root or repeated folder)."""
        self.count += 1
        self.check_count(self.count)
        parts = self._parts(name)
        if problem is not None:
            self.refuse(name, problem)
        size = 0 if is_dir else size
        self._check_size(name, size)
        if not parts:
            if not is_dir:
                self.refuse(name, "has an empty name")
            return None
        if not self._register(name, parts, is_dir):
            return None
        return Member(name=name, path="/".join(parts), is_dir=is_dir, size=size)

    def check_count(self, count: int) -> None:
        if count > self.limits.max_members:
            raise UnsafeArchiveError(
                f"{self.archive}: has more than {self.limits.max_members:,} members"
            )

    def check_member_ratio(self, member: Member, packed: int) -> None:
        ratio = self._ratio(member.size, packed)
        if ratio is not None:
            self.refuse(
                member.name,
                f"expands {ratio:,.0f} times, above the limit of {self.limits.max_ratio:g}"
                " (a zip bomb?)",
            )

    def check_overall_ratio(self, packed: int) -> None:
        ratio = self._ratio(self.total, packed)
        if ratio is not None:
            raise UnsafeArchiveError(
                f"{self.archive}: expands {ratio:,.0f} times ({self.total:,} bytes), above the"
                f" limit of {self.limits.max_ratio:g} (a compression bomb?)"
            )

    def _ratio(self, unpacked: int, packed: int) -> float | None:
        """The ratio when it breaks the rule, else ``None``."""
        if unpacked < RATIO_EXEMPT_BYTES:
            return None
        ratio = unpacked / max(packed, 1)
        return ratio if ratio > self.limits.max_ratio else None

    def _parts(self, name: str) -> tuple[str, ...]:
        categories = {unicodedata.category(ch) for ch in name}
        if categories & {"Cc", "Zl", "Zp"}:
            self.refuse(name, "has a control character in its name")
        if "Cs" in categories:
            self.refuse(name, "has a name that is not valid UTF-8")
        if name.startswith(("/", "\\")) or _DRIVE.match(name):
            self.refuse(name, "has an absolute path")
        parts = tuple(p for p in _SEPARATORS.split(name) if p not in ("", "."))
        if ".." in parts:
            self.refuse(name, "escapes the extraction folder")
        self._check_path_shape(name, parts)
        return parts

    def _check_path_shape(self, name: str, parts: tuple[str, ...]) -> None:
        limits = self.limits
        if len(parts) > limits.max_depth:
            self.refuse(name, f"is {len(parts)} levels deep, above the limit of {limits.max_depth}")
        length = len("/".join(parts).encode())
        if length > limits.max_path_length:
            self.refuse(
                name, f"has a {length:,}-byte path, above the limit of {limits.max_path_length:,}"
            )
        longest = max((len(p.encode()) for p in parts), default=0)
        if longest > limits.max_name_length:
            self.refuse(
                name,
                f"has a {longest:,}-byte path component, above the limit of"
                f" {limits.max_name_length:,}",
            )

    def _check_size(self, name: str, size: int) -> None:
        limits = self.limits
        if size < 0:
            self.refuse(name, "declares a negative size")
        if size > limits.max_file_bytes:
            self.refuse(
                name, f"is {size:,} bytes, above the limit of {limits.max_file_bytes:,} per file"
            )
        self.total += size
        if self.total > limits.max_total_bytes:
            raise UnsafeArchiveError(
                f"{self.archive}: unpacks to more than {limits.max_total_bytes:,} bytes"
                f" (at member {_show(name)})"
            )

    def _register(self, name: str, parts: tuple[str, ...], is_dir: bool) -> bool:
        """Record the path and its folders; ``False`` for a folder already recorded."""
        for depth in range(1, len(parts)):
            seen = self._claim(name, parts[:depth], is_dir=True)
            if seen is not None and not seen[1]:
                self.refuse(name, f"would be written inside {seen[0]!r}, which is a file")
        seen = self._claim(name, parts, is_dir=is_dir)
        if seen is None:
            return True
        if seen[1] and is_dir:
            return False
        if seen[1] != is_dir:
            self.refuse(name, "is both a file and a folder")
        self.refuse(name, "is a duplicate: another member writes the same path")

    def _claim(self, name: str, parts: tuple[str, ...], *, is_dir: bool) -> tuple[str, bool] | None:
        """Record ``parts``; return what was there before (same path, or refuse a look-alike)."""
        path = "/".join(parts)
        key = _fold(parts)
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = (path, is_dir)
            return None
        if seen[0] != path:
            self.refuse(name, f"differs only in case or Unicode normalisation from {seen[0]!r}")
        return seen


# --- writing -------------------------------------------------------------------------------


class _Budget:
    """The bytes still allowed, in all, while writing."""

    def __init__(self, archive: str, limit: int) -> None:
        self.archive = archive
        self.limit = limit
        self.left = limit

    def take(self, name: str, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise UnsafeArchiveError(
                f"{self.archive}: unpacks to more than {self.limit:,} bytes"
                f" (at member {_show(name)})"
            )


def _write_all(entries: list[_Entry], dest: Path, archive: str, limits: ArchiveLimits) -> None:
    budget = _Budget(archive, limits.max_total_bytes)
    for entry in entries:
        member = entry.member
        parts = member.path.split("/")
        try:
            if member.is_dir:
                _make_dirs(dest, parts, archive, member)
                continue
            folder = _make_dirs(dest, parts[:-1], archive, member)
            with entry.open() as source:
                _write_file(source, folder / parts[-1], member, limits, budget)
        except _READ_ERRORS as exc:
            raise LogbookError(
                f"{archive}: cannot unpack member {_show(member.name)}: {exc}"
            ) from exc


def _make_dirs(root: Path, parts: Sequence[str], archive: str, member: Member) -> Path:
    current = root
    for part in parts:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise UnsafeArchiveError(
                    f"{archive}: member {_show(member.name)} needs a folder where a file is"
                ) from None
            continue
        os.chmod(current, 0o755)
    return current


_CREATE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _write_file(
    source: IO[bytes], target: Path, member: Member, limits: ArchiveLimits, budget: _Budget
) -> None:
    """Copy at most the declared size; refuse more data, report less (headers can lie)."""
    cap = min(member.size, limits.max_file_bytes)
    fd = os.open(target, _CREATE_FLAGS, 0o644)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, 0o644)
    with os.fdopen(fd, "wb") as out:
        written = 0
        while chunk := source.read(min(_CHUNK, cap - written + 1)):
            written += len(chunk)
            if written > cap:
                raise UnsafeArchiveError(
                    f"{budget.archive}: member {_show(member.name)} holds more data than the"
                    f" {member.size:,} bytes its header declares"
                )
            budget.take(member.name, len(chunk))
            out.write(chunk)
    if written != member.size:
        raise LogbookError(
            f"{budget.archive}: member {_show(member.name)} is truncated:"
            f" {written:,} of {member.size:,} bytes"
        )
