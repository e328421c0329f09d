"""Normalisation with offsets, sentences, candidates, and values/scale parsed by code."""

from __future__ import annotations

import pytest

from openrepro.claims.text import candidate_sentences, locate, sections, split_sentences
from openrepro.claims.values import parse_scale, parse_values

PAPER = (
    "Sparse Adapters\n\nAbstract\nWe introduce sparse adapters. On GLUE, our method reaches 88.1 "
    "average accuracy with a 350M-parameter backbone. Training is 1.9x faster per step on a "
    "single A100.\n\n1 Introduction\nAdapters are popular (Houlsby et al. 2019). We show that "
    "routing improves robust\u00adness. The ﬁnal model uses 3% of the parameters.\n\n"
    "2 Related Work\nMany works improve accuracy by 5%.\n\n5 Conclusion\nSparse adapters match "
    "full fine-tuning.\n\nReferences\n[1] A. Author. Improving everything by 99%. 2020.\n"
)


def test_locate_is_verbatim_up_to_presentation_and_returns_original_offsets() -> None:
    text = "We show that reproduc-\ntion works. The ﬁnal  accuracy is 88.1% on GLUE."
    start, end = locate("reproduction works", text) or (0, 0)
    assert text[start:end] == "reproduc-\ntion works"
    start, end = locate("The final accuracy is 88.1%", text) or (0, 0)
    assert text[start:end] == "The ﬁnal  accuracy is 88.1%"
    assert locate("The final accuracy is 88.2%", text) is None  # numbers must match
    assert locate("the final accuracy is 88.1%", text) is None  # so must case
    assert locate("short", text) is None  # too short to ground anything


def test_sections_and_sentences_keep_offsets() -> None:
    names = [name for name, _, _ in sections(PAPER)]
    assert names[:3] == ["front", "abstract", "introduction"]
    assert "references" in names
    for sentence in split_sentences(PAPER):
        assert PAPER[sentence.start : sentence.end] == sentence.text
    texts = [
        s.text
        for s in split_sentences(
            "Adapters are popular (Houlsby et al. 2019). The next sentence is long enough."
        )
    ]
    assert texts == [
        "Adapters are popular (Houlsby et al. 2019).",
        "The next sentence is long enough.",
    ]


def test_candidates_prefer_claims_and_skip_related_work_and_references() -> None:
    chosen = candidate_sentences(PAPER, limit=4)
    texts = [c.text for c in chosen]
    assert any("88.1" in t for t in texts)
    assert any("1.9x faster" in t for t in texts)
    assert not any("99%" in t for t in texts)  # references
    assert not any("5%." in t for t in texts)  # related work
    assert [c.start for c in chosen] == sorted(c.start for c in chosen)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "On GLUE, SMA reaches 88.1 average accuracy with a 350M-parameter backbone.",
            [("accuracy", 88.1, "", None, "GLUE")],
        ),
        (
            "It lowers perplexity on WikiText-103 from 24.3 to 22.8.",
            [("perplexity", 22.8, "", 24.3, "WikiText-103")],
        ),
        ("Training is 1.9× faster per step on a single A100.", [("faster", 1.9, "x", None, "")]),
        (
            "A 2,000-step curriculum improves top-1 accuracy on ImageNet-1k from 84.9 to 85.6.",
            [("top-1 accuracy", 85.6, "", 84.9, "ImageNet-1k")],
        ),
        ("We use 8 GPUs since 2019 and 50 trajectories.", []),
    ],
)
def test_values_are_parsed_conservatively(
    sentence: str, expected: list[tuple[str, float, str, float | None, str]]
) -> None:
    got = [(v.metric, v.value, v.unit, v.baseline, v.dataset) for v in parse_values(sentence)]
    assert got == expected


def test_scale_from_quote_then_paper() -> None:
    scale = parse_scale(
        "Distilling a 1.3B teacher into a 125M student.",
        "We train for 20,000 steps on 8 A100 GPUs with 2B tokens.",
    )
    assert scale.model_size == "1.3B"
    assert scale.steps == "20,000 steps"
    assert scale.hardware == "A100 GPUs"
    assert scale.data_size == "2B tokens"
    assert parse_scale("Nothing here.").is_empty()
