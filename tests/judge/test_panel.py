"""A panel of judges choosing pointers, and the artifact_not_from_run flag.

The judges are the real OpenAI-compatible backend talking to the scripted local server of
tests/llm/fake_openai.py, so each judge's answer is known: two judges that read different
pointers leave the quantity unbound, and a claim without a check never reaches them. The
records are bundles, whose runs count once a replay matched them (``REPLAYED``).
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))

from fake_openai import FakeOpenAI, completion

from openrepro.claims.checks import Check, Constant, Quantity, Tolerance
from openrepro.claims.records import ClaimView
from openrepro.claims.values import ReportedValue, Scale
from openrepro.evidence.checks import EvidenceLevels, RunStanding
from openrepro.judge.engine import JudgeCase, judge_claim
from openrepro.judge.judges import Judges
from openrepro.llm import LLMClient
from openrepro.llm.openai_backend import OpenAIBackend
from openrepro.logbooks.records import Artifact, FileRef, LogbookRecord, Metric, Run
from openrepro.logbooks.tables import index_tables

CLAIM = ClaimView(
    id="p1/C1", paper_id="p1", key="C1", text="Reaches 88.1 accuracy.", kind="result",
    status="active", origin="manual", quotes=[],
    reported=[ReportedValue(metric="accuracy", value=88.1, text="88.1")],
    scale=Scale(), provenance={}, created_at=datetime(2026, 1, 1),
)  # fmt: skip
RUN = Run(id="r1", command=["python", "eval.py"], exit_code=0, duration_s=1.0,
          output="final accuracy 88.0\nbaseline accuracy 70.0\n")  # fmt: skip
RECORD = LogbookRecord(format="bundle", format_version="1", paper_id="p1", runs=[RUN])
REPLAYED = EvidenceLevels(
    runs={run: RunStanding(level="replayed", notes=["replay matched"]) for run in ("r1", "r2")}
)


def _judge(server: FakeOpenAI) -> LLMClient:
    return LLMClient(OpenAIBackend(server.url, model="judge"), store=None, max_tokens=64)


def test_a_claim_without_a_check_never_reaches_the_judges() -> None:
    """No extraction path any more: the judges are not asked to read a value for a claim
    without a check, even where the output prints one next to the claim's number."""
    with FakeOpenAI() as one:
        one.default = completion('{"items": [1], "value": 88.0, "unit": ""}')
        judged = judge_claim(JudgeCase(record=RECORD, view=CLAIM), Judges.of(_judge(one)))
        assert one.count("/v1/chat/completions") == 0
    assert (judged.decision.verdict, judged.decision.rule) == ("inconclusive", "N0")
    assert judged.usage.calls == 0 and judged.evidence == []


def test_artifacts_no_run_produced_are_flagged() -> None:
    figure = FileRef(path="fig.png", sha256="a" * 64, size=3)
    record = RECORD.model_copy(update={"artifacts": [Artifact(file=figure)], "files": [figure]})
    judged = judge_claim(JudgeCase(record=record, view=CLAIM))
    assert "artifact_not_from_run" in judged.decision.flags


def test_the_checks_own_tolerance_decides() -> None:
    metric = Metric(run="r1", key="claims/p1/C1/subject", step=0, value=88.0, source="bundle")
    record = RECORD.model_copy(update={"metrics": [metric]})
    assert (
        judge_claim(JudgeCase(record=record, view=_checked(), levels=REPLAYED)).decision.verdict
        == "verified"
    )
    check = _checked().check
    assert check is not None
    strict = _checked().model_copy(
        update={"check": check.model_copy(update={"tolerance": Tolerance(rel=0.0005)})}
    )
    assert (
        judge_claim(JudgeCase(record=record, view=strict, levels=REPLAYED)).decision.verdict
        == "falsified"
    )


# -- rule 4 of binding: the judges choose among numbered pointers; code reads the values --

TABLE_RUN = Run(id="r2", command=["python", "eval.py"], exit_code=0, duration_s=1.0,
                output="done\n\ntrial,score\n0,88.0\n1,88.2\n2,87.9\n")  # fmt: skip


def _table_record() -> LogbookRecord:
    tables, _ = index_tables(Path("."), [TABLE_RUN], [], [])
    return LogbookRecord(format="bundle", format_version="1", paper_id="p1", runs=[TABLE_RUN],
                         tables=tables)  # fmt: skip


def _checked() -> ClaimView:
    check = Check(relation="equal", quantities=[Quantity(name="subject")], subject="subject",
                  constant=Constant(value=88.1, text="88.1")).for_claim("p1/C1")  # fmt: skip
    return CLAIM.model_copy(update={"check": check})


def test_a_pointer_the_judges_agree_on_binds_and_code_reads_it() -> None:
    record, claim = _table_record(), _checked()
    # nothing is named "subject" or "accuracy": name matching binds nothing
    assert judge_claim(JudgeCase(record=record, view=claim)).decision.verdict == "inconclusive"
    with FakeOpenAI() as one, FakeOpenAI() as two:
        one.script(completion('{"choices": [1]}'))
        two.script(completion('{"choices": [1]}'))
        judged = judge_claim(
            JudgeCase(record=record, view=claim, levels=REPLAYED),
            Judges.of(_judge(one), _judge(two)),
        )
    assert (judged.path, judged.decision.verdict) == ("llm", "verified"), judged.decision
    [binding] = judged.details["bindings"]
    assert binding["how"] == "llm" and sorted(binding["values"]) == [87.9, 88.0, 88.2]
    assert {p["column"] for p in binding["pointers"]} == {"score"}
    assert judged.usage.calls == 2


def test_judges_that_choose_different_pointers_bind_nothing() -> None:
    record = _table_record()
    record.runs[0] = TABLE_RUN.model_copy(
        update={"output": TABLE_RUN.output + "\nother,loss\n0,0.5\n1,0.4\n"}
    )
    record.tables, _ = index_tables(Path("."), record.runs, [], [])
    with FakeOpenAI() as one, FakeOpenAI() as two:
        one.script(completion('{"choices": [1]}'))
        two.script(completion('{"choices": [2]}'))
        judged = judge_claim(
            JudgeCase(record=record, view=_checked()), Judges.of(_judge(one), _judge(two))
        )
    assert judged.decision.verdict == "inconclusive"
    [binding] = judged.details["bindings"]
    assert (
        binding["how"] == "unbound"
        and "the judges disagree on the pointer (1, 2)" in (binding["reason"])
    )


def test_a_pointer_number_outside_the_list_is_refused() -> None:
    with FakeOpenAI() as liar:
        liar.default = completion('{"choices": [7]}')  # there is one candidate
        judged = judge_claim(
            JudgeCase(record=_table_record(), view=_checked()), Judges.of(_judge(liar))
        )
    assert judged.decision.verdict == "inconclusive" and judged.evidence == []
