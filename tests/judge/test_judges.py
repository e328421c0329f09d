"""The judges of a run as one value (:class:`openrepro.judge.judges.Judges`): built from the
settings and the command line's options in one place, named (and hashed into the judge config)
without opening anything, and opened only by the first claim that needs a model. The judges
are the real OpenAI-compatible backend talking to the scripted local server of
tests/llm/fake_openai.py, which counts what it was asked."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))

from fake_openai import FakeOpenAI, completion
from test_panel import REPLAYED, _checked, _table_record

from openrepro.config import Settings
from openrepro.judge.engine import JudgeCase, judge_claim
from openrepro.judge.judges import Judges, judge_config
from openrepro.logbooks.records import LogbookRecord, Metric, Run

SETTINGS = Settings(name="t")


def test_the_options_make_the_judges_in_one_place() -> None:
    none = Judges.from_options(SETTINGS, None, model="m", no_llm=True)
    assert len(none) == 0 and none.model == "" and none.config == judge_config("")
    http = SETTINGS.model_copy(update={"llm_url": "http://127.0.0.1:9/v1", "llm_model": "cfg"})
    assert Judges.from_options(http, None).model == "cfg"  # the configured model
    assert Judges.from_options(http, None, model="big").model == "big"  # --model
    panel = Judges.from_options(http, None, model="ignored", panel=["a", " b", ""])  # --judges
    assert len(panel) == 2 and panel.model == "a+b" and panel.config == judge_config("a+b")
    assert [s.llm_model for s in panel.settings] == ["a", "b"]
    # a .gguf path names the embedded model's file, no endpoint set; named without loading it
    gguf = Judges.from_options(SETTINGS, None, model="models/tiny-judge.gguf")
    assert gguf.settings[0].llm_model_path == "models/tiny-judge.gguf"
    assert gguf.model == "tiny-judge" and gguf.clients()[0].backend.name == "embedded"


def test_no_judge_is_opened_until_a_claim_needs_one(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.default = completion('{"choices": [1]}')
        settings = SETTINGS.model_copy(update={"llm_url": server.url, "llm_model": "judge",
                                               "llm_max_tokens": 64})  # fmt: skip
        judges = Judges.from_options(settings, None)
        assert judges.config == judge_config("judge")
        # the claim's value is logged under its exact key: decided by code, no model opened
        run = Run(id="r1", command=["python", "eval.py"], exit_code=0, duration_s=1.0, output="")
        logged = LogbookRecord(format="bundle", format_version="1", paper_id="p1", runs=[run],
                               metrics=[Metric(run="r1", key="claims/p1/C1/subject", step=0,
                                               value=88.0, source="bundle")])  # fmt: skip
        decided = judge_claim(JudgeCase(record=logged, view=_checked(), levels=REPLAYED), judges)
        assert decided.decision.verdict == "verified" and decided.path == "deterministic"
        assert server.requests == [] and judges.usage.calls == 0
        assert judges.opened == 0  # not even a client object was made
        # a value only in a printed table: the judge chooses the pointer, opened now
        chosen = judge_claim(JudgeCase(record=_table_record(), view=_checked(), levels=REPLAYED),
                             judges)  # fmt: skip
        assert chosen.path == "llm" and chosen.decision.verdict == "verified"
        assert server.count("/v1/chat/completions") == 1 and judges.usage.calls == 1
        assert judges.opened == 1
        judges.close()


def test_an_endpoint_that_names_no_model_is_asked_once() -> None:
    with FakeOpenAI(models=["served-model"]) as server:
        judges = Judges.from_options(SETTINGS.model_copy(update={"llm_url": server.url}), None)
        assert judges.model == "served-model" and judges.config == judge_config("served-model")
        assert judges.pinned().settings[0].llm_model == "served-model"
        assert server.count("/v1/models") >= 1 and server.count("/v1/chat/completions") == 0
        judges.close()
