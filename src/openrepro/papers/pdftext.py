"""Plain text, title and abstract of a paper PDF, with pypdf.

Each page is extracted with pypdf's layout mode (``extraction_mode="layout"``), which renders
the page on a fixed-width character grid. Neither layout mode nor plain mode reads a two-column
page in order when the PDF draws the columns line by line (both put the two columns of a row on
one line), so the grid is split at the gutter: a band of blank character columns near the middle
of the page that separates text on both sides in many rows. Rows crossing the band (title,
full-width abstract, page numbers) stay where they are; each run of rows between them is read
left column first, then right column. A page whose layout extraction fails falls back to
pypdf's plain mode.

The text is then cleaned: NUL and control characters removed, Unicode NFKC (ligatures such as
"ﬁ" become "fi"), runs of spaces collapsed, line breaks kept, at most one blank line between
paragraphs, and words hyphenated at a line end joined ("reproduc-" + "tion" gives
"reproduction"; a hyphen is kept where the document spells the word with one elsewhere, where
either part already holds a hyphen, and before a capital).

The title guess is the metadata ``/Title`` when it looks like a title, else the largest-font
lines at the top of the first page, else its first line with words. The abstract guess is the
text after an "Abstract" line up to the next heading ("1 Introduction", "Keywords", ...).

Unreadable files raise :class:`~openrepro.errors.PdfTextError` (a :class:`ValueError` too) with a
one-line reason;
pypdf's own warnings about damaged files are silenced while a file is read.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError

from openrepro.errors import PdfTextError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PAGES",
    "PdfText",
    "abstract_guess",
    "clean_text",
    "extract_text",
    "is_meaningful_title",
    "largest_font_title",
    "order_columns",
]

DEFAULT_MAX_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_PAGES = 500
_HEADER_WINDOW = 1024  # the PDF header may follow up to 1 KiB of junk
_MIN_ALNUM_PER_PAGE = 20  # fewer letters and digits than this per page: a scan
_MAX_TITLE_CHARS = 400
_MAX_ABSTRACT_CHARS = 6000


@dataclass(frozen=True)
class PdfText:
    """The cleaned text of a PDF and the guesses made from it.

    ``page_texts`` holds the text of each page ("" for a page that failed); ``page_errors`` says
    why pages failed (a PDF of which every page fails raises :class:`PdfTextError` instead).
    """

    text: str
    pages: int
    title_guess: str | None = None
    abstract_guess: str | None = None
    page_texts: tuple[str, ...] = ()
    page_errors: tuple[str, ...] = ()


def extract_text(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, max_pages: int = DEFAULT_MAX_PAGES
) -> PdfText:
    """Extract and clean the text of the PDF at ``path``; see the module docstring.

    Raises :class:`PdfTextError` for a file over ``max_bytes`` or ``max_pages``, a file that is
    not a PDF, an encrypted or broken PDF, and a PDF without extractable text.
    """
    _check_file(path, max_bytes)
    try:
        with _quiet_pypdf():
            return _extract(_open_reader(path), max_pages)
    except PdfTextError:
        raise
    except Exception as exc:  # pypdf raises many kinds of error on malformed files
        raise PdfTextError(f"unreadable PDF: {_describe(exc)}") from exc


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """Silence pypdf's warnings ("EOF marker not found", ...): a file is read or it is not."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def _describe(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _check_file(path: Path, max_bytes: int) -> None:
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(_HEADER_WINDOW)
    except OSError as exc:
        raise PdfTextError(f"cannot read file: {exc.strerror or exc}") from exc
    if size > max_bytes:
        raise PdfTextError(f"file too large ({size} bytes, limit {max_bytes})")
    if size == 0:
        raise PdfTextError("empty file")
    if b"%PDF-" not in head:
        raise PdfTextError("not a PDF (no %PDF header)")


def _open_reader(path: Path) -> PdfReader:
    reader = PdfReader(path)
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")
        except DependencyError as exc:
            raise PdfTextError(f"encrypted, and cannot be decrypted: {exc}") from exc
        if opened == PasswordType.NOT_DECRYPTED:
            raise PdfTextError("encrypted (needs a password)")
    return reader


def _extract(reader: PdfReader, max_pages: int) -> PdfText:
    count = len(reader.pages)
    if count > max_pages:
        raise PdfTextError(f"too many pages ({count}, limit {max_pages})")
    if count == 0:
        raise PdfTextError("no pages")
    raw_pages, errors = _raw_page_texts(reader.pages)
    if len(errors) == count:
        raise PdfTextError(f"text extraction failed: {errors[0]}")
    pages = tuple(_normalise(raw) if raw else "" for raw in raw_pages)
    vocabulary = _hyphenated_words(pages)
    page_texts = tuple(_finish(page, vocabulary) for page in pages)
    text = "\n\n".join(page for page in page_texts if page)
    if sum(char.isalnum() for char in text) < _MIN_ALNUM_PER_PAGE * count:
        raise PdfTextError("no extractable text (scanned?)")
    return PdfText(
        text=text,
        pages=count,
        title_guess=_title_guess(reader, page_texts[0]),
        abstract_guess=abstract_guess("\n\n".join(page_texts[:2])),
        page_texts=page_texts,
        page_errors=tuple(errors),
    )


# --- per-page extraction ------------------------------------------------------------------------


def _raw_page_texts(pages: Iterable[PageObject]) -> tuple[list[str], list[str]]:
    """The raw text of each page in reading order ("" for a failed page), and the failures."""
    texts: list[str] = []
    errors: list[str] = []
    for number, page in enumerate(pages, start=1):
        try:
            texts.append(_page_text(page))
        except Exception as exc:  # one broken page must not lose the others
            texts.append("")
            errors.append(f"page {number}: {_describe(exc)}")
    return texts, errors


def _page_text(page: PageObject) -> str:
    try:
        layout = page.extract_text(extraction_mode="layout")
    except Exception:  # layout mode is young; plain mode copes with more PDFs
        return page.extract_text()
    return "\n".join(order_columns(layout.split("\n")))


def order_columns(lines: Sequence[str]) -> list[str]:
    """Reorder the rows of a fixed-width (layout mode) page so that columns read one by one.

    Rows that cross the gutter stay in place; between them, the left halves of the rows come
    first, then the right halves. A page without a gutter is returned unchanged.
    """
    gutter = _find_gutter(lines)
    if gutter is None:
        return list(lines)
    start, end = gutter
    out: list[str] = []
    left: list[str] = []
    right: list[str] = []
    for line in lines:
        if line[start:end].strip():
            out += left + right + [line]
            left, right = [], []
            continue
        left_part, right_part = line[:start].strip(), line[end:].strip()
        if not left_part and not right_part:
            left.append("")
            right.append("")
        if left_part:
            left.append(left_part)
        if right_part:
            right.append(right_part)
    return out + left + right


def _find_gutter(lines: Sequence[str], min_rows: int = 4) -> tuple[int, int] | None:
    """The blank band ``[start, end)`` between two columns, or None for a one-column page."""
    width = max((len(line.rstrip()) for line in lines), default=0)
    filled = [line for line in lines if line.strip()]
    if width < 40 or len(filled) < min_rows:
        return None
    best_col, best_rows = -1, list[str]()
    for col in range(int(width * 0.3), int(width * 0.7) + 1):
        rows = [line for line in filled if _splits_at(line, col)]
        if len(rows) > len(best_rows):
            best_col, best_rows = col, rows
    if len(best_rows) < max(min_rows, len(filled) // 4):
        return None
    start, end = best_col, best_col + 1
    while start > 0 and all(_blank_at(line, start - 1) for line in best_rows):
        start -= 1
    while end < width and all(_blank_at(line, end) for line in best_rows):
        end += 1
    return (start, end) if end - start >= 2 else None


def _blank_at(line: str, col: int) -> bool:
    return col >= len(line) or line[col] == " "


def _splits_at(line: str, col: int) -> bool:
    """True when ``line`` has text on both sides of a blank (at least 2 wide) at ``col``."""
    return (
        _blank_at(line, col)
        and _blank_at(line, col + 1)
        and bool(line[:col].strip())
        and bool(line[col + 1 :].strip())
    )


# --- cleaning -----------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u00ad": "-"})
_HYPHENATED_WORD = re.compile(r"\b[^\W\d_]+(?:-[^\W\d_]+)+\b")


def clean_text(raw: str) -> str:
    """Clean one extracted text as :func:`extract_text` does (see the module docstring)."""
    text = _normalise(raw)
    return _finish(text, _hyphenated_words([text]))


def _normalise(raw: str) -> str:
    """NFKC, no control characters, one space between words, stripped lines."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ").replace("\x0c", "\n")
    text = _CONTROL.sub("", unicodedata.normalize("NFKC", text))
    text = text.translate(_HYPHENS)
    return "\n".join(line.strip() for line in _SPACES.sub(" ", text).split("\n"))


def _finish(text: str, vocabulary: set[str]) -> str:
    """Join hyphenated line ends and keep at most one blank line between paragraphs."""
    joined = "\n".join(_join_hyphenated(text.split("\n"), vocabulary))
    return _BLANK_LINES.sub("\n\n", joined).strip()


def _hyphenated_words(texts: Iterable[str]) -> set[str]:
    """Words spelt with a hyphen inside a line ("state-of-the-art"), lower-cased."""
    return {
        match.group().lower()
        for text in texts
        for line in text.split("\n")
        for match in _HYPHENATED_WORD.finditer(line)
    }


def _join_hyphenated(lines: Sequence[str], vocabulary: set[str]) -> list[str]:
    """Join each word split by a hyphen at a line end; the rest of the next line stays put."""
    out: list[str] = []
    for line in lines:
        if out and _ends_with_hyphen(out[-1]) and line[:1].isalpha():
            tail, _, rest = line.partition(" ")
            previous = out[-1]
            head = previous.rsplit(" ", 1)[-1][:-1]
            hyphen = "-" if _keeps_hyphen(head, tail, vocabulary) else ""
            out[-1] = previous[:-1] + hyphen + tail
            if rest:
                out.append(rest)
            continue
        out.append(line)
    return out


def _ends_with_hyphen(line: str) -> bool:
    return len(line) >= 2 and line.endswith("-") and line[-2].isalpha()


def _keeps_hyphen(head: str, tail: str, vocabulary: set[str]) -> bool:
    word = tail.rstrip(".,;:!?)]}'\"")
    return (
        "-" in head
        or "-" in word
        or not word[:1].islower()
        or f"{head}-{word}".lower() in vocabulary
    )


# --- title --------------------------------------------------------------------------------------

_BAD_TITLE = re.compile(
    r"^(untitled|title|document|paper|main|manuscript|article|anonymous|none|null)\b"
    r"|formatting instructions|template|^microsoft word|^arxiv:|^\d{4}\.\d{4,5}"
    r"|\.(pdf|tex|dvi|ps|docx?|odt|indd|rtf)$",
    re.IGNORECASE,
)


def _title_guess(reader: PdfReader, first_page: str) -> str | None:
    from_metadata = _metadata_title(reader)
    if from_metadata:
        return from_metadata
    try:
        from_fonts = largest_font_title(reader.pages[0])
    except Exception:  # the guess is optional; the text is already out
        from_fonts = None
    return from_fonts or _first_line_title(first_page)


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        metadata = reader.metadata
        raw = metadata.title if metadata is not None else None
    except Exception:  # a broken info dictionary only costs the guess
        return None
    title = _one_line(str(raw)) if raw else ""
    return title if is_meaningful_title(title) else None


def is_meaningful_title(title: str) -> bool:
    """Whether a metadata title looks like a paper title, not a file name or a placeholder."""
    letters = sum(char.isalpha() for char in title)
    no_spaces_path = " " not in title and ("/" in title or "\\" in title)
    return (
        letters >= 4
        and len(title) <= _MAX_TITLE_CHARS
        and not no_spaces_path
        and _BAD_TITLE.search(title) is None
    )


def _one_line(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).replace("\x00", "").split())


@dataclass(frozen=True)
class _Run:
    """A piece of text shown by the page, with its font size and baseline height in points."""

    text: str
    size: float
    y: float


def largest_font_title(page: PageObject) -> str | None:
    """The largest-font text in the top 60 % of ``page``, when it is larger than the body text."""
    runs = [run for run in _text_runs(page) if sum(char.isalpha() for char in run.text) >= 2]
    if not runs:
        return None
    body = Counter[float]()
    for run in runs:
        body[run.size] += len(run.text)
    body_size = body.most_common(1)[0][0]
    bottom, top = float(page.mediabox.bottom), float(page.mediabox.top)
    upper = [run for run in runs if run.y >= bottom + 0.4 * (top - bottom)]
    if not upper:
        return None
    size = max(run.size for run in upper)
    if size < body_size * 1.15:
        return None
    title = _one_line(" ".join(_title_runs(upper, size)))
    return title if 3 <= len(title) <= _MAX_TITLE_CHARS else None


def _title_runs(runs: Sequence[_Run], size: float) -> list[str]:
    """The first stretch of runs in the title font, up to the next sizeable other text."""
    parts: list[str] = []
    last_y: float | None = None
    for run in runs:
        in_title = run.size >= size * 0.95
        if in_title and (last_y is None or last_y - run.y <= 3 * size):
            parts.append(run.text)
            last_y = run.y
        elif parts and (in_title or sum(char.isalpha() for char in run.text) >= 4):
            break
    return parts


def _text_runs(page: PageObject) -> list[_Run]:
    runs: list[_Run] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, font_size: Any) -> None:
        if text.strip():
            matrix = _multiply(tm, cm)
            scale = math.hypot(matrix[2], matrix[3]) or 1.0
            runs.append(_Run(text, round(float(font_size) * scale, 1), matrix[5]))

    visitor: Callable[[Any, Any, Any, Any, Any], None] = visit
    page.extract_text(visitor_text=visitor, orientations=(0,))
    return runs


def _multiply(m: Sequence[float], n: Sequence[float]) -> tuple[float, ...]:
    """The product of two PDF matrices ``[a b c d e f]`` (``m`` applied first)."""
    a, b, c, d, e, f = (float(value) for value in m)
    p, q, r, s, t, u = (float(value) for value in n)
    return (
        a * p + b * r,
        a * q + b * s,
        c * p + d * r,
        c * q + d * s,
        e * p + f * r + t,
        e * q + f * s + u,
    )


def _first_line_title(text: str) -> str | None:
    for line in text.split("\n"):
        if sum(char.isalpha() for char in line) >= 4:
            return line[:_MAX_TITLE_CHARS]
    return None


# --- abstract -----------------------------------------------------------------------------------

# "Abstract" alone on its line, or followed by punctuation and the text ("Abstract—We ...")
_ABSTRACT = re.compile(r"^abstract\s*(?:$|[.:\u2014\u2013-]\s*(?P<rest>.*)$)", re.IGNORECASE)
_SECTION_WORDS = (
    r"introduction|background|related work|preliminaries|motivation|overview|contributions"
)
_HEADING = re.compile(
    rf"^(?:(?:\d+|[IVX]+|[A-H])\.?\s+)?(?:{_SECTION_WORDS})\s*[.:]?$"
    r"|^(?:keywords|key words|index terms|ccs concepts|acm reference format)\b",
    re.IGNORECASE,
)
# "2 Method" or "3.1 Data Sets" is a heading; "2 of the 5 models failed." is prose.
_NUMBERED_HEADING = re.compile(r"^\d+(?:\.\d+)*\.?\s+[A-Z][^.!?]{0,79}$")


def abstract_guess(text: str, window: int = 80) -> str | None:
    """The text after an "Abstract" line up to the next heading, on one line.

    Without a heading in the ``window`` lines that follow, the abstract ends at the first
    blank line.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _ABSTRACT.match(line)
        if match:
            body = _abstract_lines([match.group("rest") or "", *lines[index + 1 :]], window)
            abstract = " ".join(" ".join(body).split())[:_MAX_ABSTRACT_CHARS]
            return abstract if len(abstract) >= 20 else None
    return None


def _abstract_lines(lines: Sequence[str], window: int) -> list[str]:
    heading = next(
        (index for index, line in enumerate(lines[:window]) if index and _is_heading(line)), None
    )
    if heading is not None:
        return list(lines[:heading])
    out: list[str] = []
    for line in lines[:window]:
        if not line and any(out):
            break
        out.append(line)
    return out


def _is_heading(line: str) -> bool:
    return _HEADING.match(line) is not None or _NUMBERED_HEADING.match(line) is not None
