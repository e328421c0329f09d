"""The recorded-model path of bench/: the exact requests dumped, replayed over real HTTP on
127.0.0.1 by ``bench/replay_llm.py``, and measured by ``bench/checks_recorded.py`` through the
project's unchanged ``draft_check_llm``. The claims and the recording are fictional."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import check_prompts  # noqa: E402
import checks_recorded  # noqa: E402
from openrepro.claims.checks import LLMCheckDraft, Relation  # noqa: E402
from openrepro.claims.checks.eval import CheckLabel  # noqa: E402
from openrepro.claims.checks.records import Direction  # noqa: E402
from replay_llm import Recording, ReplayServer, load_recording  # noqa: E402

FASTER = "Zorp converged about 8x faster than the Blip baseline."
ACCURATE = "Zorp reaches 91.5% accuracy on the Quux benchmark."
DESCRIBES = "Zorp shares one encoder between its two towers."
UNRECORDED_CLAIM = "Zorp uses 40% of the memory of Blip."


def _dump(tmp_path: Path, texts: list[str]) -> list[dict[str, Any]]:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"zorp": [{"text": t} for t in texts]}), encoding="utf-8")
    out = tmp_path / "prompts.jsonl"
    keys = [f"zorp/{i}" for i in range(len(texts))]
    assert check_prompts.main([str(claims), "--out", str(out), "--keys", *keys]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _recording(tmp_path: Path, dumped: list[dict[str, Any]], replies: list[Any]) -> Path:
    path = tmp_path / "recorded.jsonl"
    rows = [
        {"key": d["key"], "request_sha256": d["request_sha256"], "reply": reply}
        for d, reply in zip(dumped, replies, strict=True)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_dump_writes_the_exact_request_and_its_hash(tmp_path: Path) -> None:
    (line,) = _dump(tmp_path, [FASTER])
    assert line["key"] == "zorp/0" and line["prompt_version"] == "check-draft-v7"
    assert line["user"].startswith(f"Claim: {FASTER}")
    assert line["schema"] == LLMCheckDraft.model_json_schema()
    assert len(line["request_sha256"]) == 64
    assert check_prompts.request_record("x", FASTER)["request_sha256"] == line["request_sha256"]
    assert check_prompts.request_record("x", ACCURATE)["request_sha256"] != line["request_sha256"]


def test_the_dump_refuses_to_write_claim_texts_into_the_repository(tmp_path: Path) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"zorp": [{"text": FASTER}]}), encoding="utf-8")
    inside = BENCH / "data" / "should_not_exist.jsonl"
    assert check_prompts.main([str(claims), "--out", str(inside), "--keys", "zorp/0"]) == 2
    assert not inside.exists()


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"{url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_server_answers_by_messages_and_schema_only(tmp_path: Path) -> None:
    (line,) = _dump(tmp_path, [FASTER])
    recordings = load_recording(_recording(tmp_path, [line], ['{"relation": "none"}']))
    messages = [
        {"role": "system", "content": line["system"]},
        {"role": "user", "content": line["user"]},
    ]
    schema_format = {"type": "json_schema", "json_schema": {"name": "X", "schema": line["schema"]}}
    with ReplayServer(recordings, model="rec") as server:
        status, body = _post(
            server.url,
            {"model": "any", "messages": messages, "temperature": 0.7, "max_tokens": 9,
             "response_format": schema_format},
        )  # fmt: skip
        assert status == 200 and body["choices"][0]["message"]["content"] == '{"relation": "none"}'
        status, _ = _post(
            server.url,
            {"messages": messages, "response_format": {"type": "json_object",
                                                       "schema": line["schema"]}},
        )  # fmt: skip
        assert status == 200  # the json_object mode carries the same schema
        changed = [messages[0], {"role": "user", "content": line["user"] + " "}]
        status, body = _post(server.url, {"messages": changed, "response_format": schema_format})
        assert status == 422 and "no recorded reply for request_sha256" in body["error"]["message"]
        other_schema = {"type": "json_schema", "json_schema": {"name": "X", "schema": {}}}
        status, _ = _post(server.url, {"messages": messages, "response_format": other_schema})
        assert status == 422
        with urllib.request.urlopen(f"{server.url}/models", timeout=10) as response:
            assert json.loads(response.read())["data"][0]["id"] == "rec"
    assert server.served == 2 and len(server.unrecorded) == 2


def test_a_bad_recording_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"request_sha256": "a", "reply": "{}"}\n{"reply": "{}"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        load_recording(path)


def _label(quote: str, relation: Relation | None, quantities: int, constants: list[float],
           direction: Direction = Direction.none) -> CheckLabel:  # fmt: skip
    return CheckLabel(
        id=quote.split()[1], quote=quote, relation=relation, quantities=quantities,
        constants=constants, direction=direction,
    )  # fmt: skip


def test_the_bench_runs_the_unchanged_drafter_on_the_recording(tmp_path: Path) -> None:
    dumped = _dump(tmp_path, [FASTER, ACCURATE, DESCRIBES])
    replies: list[Any] = [
        {"relation": "ratio", "subject": "zorp speed", "baselines": ["blip speed"],
         "number": "8x", "direction": "higher"},
        # a number the claim does not state: code refuses it
        {"relation": "equal", "subject": "zorp accuracy", "number": "92.5%"},
        '{"relation": "none", "reason": "describes the architecture"}',
    ]  # fmt: skip
    recordings: dict[str, Recording] = load_recording(_recording(tmp_path, dumped, replies))
    labels = [
        _label(FASTER, Relation.ratio, 2, [8], Direction.higher),
        _label(ACCURATE, Relation.equal, 1, [91.5]),
        _label(DESCRIBES, None, 0, []),
        _label(UNRECORDED_CLAIM, Relation.ratio, 2, [40]),
    ]
    labels = [label.model_copy(update={"id": f"zorp/{i}"}) for i, label in enumerate(labels)]
    report, drafts = checks_recorded.run(labels, recordings, name="rec")
    assert report.drafted == 1 and report.precision == 1.0
    assert report.checkable == 3 and report.checkable_coverage == pytest.approx(1 / 3, abs=1e-3)
    faster = drafts["zorp/0"].check
    assert faster is not None and faster.rate is None and faster.constant is not None
    assert faster.constant.value == 8
    answered, refused = checks_recorded.refusals(labels, recordings, drafts)
    assert answered == 2
    assert [key for key, _ in refused] == ["zorp/1"] and "not grounded" in refused[0][1]
    assert drafts["zorp/3"].reason.startswith("unrecorded") and "422" in drafts["zorp/3"].reason
    words = checks_recorded.cases_in_words(labels, report, recordings)
    assert "## zorp/0" in words and "check [RQCD]: zorp_speed / blip_speed = 8" in words
    assert "check: none: model's draft is not grounded" in words
    # two drafters that agree on the one claim both drafted
    line, agreed = checks_recorded.agreement(
        labels, drafts, drafts, {c.id: c for c in report.cases}
    )
    assert "both drafted 1, equivalent 1" in line and "strictly right 1/1" in line
    assert agreed == ["zorp/0"]


def test_the_repair_round_is_dumped_recorded_and_replayed(tmp_path: Path) -> None:
    dumped = _dump(tmp_path, [FASTER, ACCURATE, DESCRIBES])
    first: list[Any] = [
        {"relation": "ratio", "subject": "zorp speed", "baselines": ["blip speed"],
         "number": "8x", "direction": "higher"},
        {"relation": "equal", "subject": "zorp accuracy", "number": "92.5%"},  # refused
        {"relation": "none", "reason": "describes the architecture"},
    ]  # fmt: skip
    recorded = _recording(tmp_path, dumped, first)
    claims = tmp_path / "claims.json"
    out = tmp_path / "repairs.jsonl"
    keys = ["zorp/0", "zorp/1", "zorp/2"]
    argv = [str(claims), "--out", str(out), "--keys", *keys, "--repairs-of", str(recorded)]
    assert check_prompts.main(argv) == 0
    (line,) = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert line["key"] == "zorp/1" and line["round"] == 2
    assert line["user"] == dumped[1]["user"] and json.loads(line["first_reply"]) == first[1]
    assert "'92.5%'" in line["repair"] and "to fix:" in line["repair"]
    # the recorder answers the repair line; the replay serves both rounds from two files
    fixed = {"relation": "equal", "subject": "zorp accuracy", "number": "91.5%"}
    repairs = tmp_path / "repaired.jsonl"
    repairs.write_text(
        json.dumps({"request_sha256": line["request_sha256"], "reply": fixed}) + "\n",
        encoding="utf-8",
    )
    recordings = {**load_recording(recorded), **load_recording(repairs)}
    labels = [
        _label(FASTER, Relation.ratio, 2, [8], Direction.higher),
        _label(ACCURATE, Relation.equal, 1, [91.5]),
        _label(DESCRIBES, None, 0, []),
    ]
    labels = [label.model_copy(update={"id": f"zorp/{i}"}) for i, label in enumerate(labels)]
    _, once = checks_recorded.run(labels, recordings, name="rec")
    assert once["zorp/1"].check is None  # the first answer, refused
    report, drafts = checks_recorded.run(labels, recordings, name="rec", repair=True)
    assert report.drafted == 2 and report.precision == 1.0
    rounds = checks_recorded.repaired(labels, recordings, drafts)
    assert rounds == {"checked": ["zorp/1"], "none": [], "refused": [], "unrecorded": []}
    # without the repair recording, the refused answer's repair is unrecorded
    _, alone = checks_recorded.run(labels, load_recording(recorded), name="rec", repair=True)
    assert checks_recorded.repaired(labels, load_recording(recorded), alone)["unrecorded"] == [
        "zorp/1"
    ]
