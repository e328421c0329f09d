"""Paper text for claim extraction: normalisation with offsets, sentences, sections, candidates.

Quotes are checked against the paper text after a normalisation that is forgiving only about
presentation (Unicode compatibility forms such as ligatures, whitespace runs, soft hyphens,
end-of-line hyphenation, and, when nothing matches otherwise, spaces a PDF dropped or added
around maths: ``rateO(1/T)`` for ``rate O(1/T)``), never about words, numbers or case; offsets
always point into the original, stored text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "Sentence",
    "candidate_sentences",
    "locate",
    "normalize_with_map",
    "sections",
    "split_sentences",
]

_SOFT = {"\u00ad", "\u200b", "\u200c", "\u200d", "\ufeff"}


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` normalised for matching, and for each output character its index in ``text``.

    NFKC per character (ﬁ → fi), whitespace runs → one space, soft hyphens and zero-width
    characters dropped, ``-`` + line break + lower-case letter joined.
    """
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _SOFT:
            i += 1
            continue
        if ch == "-" and i + 1 < n and text[i + 1] in "\r\n":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j].islower():
                i = j  # "reproduc-\ntion" → "reproduction"
                continue
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            i += 1
            continue
        for piece in unicodedata.normalize("NFKC", ch):
            out.append(" " if piece.isspace() else piece)
            where.append(i)
        i += 1
    return "".join(out), where


def _without_spaces(text: str, where: list[int]) -> tuple[str, list[int]]:
    """``text`` (normalised) without its spaces, except a space between two digits (``10 5``
    never reads as ``105``), with the map kept: PDF text drops or adds spaces around maths
    (``rateO(1/T)`` for ``rate O(1/T)``, ``O ( 1 / T )``)."""
    out: list[str] = []
    kept: list[int] = []
    for i, ch in enumerate(text):
        if ch == " ":
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if not (before.isdigit() and after.isdigit()):
                continue
        out.append(ch)
        kept.append(where[i])
    return "".join(out), kept


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """Offsets ``(start, end)`` of ``quote`` in ``text`` (after normalisation), else None.

    When the quote is not found as it is, spacing is forgiven (:func:`_without_spaces`): a
    quote copied from a PDF may have spaces around maths that the stored text lost, or the
    reverse; words, numbers and case must still match."""
    needle, _ = normalize_with_map(quote)
    needle = needle.strip()
    if len(needle) < 8:
        return None  # too short to ground anything
    hay, where = normalize_with_map(text)
    pos = hay.find(needle)
    if pos >= 0:
        return where[pos], where[pos + len(needle) - 1] + 1
    tight, _ = _without_spaces(needle, list(range(len(needle))))
    hay, where = _without_spaces(hay, where)
    pos = hay.find(tight)
    if len(tight) < 8 or pos < 0:
        return None
    return where[pos], where[pos + len(tight) - 1] + 1


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    section: str


_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|et al|Fig|Figs|Eq|Eqs|Sec|Tab|vs|cf|approx|resp|No)\.$")
_HEADING = re.compile(
    r"^\s*(?:(?:\d+(?:\.\d+)*\.?)|[IVX]+\.)?\s*"
    r"(abstract|introduction|related work|background|method[s]?|approach|experiments?|"
    r"results?|evaluation|discussion|conclusions?|limitations|references|appendix|"
    r"acknowledge?ments?)\b[^\n]{0,40}$",
    re.IGNORECASE | re.MULTILINE,
)


def sections(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) spans by recognised headings; text before the first is ``front``."""
    marks = [(m.group(1).lower(), m.start()) for m in _HEADING.finditer(text)]
    spans: list[tuple[str, int, int]] = []
    previous_name, previous_start = "front", 0
    for name, start in marks:
        if start > previous_start:
            spans.append((previous_name, previous_start, start))
        previous_name, previous_start = name, start
    spans.append((previous_name, previous_start, len(text)))
    return spans


def split_sentences(text: str, start: int = 0, end: int | None = None,
                    section: str = "") -> list[Sentence]:  # fmt: skip
    """Sentences of ``text[start:end]`` with offsets into ``text``."""
    end = len(text) if end is None else end
    out: list[Sentence] = []
    cursor = start
    for match in _SENT_END.finditer(text[start:end]):
        candidate_end = start + match.start()
        if _ABBREV.search(text[max(cursor, candidate_end - 8) : candidate_end]):
            continue
        _append(out, text, cursor, candidate_end, section)
        cursor = start + match.end()
    _append(out, text, cursor, end, section)
    return out


def _append(out: list[Sentence], text: str, start: int, end: int, section: str) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start >= 20:
        out.append(Sentence(text=text[start:end], start=start, end=end, section=section))


_CUES = re.compile(
    r"\b(we (?:show|prove|find|demonstrate|observe|achieve|obtain|report|establish)|outperform\w*|"
    r"improv\w*|achiev\w*|reach\w*|reduc\w*|speed[- ]?up|faster|slower|state[- ]of[- ]the[- ]art|"
    r"surpass\w*|match\w*|robust\w*|bound\w*|theorem|guarantee\w*|converge\w*|lower\w*|"
    r"higher|better|fewer|halves|doubles)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_PRIORITY = {"front": 0, "abstract": 0, "introduction": 1, "conclusion": 1, "conclusions": 1,
             "results": 2, "result": 2, "experiments": 2, "experiment": 2, "evaluation": 2,
             "discussion": 3}  # fmt: skip
_SKIP = {"references", "acknowledgements", "acknowledgments", "acknowledgement", "appendix",
         "related work"}  # fmt: skip


def _score(sentence: Sentence) -> float:
    score = 2.0 * len(_CUES.findall(sentence.text)) + (1.5 if _NUMBER.search(sentence.text) else 0)
    if len(sentence.text) > 400:
        score -= 2
    return score - 0.5 * _PRIORITY.get(sentence.section, 3)


def candidate_sentences(text: str, *, limit: int = 24) -> list[Sentence]:
    """The sentences most likely to state a checkable claim, in document order.

    Abstract, introduction and conclusion come first, then results and experiments; related
    work, references and appendices are skipped. Long papers are thus reduced to a prompt of
    bounded size ("chunked sensibly") without losing the claims' own sentences.
    """
    sentences: list[Sentence] = []
    for name, start, end in sections(text):
        if name in _SKIP:
            continue
        sentences += split_sentences(text, start, end, name)
    if len(sentences) <= limit:
        return sentences  # a short text (an abstract): every sentence is a candidate
    ranked = sorted(sentences, key=_score, reverse=True)
    return sorted(ranked[:limit], key=lambda s: s.start)
