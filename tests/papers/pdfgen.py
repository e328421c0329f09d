"""Write small test PDFs with fpdf2: a two-column paper, a single-column paper and broken files.

Text is placed line by line with explicit coordinates, so the tests know exactly where every
line and every end-of-line hyphen is. The two-column body can be written *interleaved* (left
line 1, right line 1, left line 2, ...), the hard case for extraction in content-stream order.

The "ﬁ" ligature is outside latin-1, so it needs a TrueType font: DejaVu Sans when installed
(``/usr/share/fonts/truetype/dejavu``); without it the papers are written in Helvetica with a
plain "fi" and :data:`HAS_UNICODE_FONT` is False (tests of NFKC then skip).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

__all__ = [
    "ABSTRACT",
    "HAS_UNICODE_FONT",
    "LEFT_SENTENCES",
    "RIGHT_SENTENCES",
    "SINGLE_ABSTRACT",
    "SINGLE_SENTENCES",
    "SINGLE_TITLE",
    "TITLE",
    "write_encrypted_pdf",
    "write_not_a_pdf",
    "write_single_column_paper",
    "write_textless_pdf",
    "write_truncated_pdf",
    "write_two_column_paper",
]

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))


def _find_font(name: str) -> Path | None:
    for folder in _FONT_DIRS:
        if (folder / name).is_file():
            return folder / name
    return None


_REGULAR = _find_font("DejaVuSans.ttf")
_BOLD = _find_font("DejaVuSans-Bold.ttf")
HAS_UNICODE_FONT = _REGULAR is not None and _BOLD is not None
FI = "\ufb01" if HAS_UNICODE_FONT else "fi"  # LATIN SMALL LIGATURE FI

TITLE = "Reproducing Claims at Scale: A Community Challenge for Machine Learning"
_TITLE_LINES = ("Reproducing Claims at Scale: A Community", "Challenge for Machine Learning")
AUTHORS = "Ada Lovelace, Alan Turing and Grace Hopper"
ABSTRACT = (
    "We present a community challenge in which every claim of a conference paper is "
    "reproduced by an independent team. The challenge records the outcome, the cost and the "
    "evidence of each attempt."
)

# Expected sentences, after hyphen joining and NFKC (what extraction must yield).
LEFT_SENTENCES = (
    "We study the reproduction of published claims in machine learning.",
    "Each claim is checked by an independent team with its own code.",
    "A significant share of the claims could be confirmed without help.",
    "The state-of-the-art baselines were rerun on the same hardware.",
    "Our reproduction protocol is described in the appendix.",
)
RIGHT_SENTENCES = (
    "Related work covers replication studies in other sciences.",
    "Earlier challenges relied on volunteers and shared notebooks.",
    "Their reports rarely recorded the computational budget used.",
    "We therefore log the time and memory of every reproduction run.",
    "The final section discusses the limits of this approach.",
)
# The same sentences as printed: explicit line breaks, end-of-line hyphens, ligatures.
_LEFT_LINES = (
    "We study the reproduc-",
    "tion of published claims in ma-",
    "chine learning. Each claim is",
    "checked by an independent team",
    "with its own code. A signi-",
    f"{FI}cant share of the claims could",
    f"be con{FI}rmed without help. The",
    "state-of-the-art baselines were",
    "rerun on the same hardware. Our",
    "reproduction protocol is de-",
    "scribed in the appendix.",
)
_RIGHT_LINES = (
    "Related work covers replica-",
    "tion studies in other sciences.",
    "Earlier challenges relied on vol-",
    "unteers and shared notebooks.",
    "Their reports rarely recorded the",
    "computational budget used. We",
    "therefore log the time and mem-",
    "ory of every reproduction run.",
    "The final section discusses the",
    "limits of this approach.",
)

SINGLE_TITLE = "A Single Column Note on Measurement"
SINGLE_ABSTRACT = "This note measures things carefully. It has one column only."
SINGLE_SENTENCES = (
    "Measurement is the first step of every experiment.",
    "We report the mean and the standard deviation of ten runs.",
    "The remaining variance comes from the data loader.",
    "A self-supervised model is compared with a self-supervised baseline.",
    "Our measurements are reproducible.",
)
_SINGLE_LINES = (
    "Measurement is the first step of every experiment. We report the mean and the stan-",
    "dard deviation of ten runs. The remaining variance comes from the data loader.",
    "A self-supervised model is compared with a self-",
    "supervised baseline. Our measure-",
    "ments are reproducible.",
)

_PAGE_W = 210.0  # A4, mm
_MARGIN = 20.0
_GUTTER = 10.0
_COL_W = (_PAGE_W - 2 * _MARGIN - _GUTTER) / 2
_LINE_H = 5.0


@dataclass(frozen=True)
class _Fonts:
    regular: str
    bold: str


def _new_pdf(metadata_title: str | None) -> tuple[FPDF, _Fonts]:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_creator("openrepro tests")
    if metadata_title is not None:
        pdf.set_title(metadata_title)
    if _REGULAR is not None and _BOLD is not None:
        pdf.add_font("DejaVu", "", _REGULAR)
        pdf.add_font("DejaVu", "B", _BOLD)
        return pdf, _Fonts("DejaVu", "DejaVu")
    return pdf, _Fonts("Helvetica", "Helvetica")


def _centered(pdf: FPDF, y: float, text: str) -> None:
    pdf.text((_PAGE_W - pdf.get_string_width(text)) / 2, y, text)


def _header(pdf: FPDF, fonts: _Fonts, title_lines: tuple[str, ...], abstract: str) -> float:
    """Title, authors, "Abstract" and its paragraph across the page; returns the next free y."""
    y = 30.0
    pdf.set_font(fonts.bold, "B", 18)
    for line in title_lines:
        _centered(pdf, y, line)
        y += 8.0
    pdf.set_font(fonts.regular, "", 11)
    _centered(pdf, y + 2.0, AUTHORS)
    y += 14.0
    pdf.set_font(fonts.bold, "B", 11)
    _centered(pdf, y, "Abstract")
    pdf.set_font(fonts.regular, "", 10)
    pdf.set_xy(_MARGIN + 10.0, y + 3.0)
    pdf.multi_cell(_PAGE_W - 2 * _MARGIN - 20.0, _LINE_H, abstract, align="L")
    return float(pdf.get_y()) + 10.0


def _columns(
    pdf: FPDF,
    fonts: _Fonts,
    y: float,
    left: tuple[str, ...],
    right: tuple[str, ...],
    *,
    interleaved: bool,
    headings: tuple[str, str],
) -> None:
    """The two-column body; ``interleaved`` writes the lines of both columns row by row."""
    x_left, x_right = _MARGIN, _MARGIN + _COL_W + _GUTTER
    pdf.set_font(fonts.bold, "B", 11)
    pdf.text(x_left, y, headings[0])
    pdf.text(x_right, y, headings[1])
    pdf.set_font(fonts.regular, "", 10)
    y += _LINE_H + 2.0
    left_ops = [(x_left, y + i * _LINE_H, line) for i, line in enumerate(left)]
    right_ops = [(x_right, y + i * _LINE_H, line) for i, line in enumerate(right)]
    if interleaved:
        ops = [op for pair in zip(left_ops, right_ops, strict=False) for op in pair]
        ops += left_ops[len(right_ops) :] + right_ops[len(left_ops) :]
    else:
        ops = left_ops + right_ops
    for x, line_y, text in ops:
        pdf.text(x, line_y, text)


def _filler(page: int, side: str) -> tuple[str, ...]:
    return tuple(f"Page {page} {side} line {i}: filler text for timing." for i in range(1, 41))


def write_two_column_paper(
    path: Path, *, interleaved: bool = True, metadata_title: str | None = None, pages: int = 1
) -> Path:
    """A paper whose first page has a full-width header and a two-column body.

    Extra ``pages`` are two-column filler, for timing extraction.
    """
    pdf, fonts = _new_pdf(metadata_title)
    pdf.add_page()
    y = _header(pdf, fonts, _TITLE_LINES, ABSTRACT)
    headings = ("1 Introduction", "2 Related Work")
    _columns(pdf, fonts, y, _LEFT_LINES, _RIGHT_LINES, interleaved=interleaved, headings=headings)
    for page in range(2, pages + 1):
        pdf.add_page()
        left, right = _filler(page, "left"), _filler(page, "right")
        headings = (f"{page}.1 Left", f"{page}.2 Right")
        _columns(pdf, fonts, 25.0, left, right, interleaved=interleaved, headings=headings)
    pdf.output(str(path))
    return path


def write_single_column_paper(path: Path, *, metadata_title: str | None = None) -> Path:
    """A one-page, single-column paper with "1. Introduction" after the abstract."""
    pdf, fonts = _new_pdf(metadata_title)
    pdf.add_page()
    y = _header(pdf, fonts, (SINGLE_TITLE,), SINGLE_ABSTRACT)
    pdf.set_font(fonts.bold, "B", 11)
    pdf.text(_MARGIN, y, "1. Introduction")
    pdf.set_font(fonts.regular, "", 10)
    for i, line in enumerate(_SINGLE_LINES):
        pdf.text(_MARGIN, y + (i + 1.5) * _LINE_H, line)
    pdf.output(str(path))
    return path


def write_not_a_pdf(path: Path) -> Path:
    """A text file with a .pdf name."""
    path.write_text("This is not a PDF at all, just text.\n", encoding="utf-8")
    return path


def write_truncated_pdf(path: Path) -> Path:
    """A real PDF header followed by a cut-off body: no xref, no trailer, no pages."""
    path.write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<<")
    return path


def write_textless_pdf(path: Path) -> Path:
    """A page with a filled rectangle and no text, like a scan without OCR."""
    pdf = FPDF(format="A4", unit="mm")
    pdf.add_page()
    pdf.rect(20, 20, 170, 250, style="F")
    pdf.output(str(path))
    return path


def write_encrypted_pdf(path: Path, *, user_password: str = "secret") -> Path:
    """A single-column paper that needs ``user_password`` to open ("": anyone may open it)."""
    pdf, fonts = _new_pdf(None)
    pdf.set_encryption(owner_password="owner-" + user_password, user_password=user_password)
    pdf.add_page()
    _header(pdf, fonts, (SINGLE_TITLE,), SINGLE_ABSTRACT)
    pdf.output(str(path))
    return path
