"""The record's own provenance checks (openrepro.evidence.checks) on hand-written runs."""

from __future__ import annotations

from openrepro.evidence.checks import output_disagrees
from openrepro.logbooks.records import Run


def _run(output: str) -> Run:
    return Run(id="r1", command=["python", "sweep.py"], exit_code=0, output=output)


def test_an_output_naming_the_metric_without_its_logged_value_was_edited() -> None:
    run = _run("accuracy: 91.2\n")
    assert output_disagrees(run, "accuracy", "claims/p/C1/accuracy", [86.3])
    assert not output_disagrees(run, "accuracy", "claims/p/C1/accuracy", [91.2])


def test_a_one_letter_sweep_metric_is_matched_as_a_word_not_a_letter() -> None:
    # "n" occurs in "seed", "comparisons", "log2 n"...: only a line naming n counts
    run = _run("n=1024 seed 0: 8951 comparisons = 0.8741 n log2 n\nrunning seed 1: done 2\n")
    assert not output_disagrees(run, "n", "claims/p/C1/n", [1024.0])
    assert output_disagrees(run, "n", "claims/p/C1/n", [4096.0])
    assert not output_disagrees(_run("running seed 1: done 2\n"), "n", "claims/p/C1/n", [1024.0])
