"""Grounding of proposed claims and merging of duplicates (code only, no model)."""

from __future__ import annotations

from openrepro.claims.extract import PaperText, ground, merge_duplicates
from openrepro.claims.records import ExtractedClaim, ExtractionOutput
from openrepro.claims.text import candidate_sentences

TEXT = (
    "Abstract\nOn GLUE, our method reaches 88.1 average accuracy with a 350M-parameter backbone. "
    "Training is 1.9x faster per step on a single A100. We prove a regret bound of O(sqrt(T)) "
    "for the online variant."
)
PAPER = PaperText(id=1, venue_id="p", title="T", text=TEXT, field="abstract")


def _claim(sentences: list[int], text: str, kind: str = "result") -> ExtractedClaim:
    return ExtractedClaim(sentences=sentences, claim=text, kind=kind)  # type: ignore[arg-type]


def test_quotes_are_verbatim_with_offsets_and_values_parsed() -> None:
    candidates = candidate_sentences(TEXT)
    output = ExtractionOutput(
        claims=[
            _claim([1], "The method reaches 88.1 GLUE accuracy."),
            _claim([2], "Training is 1.9 times faster.", "efficiency"),
            _claim([30], "A claim pointing at no candidate sentence."),
        ]
    )
    grounded, dropped = ground(output, candidates, PAPER)
    assert dropped == 1
    assert len(grounded) == 2
    for claim in grounded:
        for quote in claim.quotes:
            assert TEXT[quote.start : quote.end] == quote.text
            assert quote.field == "abstract"
    assert [(v.metric, v.value) for v in grounded[0].reported] == [("accuracy", 88.1)]
    assert grounded[0].scale["model_size"] == "350M"
    assert grounded[1].scale["hardware"] == "A100"


def test_duplicates_are_merged_by_shared_quote_or_near_identical_text() -> None:
    candidates = candidate_sentences(TEXT)
    output = ExtractionOutput(
        claims=[
            _claim([1], "The method reaches 88.1 GLUE accuracy."),
            _claim([1, 2], "Something else entirely, but sharing a sentence."),
            _claim([3], "The method reaches 88.1 GLUE accuracy!"),
        ]
    )
    grounded, _ = ground(output, candidates, PAPER)
    merged, count = merge_duplicates(grounded)
    assert count == 2
    assert len(merged) == 1
    assert sorted(q.start for q in merged[0].quotes) == sorted(c.start for c in candidates[:3])


def test_degenerate_paraphrases_fall_back_to_the_quote() -> None:
    from openrepro.claims.extract import claim_text

    quote = "Training is 1.9x faster per step on a single A100."
    assert claim_text("1.1.1.1.1.1.1.1.1.1.1.1.1", quote) == quote
    assert claim_text("Fast", quote) == quote
    assert claim_text("Training is 1.9 times faster.", quote) == "Training is 1.9 times faster."


def test_quotes_forgive_the_spacing_a_pdf_lost_around_maths_but_not_numbers() -> None:
    from openrepro.claims.text import locate

    stored = "We prove the convergence rateO(1/T) for averaged SGD, over 10 5-step runs."
    span = locate("convergence rate O(1/T) for averaged SGD", stored)
    assert (
        span is not None and stored[span[0] : span[1]] == "convergence rateO(1/T) for averaged SGD"
    )
    spaced = locate("the convergence rateO ( 1 / T )", stored)  # spaces added, not lost
    assert spaced is not None and stored[spaced[0] : spaced[1]].endswith("rateO(1/T)")
    assert locate("over 105-step runs", stored) is None  # "10 5" never reads as "105"
    assert locate("convergence rate O(1/N) for averaged", stored) is None  # symbols still count
    exact = locate("prove the convergence", stored)  # the plain match is tried first
    assert exact is not None and stored[exact[0] : exact[1]] == "prove the convergence"
