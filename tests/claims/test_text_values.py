"""Normalisation with offsets, sentences, candidates, and values/scale parsed by code."""

from __future__ import annotations

import pytest

from openrepro.claims.text import candidate_sentences, locate, sections, split_sentences
from openrepro.claims.values import (
    MAGNITUDE_FACTOR,
    find_count_words,
    find_magnitudes,
    find_number_words,
    find_numbers,
    find_powers,
    in_formula,
    magnitude_range,
    parse_scale,
    parse_values,
)

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


@pytest.mark.parametrize(
    ("sentence", "order", "powers", "logs"),
    [
        ("the gap is k^2", "", {"k": 2}, {}),
        ("it decays as 1/k^2", "", {"k": -2}, {}),
        ("the cost grows as d\u00b3", "", {"d": 3}, {}),
        ("at rate T^{-1/2}.", "", {"T": -0.5}, {}),
        ("it converges at rate O(1/T)", "O", {"T": -1}, {}),
        ("the gap decays as \u0398(1/k\u00b2)", "Theta", {"k": -2}, {}),
        ("regret O(\\sqrt{T})", "O", {"T": 0.5}, {}),
        ("an error of O(log T / T)", "O", {"T": -1}, {"log T": 1}),
        ("a lower bound \u03a9(n^2)", "Omega", {"n": 2}, {}),
        ("\\mathcal{O}(d/\\sqrt{T})", "O", {"d": 1, "T": -0.5}, {}),
        ("\u00d5(T^{-1/2}) up to logs", "O", {"T": -0.5}, {}),
        ("\\Theta(\\log^2 n)", "Theta", {}, {"log n": 2}),
        ("the rateO(1/T) as extracted from a PDF", "O", {"T": -1}, {}),
        ("bounded: O(1)", "O", {}, {}),
    ],
)
def test_the_number_reader_reads_powers_and_rates(
    sentence: str, order: str, powers: dict[str, float], logs: dict[str, float]
) -> None:
    (mention,) = find_powers(sentence)
    assert mention.order == order
    assert mention.powers == powers
    assert {f"log {k}": v for k, v in mention.logs.items()} == logs
    assert sentence[mention.start : mention.end] == mention.text
    assert find_numbers(sentence) == []  # the 1 of 1/T, the 2 of k^2 are not stated numbers


@pytest.mark.parametrize(
    ("sentence", "numbers"),
    [
        ("estimated over 10\u2076 random draws", [("10\u2076", 1e6)]),
        ("estimated over 10^6 random draws", [("10^6", 1e6)]),
        ("with 2 \u00d7 10\u2076 samples", [("2 \u00d7 10\u2076", 2e6)]),
        ("a max error of 1e-15", [("1e-15", 1e-15)]),
        ("O(1/T + 1/n) with 5 seeds", [("5", 5.0)]),  # a sum has no single order, nor numbers
    ],
)
def test_powers_of_ten_are_numbers_and_rates_hold_none(
    sentence: str, numbers: list[tuple[str, float]]
) -> None:
    assert [(m.text, m.value) for m in find_numbers(sentence)] == numbers
    assert find_powers(sentence) == []


def test_sums_words_and_identifiers_are_not_powers() -> None:
    assert find_powers("WikiText-103 at 88.1% on ViT-B/16 and O(n + m)") == []
    # a polylog factor has no stated power: no rate of n is read from it
    # (except under Õ, which hides polylog factors)
    (polylog,) = find_powers("O(n polylog n) and WikiText-103 at 88.1% on ViT-B/16")
    assert polylog.exponent("n") is None and polylog.log_power("n") is None
    (tilde,) = find_powers("\u00d5(n polylog n)")
    assert tilde.exponent("n") == 1 and tilde.log_power("n") == 0
    assert [m.text for m in find_powers("m\u00b2 and T\u207b\u00b9 and 1/\u221aT")] == [
        "m\u00b2", "T\u207b\u00b9", "1/\u221aT",
    ]  # fmt: skip
    assert [(m.text, m.value) for m in find_count_words("in both tasks across four datasets")] == [
        ("both", 2.0), ("four", 4.0),
    ]  # fmt: skip


def test_setting_numbers_in_powers_of_ten_are_scale_and_rates_report_no_value() -> None:
    assert parse_scale("estimated over 10\u2076 random draws").data_size == "10\u2076 draws"
    assert parse_scale("averaged over 1e6 Monte Carlo samples").data_size == "1e6 samples"
    # "Θ(1/k^2)" is not "error 1 / error 2" (what the judge's fallback once showed an agent)
    assert parse_values("the error gap decays as \u0398(1/k^2)") == []
    assert [v.value for v in parse_values("the error gap is O(1/T), with 5% error")] == [5.0]


@pytest.mark.parametrize(
    ("text", "symbol", "exponent", "logs"),
    [
        # several factors or variables: the swept variable's exponent, the rest constant factors
        ("\u03a9(\u03b7\u00b2(r\u2212\u03c1)\u00b2T)", "T", 1.0, 0.0),
        ("Omega(eta^2 (r-rho)^2 T)", "T", 1.0, 0.0),
        ("Omega(eta^2 (r-rho)^2 T)", "eta", None, None),  # "eta" is read as the letter
        ("Omega(eta^2 (r-rho)^2 T)", "\u03b7", 2.0, 0.0),
        ("\u00d5(H\u221a(D\u00b7S\u00b7A\u00b7K))", "K", 0.5, 0.0),
        ("O(\u221aKT)", "T", 0.5, 0.0),
        ("\u00d5(d* polylog(1/\u03b4))", "d", 1.0, 0.0),
        ("O(sqrt(h))", "h", 0.5, 0.0),
        ("O(1/eta T)", "T", -1.0, 0.0),  # 1/(eta T), as papers write it
        ("Omega(1)", "T", 0.0, 0.0),  # a constant law on any swept variable
        ("\u0398(1)", "r", 0.0, 0.0),
        ("Theta(1/k^2)", "k", -2.0, 0.0),
        ("O(log(1/\u03b4)/\u03b5^2)", "\u03b5", -2.0, 0.0),
        ("O(log(1/\u03b4)/\u03b5^2)", "\u03b4", 0.0, 1.0),
        ("\u03a9(\u03b7\u00b2(r\u2212\u03c1)\u00b2T)", "r", None, None),  # inside a sum
    ],
)
def test_rates_with_several_factors_read_the_swept_variables_exponent(
    text: str, symbol: str, exponent: float | None, logs: float | None
) -> None:
    (mention,) = find_powers(f"The bound is {text} for every run.")
    assert mention.exponent(symbol) == exponent
    assert mention.log_power(symbol) == logs


@pytest.mark.parametrize(
    ("sentence", "numbers"),
    [
        # values listed with slashes: each is a number the sentence states
        ("maintaining 97.88%/99.47% accuracy", [97.88, 99.47]),
        ("compared to 90.92%/76.56% for PPO", [90.92, 76.56]),
        # the second end of a range with its unit, and a dash that is no sign
        ("a 12.8x-13.6x speedup", [12.8, 13.6]),
        ("gains of 5%-10%", [5.0, 10.0]),
        # "a 5-point gain" is 5 points; "1.5-percentage-point" is not the number 1
        ("a 5-point gain over Gumbel Box", [5.0]),
        ("a 1.5-percentage-point gain", []),
        # identifiers and compound adjectives stay out
        ("ViT-B/16 reaches top-1 on a 2,000-step run", []),
    ],
)
def test_the_number_reader_reads_lists_ranges_and_points(
    sentence: str, numbers: list[float]
) -> None:
    assert [m.value for m in find_numbers(sentence)] == numbers


# -- check-draft-v5: what a model copies, read by code ---------------------------------------------


def test_subscripted_variables_are_one_variable() -> None:
    (old, new) = find_powers("Blending cuts the cost from O(K_max^4) to O(K_{max}^2 log K_max).")
    assert old.powers == {"K_max": 4.0}
    assert new.powers == {"K_max": 2.0} and new.logs == {"K_max": 1.0}
    (pair,) = find_powers("The solver needs O(n_1^2 n_2) steps.")
    assert pair.powers == {"n_1": 2.0, "n_2": 1.0}


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("The planner needs zero restarts on the maze.", [("zero", 0.0)]),
        ("Quokka ranks third on the leaderboard.", [("third", 3.0)]),
        ("The corpus spans four genres.", [("four", 4.0)]),
        ("It spends a third of the budget and two-thirds of the time.",
         [("a third", 1 / 3), ("two-thirds", 2 / 3)]),
    ],
)  # fmt: skip
def test_numbers_written_as_words_are_read(sentence: str, words: list[tuple[str, float]]) -> None:
    found = [(m.text, m.value) for m in find_number_words(sentence)]
    assert [t for t, _ in found] == [t for t, _ in words]
    assert [v for _, v in found] == pytest.approx([v for _, v in words])


@pytest.mark.parametrize(
    ("sentence", "magnitudes"),
    [
        ("The drift stays roughly 1e-6 over the run.", [1e-6]),
        ("The residual is |r| \u2248 1e-8 and ~1e-3 for the coarse grid.", [1e-8, 1e-3]),
        ("Collapse starts at about 10^3 heads.", [1e3]),
        ("Gains vanish beyond roughly 10\u00b3 agents.", [1e3]),
        ("The loss is on the order of 10^{-4}.", [1e-4]),
        ("The drift stays at 1e-6 over the run.", []),  # no approximation: a value
        ("The drift is roughly 3e-6.", []),  # a mantissa: a value written approximately
    ],
)
def test_orders_of_magnitude_need_a_power_of_ten_and_an_approximation(
    sentence: str, magnitudes: list[float]
) -> None:
    assert [m.value for m in find_magnitudes(sentence)] == pytest.approx(magnitudes)
    low, high = magnitude_range(1e-6)
    assert low == pytest.approx(1e-6 / MAGNITUDE_FACTOR)
    assert high == pytest.approx(3.1623e-6, rel=1e-4)


@pytest.mark.parametrize(
    ("sentence", "inside"),
    [
        ("The miss rate is at least 1 - M/|V| for every table.", [True]),
        ("The load is below h(V)/(M+1) on average.", [True]),
        ("The lag is \u03bb/(1-\u03bb) times the step.", [True]),
        ("Wombat reaches 71.5% on Quux-50 and 2.1x-2.4x speedups.", [False, False, False]),
        ("A 5-point gain, improving +0.41 over p < 0.05.", [False, False, False]),
        ("The score of 0.8 - a big gain.", [False]),
        ("It serves 305 tokens/s and 3 GB/s.", [False, False]),
    ],
)
def test_a_number_joined_to_symbols_by_an_operator_is_in_a_formula(
    sentence: str, inside: list[bool]
) -> None:
    mentions = [m for m in find_numbers(sentence) if m.text != "50"]
    assert [in_formula(sentence, m.start, m.end) for m in mentions] == inside
