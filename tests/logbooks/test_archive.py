"""Safe unpacking: hostile archives are refused before anything is written; good ones unpack.

Every hostile archive is built here, in ``tmp_path``. For each one the test checks the exception
type, that the message names the member (or the archive) and the rule, and that nothing was
written: ``parent`` stays empty and no file appears anywhere else under ``tmp_path``.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import tarfile
import time
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from openrepro.errors import LogbookError, UnsafeArchiveError
from openrepro.logbooks.archive import ArchiveLimits, Member, safe_extract, scan_archive

MiB = 1024 * 1024
ZEROS = bytes(MiB)

# --- builders --------------------------------------------------------------------------------


def _tar_info(
    name: str, *, kind: bytes = tarfile.REGTYPE, size: int = 0, **extra: object
) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = size
    info.mode = 0o644
    for key, value in extra.items():
        setattr(info, key, value)
    return info


def _make_tar(
    path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz"
) -> Path:
    with tarfile.open(path, mode, format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _tar_files(path: Path, files: dict[str, bytes]) -> Path:
    return _make_tar(path, [(_tar_info(name), data) for name, data in files.items()])


def _zip_files(path: Path, files: dict[str, bytes]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name" is the point of a test
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in files.items():
                archive.writestr(zipfile.ZipInfo(name), data, zipfile.ZIP_DEFLATED)
    return path


def _zip_entries(path: Path, entries: list[tuple[zipfile.ZipInfo, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for info, data in entries:
                archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


def _zip_symlink(path: Path) -> Path:
    info = zipfile.ZipInfo("link")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return _zip_entries(path, [(info, b"/etc/passwd")])


def _zip_encrypted(path: Path) -> Path:
    """A zip whose member has the 'encrypted' flag (zipfile cannot encrypt; patch the bits)."""
    data = bytearray(_zip_files(path, {"secret.txt": b"hidden"}).read_bytes())
    for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + flag_offset
        (flags,) = struct.unpack_from("<H", data, at)
        struct.pack_into("<H", data, at, flags | 0x1)
    path.write_bytes(bytes(data))
    return path


def _zip_zeros(path: Path, name: str, size: int) -> Path:
    """One member of ``size`` zero bytes, written in chunks (fast, tiny on disk)."""
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open(name, "w", force_zip64=True) as out,
    ):
        for _ in range(size // MiB):
            out.write(ZEROS)
    return path


def _zip_many(path: Path, count: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for index in range(count):
            archive.writestr(f"f/{index}.txt", b"")
    return path


def _tar_gz_zeros(path: Path, sizes: list[int]) -> Path:
    """A tar.gz of members of zeros, streamed (a gzip bomb when the sizes add up)."""
    with (
        gzip.open(path, "wb", compresslevel=1) as raw,
        tarfile.open(fileobj=raw, mode="w|", format=tarfile.GNU_FORMAT) as tar,
    ):
        for index, size in enumerate(sizes):
            tar.addfile(_tar_info(f"zeros{index}.bin", size=size), _Zeros(size))
    return path


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        count = self.left if size is None or size < 0 else min(size, self.left)
        self.left -= count
        return bytes(count)


def _tar_long_name_bomb(path: Path, declared: int, actual: int) -> Path:
    """A GNU long-name header that declares ``declared`` bytes of name, followed by zeros."""
    header = _tar_info("././@LongLink", kind=tarfile.GNUTYPE_LONGNAME, size=declared)
    with gzip.open(path, "wb", compresslevel=1) as raw:
        raw.write(header.tobuf(format=tarfile.GNU_FORMAT))
        for _ in range(actual // MiB):
            raw.write(ZEROS)
        raw.write(_tar_info("after.txt").tobuf(format=tarfile.GNU_FORMAT) + bytes(1024))
    return path


def _tar_huge_header(path: Path) -> Path:
    """A member whose header declares 1 TiB while the archive holds a few bytes."""
    info = _tar_info("huge.bin", size=2**40)
    with gzip.open(path, "wb") as raw:
        raw.write(info.tobuf(format=tarfile.GNU_FORMAT) + bytes(4096))
    return path


def _zip_bad_crc(path: Path) -> Path:
    """Two members; the second's central-directory CRC is wrong (found only while writing)."""
    data = bytearray(_zip_files(path, {"good.txt": b"fine", "bad.txt": b"x" * 5000}).read_bytes())
    central = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)  # the second entry
    struct.pack_into("<I", data, central + 16, 0xDEADBEEF)
    path.write_bytes(bytes(data))
    return path


# --- hostile cases ---------------------------------------------------------------------------

Builder = Callable[[Path], Path]
SMALL = ArchiveLimits(max_total_bytes=3 * MiB, max_members=10)


def _case(
    name: str,
    build: Builder,
    match: str,
    limits: ArchiveLimits | None = None,
    error: type[Exception] = UnsafeArchiveError,
) -> object:
    return pytest.param(build, match, limits, error, id=name)


HOSTILE = [
    _case(
        "zip-slip",
        lambda d: _zip_files(d / "evil.zip", {"ok.txt": b"ok", "../../evil.txt": b"pwned"}),
        r"evil\.zip: member '\.\./\.\./evil\.txt' escapes the extraction folder",
    ),
    _case(
        "tar-slip",
        lambda d: _tar_files(d / "evil.tar.gz", {"a/../../evil.txt": b"pwned"}),
        r"member 'a/\.\./\.\./evil\.txt' escapes the extraction folder",
    ),
    _case(
        "zip-absolute",
        lambda d: _zip_files(d / "abs.zip", {"/tmp/evil": b"pwned"}),
        r"member '/tmp/evil' has an absolute path",
    ),
    _case(
        "tar-absolute",
        lambda d: _tar_files(d / "abs.tar", {"/tmp/evil": b"pwned"}),
        r"member '/tmp/evil' has an absolute path",
    ),
    _case(
        "zip-drive-letter",
        lambda d: _zip_files(d / "win.zip", {"C:/Windows/evil": b"pwned"}),
        r"member 'C:/Windows/evil' has an absolute path",
    ),
    _case(
        "zip-backslash",
        lambda d: _zip_files(d / "win.zip", {"\\evil": b"pwned"}),
        r"member '\\\\evil' has an absolute path",
    ),
    _case(
        "zip-backslash-slip",
        lambda d: _zip_files(d / "win.zip", {"a\\..\\..\\evil.txt": b"pwned"}),
        r"escapes the extraction folder",
    ),
    _case(
        "tar-symlink",
        lambda d: _make_tar(
            d / "link.tgz",
            [(_tar_info("passwd", kind=tarfile.SYMTYPE, linkname="/etc/passwd"), None)],
        ),
        r"member 'passwd' is a symbolic link",
    ),
    _case("zip-symlink", lambda d: _zip_symlink(d / "link.zip"), r"'link' is a symbolic link"),
    _case(
        "tar-hardlink",
        lambda d: _make_tar(
            d / "hard.tar.gz",
            [
                (_tar_info("a.txt"), b"a"),
                (_tar_info("b.txt", kind=tarfile.LNKTYPE, linkname="/etc/shadow"), None),
            ],
        ),
        r"member 'b\.txt' is a hard link",
    ),
    _case(
        "tar-char-device",
        lambda d: _make_tar(
            d / "dev.tar.gz",
            [(_tar_info("null", kind=tarfile.CHRTYPE, devmajor=1, devminor=3), None)],
        ),
        r"member 'null' is a device",
    ),
    _case(
        "tar-fifo",
        lambda d: _make_tar(d / "fifo.tar", [(_tar_info("pipe", kind=tarfile.FIFOTYPE), None)]),
        r"member 'pipe' is a FIFO",
    ),
    _case(
        "zip-encrypted",
        lambda d: _zip_encrypted(d / "secret.zip"),
        r"member 'secret\.txt' is encrypted",
    ),
    _case(
        "zip-bomb-default-ratio",
        lambda d: _zip_zeros(d / "bomb.zip", "zeros.bin", 48 * MiB),
        r"bomb\.zip: member 'zeros\.bin' expands [\d,]+ times, above the limit of 200",
    ),
    _case(
        "zip-bomb-small-ratio",
        lambda d: _zip_zeros(d / "bomb.zip", "zeros.bin", 2 * MiB),
        r"member 'zeros\.bin' expands [\d,]+ times, above the limit of 10",
        ArchiveLimits(max_ratio=10),
    ),
    _case(
        "zip-10000-files",
        lambda d: _zip_many(d / "many.zip", 10_000),
        r"many\.zip: has more than 5,000 members",
    ),
    _case(
        "tar-too-many-files",
        lambda d: _tar_files(d / "many.tgz", {f"{i}.txt": b"" for i in range(11)}),
        r"has more than 10 members",
        SMALL,
    ),
    _case(
        "tar-huge-header",
        lambda d: _tar_huge_header(d / "huge.tar.gz"),
        r"member 'huge\.bin' is 1,099,511,627,776 bytes, above the limit of 268,435,456 per file",
    ),
    _case(
        "tar-long-name-header-bomb",
        lambda d: _tar_long_name_bomb(d / "longname.tar.gz", declared=2**40, actual=2 * MiB),
        r"longname\.tar\.gz: the tar stream unpacks to more than [\d,]+ bytes",
    ),
    _case(
        "zip-file-above-cap",
        lambda d: _zip_files(d / "big.zip", {"big.bin": os.urandom(2 * MiB)}),
        r"member 'big\.bin' is 2,097,152 bytes, above the limit of 1,048,576 per file",
        ArchiveLimits(max_file_bytes=MiB),
    ),
    _case(
        "zip-duplicate",
        lambda d: _zip_entries(
            d / "dup.zip", [(zipfile.ZipInfo("a.txt"), b"1"), (zipfile.ZipInfo("a.txt"), b"2")]
        ),
        r"member 'a\.txt' is a duplicate",
    ),
    _case(
        "tar-duplicate-after-normalising",
        lambda d: _make_tar(
            d / "dup.tgz", [(_tar_info("d/a.txt"), b"1"), (_tar_info("./d//a.txt"), b"2")]
        ),
        r"member '\./d//a\.txt' is a duplicate",
    ),
    _case(
        "zip-case-clash",
        lambda d: _zip_files(d / "case.zip", {"README.md": b"1", "readme.md": b"2"}),
        r"member 'readme\.md' differs only in case or Unicode normalisation from 'README\.md'",
    ),
    _case(
        "zip-unicode-normalisation-clash",
        lambda d: _zip_files(d / "nfd.zip", {"caf\u00e9.txt": b"1", "cafe\u0301.txt": b"2"}),
        r"differs only in case or Unicode normalisation",
    ),
    _case(
        "tar-file-then-folder",
        lambda d: _tar_files(d / "clash.tgz", {"a": b"file", "a/b.txt": b"inside"}),
        r"member 'a/b\.txt' would be written inside 'a', which is a file",
    ),
    _case(
        "zip-control-character",
        lambda d: _zip_files(d / "ctl.zip", {"log\x1b[2J.txt": b"x"}),
        r"member 'log\\x1b\[2J\.txt' has a control character in its name",
    ),
    _case(
        "tar-newline",
        lambda d: _tar_files(d / "nl.tgz", {"a\nb.txt": b"x"}),
        r"member 'a\\nb\.txt' has a control character in its name",
    ),
    _case(
        "tar-undecodable-name",
        lambda d: _tar_files(d / "bytes.tar", {"caf\udce9.txt": b"x"}),
        r"has a name that is not valid UTF-8",
    ),
    _case(
        "zip-too-deep",
        lambda d: _zip_files(d / "deep.zip", {"d/" * 40 + "f.txt": b"x"}),
        r"is 41 levels deep, above the limit of 32",
    ),
    _case(
        "zip-long-component",
        lambda d: _zip_files(d / "long.zip", {"x" * 300: b"x"}),
        r"has a 300-byte path component, above the limit of 255",
    ),
    _case(
        "zip-long-path",
        lambda d: _zip_files(d / "long.zip", {"/".join(["y" * 200] * 6): b"x"}),
        r"has a 1,205-byte path, above the limit of 1,024",
    ),
    _case(
        "tar-total-above-cap",
        lambda d: _tar_gz_zeros(d / "total.tar.gz", [MiB, MiB, MiB, MiB]),
        r"total\.tar\.gz: unpacks to more than 3,145,728 bytes \(at member 'zeros3\.bin'\)",
        SMALL,
    ),
    _case(
        "tar-gz-overall-ratio",
        lambda d: _tar_gz_zeros(d / "ratio.tar.gz", [2 * MiB, 2 * MiB]),
        r"ratio\.tar\.gz: expands [\d,]+ times \([\d,]+ bytes\), above the limit of 200",
    ),
    _case(
        "corrupt",
        lambda d: _write(d / "corrupt.zip", os.urandom(4096)),
        r"corrupt\.zip: not a readable archive",
        error=LogbookError,
    ),
    _case(
        "empty-file",
        lambda d: _write(d / "empty.tar", b""),
        r"empty\.tar: not a readable archive",
        error=LogbookError,
    ),
    _case(
        "text-file",
        lambda d: _write(d / "notes.tgz", b"just some text\n" * 100),
        r"notes\.tgz: not a readable archive",
        error=LogbookError,
    ),
    _case(
        "truncated-tar-gz",
        lambda d: _truncate(_tar_files(d / "cut.tar.gz", {"a.bin": os.urandom(200_000)}), 0.5),
        r"cut\.tar\.gz: corrupt or truncated archive",
        error=LogbookError,
    ),
    _case(
        "truncated-zip",
        lambda d: _truncate(_zip_files(d / "cut.zip", {"a.bin": os.urandom(50_000)}), 0.5),
        r"cut\.zip: not a readable archive",
        error=LogbookError,
    ),
    _case(
        "zip-bad-crc-while-writing",
        lambda d: _zip_bad_crc(d / "crc.zip"),
        r"crc\.zip: cannot unpack member 'bad\.txt': Bad CRC-32",
        error=LogbookError,
    ),
]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _truncate(path: Path, keep: float) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(folder of the archives, the ``parent`` to extract into, two levels down)."""
    source = tmp_path / "uploads"
    parent = tmp_path / "work" / "parent"
    source.mkdir()
    parent.mkdir(parents=True)
    yield source, parent


@pytest.mark.parametrize(("build", "match", "limits", "error"), HOSTILE)
def test_hostile_archive_is_refused_and_nothing_is_written(
    dirs: tuple[Path, Path],
    tmp_path: Path,
    build: Builder,
    match: str,
    limits: ArchiveLimits | None,
    error: type[Exception],
) -> None:
    source, parent = dirs
    archive = build(source)
    before = _tree(tmp_path)

    with pytest.raises(error, match=match) as raised:
        safe_extract(archive, parent, limits)
    assert type(raised.value) is error
    assert list(parent.iterdir()) == []
    assert _tree(tmp_path) == before
    assert not (tmp_path / "work" / "evil.txt").exists()
    assert not (tmp_path / "evil.txt").exists()

    if "cannot unpack" not in str(raised.value):  # else only writing can find the fault
        with pytest.raises(error, match=match):  # the scan alone refuses it too
            scan_archive(archive, limits or ArchiveLimits())


def test_gzip_bomb_scan_stops_early(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan never decompresses past the limits: here 3 MiB of a 64 MiB stream at most."""
    source, parent = dirs
    archive = _tar_gz_zeros(source / "bomb.tar.gz", [MiB] * 64)
    furthest = [0]
    real_read = gzip.GzipFile.read

    def counting_read(self: gzip.GzipFile, size: int = -1) -> bytes:
        data = real_read(self, size)
        furthest[0] = max(furthest[0], self.tell())
        return data

    monkeypatch.setattr(gzip.GzipFile, "read", counting_read)
    limits = ArchiveLimits(max_total_bytes=2 * MiB, max_ratio=10_000)
    with pytest.raises(UnsafeArchiveError, match=r"unpacks to more than 2,097,152 bytes"):
        safe_extract(archive, parent, limits)
    assert 0 < furthest[0] <= 3 * MiB
    assert list(parent.iterdir()) == []


def test_long_name_bomb_is_refused_before_reading_it(dirs: tuple[Path, Path]) -> None:
    """A long-name header larger than the stream allowance is refused without being read."""
    source, parent = dirs
    archive = _tar_long_name_bomb(source / "name.tar.gz", declared=64 * MiB, actual=64 * MiB)
    limits = ArchiveLimits(max_total_bytes=MiB, max_members=10)
    started = time.perf_counter()
    with pytest.raises(UnsafeArchiveError, match=r"the tar stream unpacks to more than"):
        safe_extract(archive, parent, limits)
    assert time.perf_counter() - started < 2
    assert list(parent.iterdir()) == []


def test_zip_member_larger_than_declared_is_refused_while_writing(
    dirs: tuple[Path, Path],
) -> None:
    """Headers can lie: a central directory that understates the size fails the write."""
    source, parent = dirs
    archive = _zip_files(source / "liar.zip", {"first.txt": b"ok", "liar.txt": b"z" * 10_000})
    data = bytearray(archive.read_bytes())
    central = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)
    struct.pack_into("<I", data, central + 24, 100)  # uncompressed size: 100 instead of 10,000
    archive.write_bytes(bytes(data))

    with pytest.raises(LogbookError, match=r"liar\.zip: cannot unpack member 'liar\.txt'"):
        safe_extract(archive, parent)
    assert list(parent.iterdir()) == []


# --- good archives ---------------------------------------------------------------------------

GOOD = {
    "manifest.json": b'{"kind": "openrepro-bundle"}\n',
    "runs/train/log.txt": b"epoch 1 loss 0.5\n" * 100,
    "runs/train/résumé_日本.txt": "données ✓\n".encode(),
    "figures/deep/er/plot.png": os.urandom(3000),
}


def _good_tar(path: Path) -> Path:
    members: list[tuple[tarfile.TarInfo, bytes | None]] = [
        (_tar_info(".", kind=tarfile.DIRTYPE, mode=0o777), None),  # as `tar -C dir .` writes
        (_tar_info("./runs", kind=tarfile.DIRTYPE, mode=0o777), None),
        (_tar_info("./runs/", kind=tarfile.DIRTYPE, mode=0o700), None),  # a repeated folder
    ]
    for name, data in GOOD.items():
        members.append((_tar_info(f"./{name}", mode=0o4777), data))  # setuid + exec: dropped
    return _make_tar(path, members)


def _good_zip(path: Path) -> Path:
    entries: list[tuple[zipfile.ZipInfo, bytes]] = [(zipfile.ZipInfo("bundle/runs/"), b"")]
    for name, data in GOOD.items():
        info = zipfile.ZipInfo(f"bundle/{name}")
        info.create_system = 3
        info.external_attr = (stat.S_IFREG | 0o6755) << 16
        entries.append((info, data))
    return _zip_entries(path, entries)


@pytest.mark.parametrize(
    ("build", "prefix"),
    [
        pytest.param(lambda d: _good_tar(d / "good.tar.gz"), "", id="tar.gz"),
        pytest.param(lambda d: _good_zip(d / "good.zip"), "bundle/", id="zip"),
    ],
)
def test_good_archive_unpacks_with_safe_permissions(
    dirs: tuple[Path, Path], build: Builder, prefix: str
) -> None:
    source, parent = dirs
    archive = build(source)

    members = scan_archive(archive, ArchiveLimits())
    files = {m.path: m for m in members if not m.is_dir}
    assert set(files) == {prefix + name for name in GOOD}
    assert all(isinstance(m, Member) for m in members)
    assert files[prefix + "runs/train/log.txt"].size == len(GOOD["runs/train/log.txt"])

    root = safe_extract(archive, parent)
    assert root.parent == parent
    assert list(parent.iterdir()) == [root]
    for name, data in GOOD.items():
        target = root / prefix / name
        assert target.read_bytes() == data
        assert stat.S_IMODE(target.lstat().st_mode) == 0o644
    for folder in (p for p in root.rglob("*") if p.is_dir()):
        assert stat.S_IMODE(folder.lstat().st_mode) == 0o755
    assert not any(p.is_symlink() for p in root.rglob("*"))

    again = safe_extract(archive, parent)  # a fresh folder every time
    assert again != root
    assert sorted(parent.iterdir()) == sorted([root, again])


def test_plain_tar_and_empty_folders(dirs: tuple[Path, Path]) -> None:
    source, parent = dirs
    archive = _make_tar(
        source / "plain.tar",
        [(_tar_info("empty", kind=tarfile.DIRTYPE), None), (_tar_info("a.txt"), b"a")],
        mode="w",
    )
    root = safe_extract(archive, parent)
    assert (root / "empty").is_dir()
    assert (root / "a.txt").read_bytes() == b"a"


def test_zip_utf8_name_without_the_utf8_flag(dirs: tuple[Path, Path]) -> None:
    """Info-ZIP on Linux writes UTF-8 names without flag 0x800; they are read as UTF-8."""
    source, parent = dirs
    archive = _zip_files(source / "infozip.zip", {"XX.txt": b"accent"})
    archive.write_bytes(archive.read_bytes().replace(b"XX.txt", "é.txt".encode()))
    assert [m.path for m in scan_archive(archive, ArchiveLimits())] == ["é.txt"]
    assert (safe_extract(archive, parent) / "é.txt").read_bytes() == b"accent"


def test_limits_are_frozen_and_documented() -> None:
    limits = ArchiveLimits()
    assert limits.max_total_bytes == 512 * MiB
    assert limits.max_members == 5_000
    assert limits.max_file_bytes == 256 * MiB
    assert limits.max_ratio == 200
    assert (limits.max_name_length, limits.max_path_length, limits.max_depth) == (255, 1024, 32)
    with pytest.raises(ValueError):
        limits.max_members = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        ArchiveLimits(max_members=0)
