"""Figure cells with embedded images: each image becomes a file, kept once.

Trackio's ``logbook cell figure --image x.png`` writes the image into the page as an
``<img src="data:image/png;base64,...">`` (``trackio.logbook.figure_html_from_image``); real
pages carry megabytes of them. :func:`extract_images` decodes each one (the MIME types Trackio
embeds, at most :data:`MAX_IMAGE_BYTES` each) into a file named by its content,
``.openrepro/figures/<sha256>.<ext>``, and replaces the data URI in the cell's body by that
name, so the record (and the page shown from it) does not hold the image a second time. The
files are artifacts (``kind="figure"``), never evidence of a number.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from openrepro.logbooks.records import FileRef

__all__ = ["EMBEDDED_PREFIX", "MAX_IMAGE_BYTES", "extract_images"]

EMBEDDED_PREFIX = ".openrepro/figures/"
MAX_IMAGE_BYTES = 32 * 1024 * 1024
_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/avif": "avif",
    "image/svg+xml": "svg",
}
_DATA_URI_RE = re.compile(
    r"data:(image/(?:png|jpeg|gif|webp|bmp|avif|svg\+xml));base64,([A-Za-z0-9+/=\s]+)"
)


def extract_images(body: str, where: str) -> tuple[str, list[tuple[FileRef, bytes]], list[str]]:
    """``body`` with its embedded images replaced by file names, the images as
    ``(file, bytes)``, and a warning per image that could not be decoded (left in place)."""
    images: list[tuple[FileRef, bytes]] = []
    warnings: list[str] = []

    def replace(match: re.Match[str]) -> str:
        mime, payload = match.group(1), match.group(2)
        if len(payload) > MAX_IMAGE_BYTES * 4 // 3 + 4:
            warnings.append(f"{where}: an embedded image above {MAX_IMAGE_BYTES:,} bytes: kept")
            return match.group(0)
        try:
            data = base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError):
            warnings.append(f"{where}: an embedded {mime} image is not valid base64: kept")
            return match.group(0)
        digest = hashlib.sha256(data).hexdigest()
        path = f"{EMBEDDED_PREFIX}{digest}.{_EXTENSIONS[mime]}"
        images.append((FileRef(path=path, sha256=digest, size=len(data)), data))
        return path

    return _DATA_URI_RE.sub(replace, body), images, warnings
