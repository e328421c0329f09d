"""An exception inside the judge's own code is a judge error, not unreadable evidence: the claim
gets ``inconclusive`` with rule J1 and flag ``judge_error``, the reason says so, the traceback is
logged, ``judge`` counts it, and the judge goes on. (A rate over a variable below 1 once raised
"math domain error" in the rate fit and was reported as "the logbook's evidence could not be
read"; that bug is fixed, so the fault is injected here into the judge's relation code.)"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_judge_bindings import _run, _workspace, claims  # noqa: F401 (a fixture)

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks import Check
from openrepro.judge import engine
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.submit import submit_logbook


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_fault_of_the_judge_is_a_judge_error_and_the_run_goes_on(
    challenge: ChallengeContext,
    claims: None,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "good")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3,94.9", "outputs/results.csv")
    book = submit_logbook(challenge, ws, handle="good").logbook_id
    real = engine.evaluate

    def faulty(check: Check, *args: object, **kwargs: object) -> object:
        if check.relation.value == "bound":  # C1 ("at least 90%"): the judge's code fails
            raise ValueError("math domain error")
        return real(check, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "evaluate", faulty)
    with caplog.at_level(logging.ERROR, logger="openrepro.judge.service"):
        report = judge_logbooks(challenge, None)
    got = {r.claim_id.rsplit("/", 1)[-1]: r for r in report.verdicts if r.logbook_id == book}
    row = got["C1"]
    assert (row.verdict, row.rule) == ("inconclusive", "J1")
    assert "judge_error" in row.flags and "evidence_unreadable" not in row.flags
    assert "judge error" in row.rationale and "math domain error" in row.rationale
    assert "could not be read" not in row.rationale
    assert report.judge_errors == 1 and report.model_dump()["judge_errors"] == 1
    assert "judge error on claim" in caplog.text and "Traceback" in caplog.text
    assert "ValueError: math domain error" in caplog.text
    assert "C2" in got and got["C2"].rule != "J1"  # the other claim was judged as usual
