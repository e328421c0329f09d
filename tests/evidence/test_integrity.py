"""Self-recorded evidence with a one-line bypass each: a comment that named
trackio, a traceback under exit 0, a duration of 1e9 s that made a window take in metrics logged
300 days after the run, a duration of 60 s beside metrics of its Trackio run spanning 300 days, a
bundle's self-declared runs. Each takes the run's evidence down to testimony now."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from test_bundle import make_bundle

from openrepro.evidence.checks import (
    EvidenceLevels,
    RunStanding,
    apply_levels,
    check_record,
    script_can_log,
)
from openrepro.evidence.gather import measurements
from openrepro.logbooks.bundle import read_bundle
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.logbooks.runs import run_time_problems

KEY = "claims/p1/C1/accuracy"
OOM = """epoch 1 accuracy 0.91
Traceback (most recent call last):
  File "train.py", line 40, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB
"""


def _run(**extra: object) -> Run:
    fields: dict[str, object] = {
        "id": "r1",
        "command": ["python", "train.py"],
        "exit_code": 0,
        "duration_s": 30.0,
        "created_at": "2026-03-01T12:00:00+00:00",
    }
    return Run.model_validate({**fields, **extra})  # fmt: skip


def _record(run: Run, *stamps: str) -> LogbookRecord:
    metrics = [Metric(run="seed0", key=KEY, step=i, value=91.0 + i, timestamp=stamp,
                      source="trackio-db") for i, stamp in enumerate(stamps)]  # fmt: skip
    return LogbookRecord(format="trackio", format_version="2", runs=[run], metrics=metrics)


def test_a_comment_naming_trackio_does_not_make_a_script_able_to_log() -> None:
    """The attack: `import json  # trackio` defeated script_cannot_log_metric."""
    source = "import json  # trackio\nprint(json.dumps({'accuracy': 91.0}))\n"
    assert not script_can_log(_run(scripts={"train.py": source}), KEY)
    docstring = '"""Logs to trackio."""\nimport math\nprint(math.pi)\n'
    assert not script_can_log(_run(scripts={"train.py": docstring}), KEY)
    # what can log still can: trackio imported, a library, a dynamic import, a command
    for can in (
        "import trackio\n",
        "from trackio import log\n",
        "import wandb\n",
        "import importlib\nimportlib.import_module('track' + 'io')\n",
        "import subprocess\nsubprocess.run(['trackio', 'log'])\n",
        "def f(:\n",
    ):
        assert script_can_log(_run(scripts={"train.py": can}), KEY), can  # fmt: skip


def test_a_traceback_under_exit_0_takes_the_run_down_to_testimony() -> None:
    """The attack: an output ending in a CUDA out-of-memory traceback, the header exit 0."""
    record = _record(_run(output=OOM), "2026-03-01T11:59:50+00:00")
    assert check_record(record) == {"r1": ["output_shows_failure"]}
    levelled, flags = apply_levels(record, "p1/C1", measurements(record, "p1/C1"))
    assert [m.level for m in levelled] == ["testimony"] and "output_shows_failure" in flags
    handled = _record(_run(output="Traceback (most recent call last):\n...\nretrying\ndone\n"))
    assert check_record(handled) == {}  # a traceback the run survived, then went on


def test_a_duration_of_1e9_seconds_neither_ties_late_metrics_nor_counts() -> None:
    """The attack: metrics 300 days before the run cell's time passed with `duration_s: 1e9`."""
    honest = _record(_run(duration_s=30.0), "2026-03-01T11:59:50+00:00")
    assert [m.within_run for m in measurements(honest, "p1/C1")] == [True]
    forged = _record(_run(duration_s=1e9), "2025-05-05T11:59:50+00:00")
    assert check_record(forged) == {"r1": ["run_times_inconsistent"]}
    assert [m.within_run for m in measurements(forged, "p1/C1")] == [False]


# ---- a run's times against its metrics' times and the logbook's own times ----

DAY = 24 * 3600.0


def _at(seconds: float) -> str:
    """The time ``seconds`` after the run cell was written (2026-03-01 12:00 UTC)."""
    return datetime.fromtimestamp(datetime(2026, 3, 1, 12, tzinfo=UTC).timestamp() + seconds,
                                  UTC).isoformat()  # fmt: skip


def test_metrics_of_a_run_logged_outside_its_window_make_its_times_inconsistent() -> None:
    """The attack: a cell claiming ``duration_s: 60`` beside metrics of its Trackio run
    spanning 300 days; its last metric lies in the window and was self-recorded evidence."""
    minute = _run(duration_s=60.0)
    honest = _record(minute, _at(-50), _at(-30), _at(-10))
    assert run_time_problems(honest) == {} and check_record(honest) == {}
    forged = _record(minute, _at(-300 * DAY), _at(-150 * DAY), _at(-10))
    assert "before the run's window" in run_time_problems(forged)["r1"]
    levelled, flags = apply_levels(forged, "p1/C1", measurements(forged, "p1/C1"))
    assert [m.level for m in levelled] == ["testimony"] and "run_times_inconsistent" in flags
    # the slack: 5 minutes (or 10 % of the duration) either side of the window
    assert run_time_problems(_record(minute, _at(-60 - 240), _at(-10))) == {}
    assert "r1" in run_time_problems(_record(minute, _at(-60 - 360), _at(-10)))
    week = _run(duration_s=7 * DAY)  # 10 % of a week: 16.8 hours
    assert run_time_problems(_record(week, _at(-7 * DAY - 16 * 3600), _at(-10))) == {}
    assert "r1" in run_time_problems(_record(week, _at(-7 * DAY - 18 * 3600), _at(-10)))


def test_metrics_after_the_window_or_without_a_recorded_start_are_left_to_rule_r2() -> None:
    """A series continued after the run does not hide what the run logged (its later values
    are ``metric_outside_run``); a run without a duration has no start to contradict."""
    later = _record(_run(duration_s=60.0), _at(-10), _at(40 * DAY))
    assert run_time_problems(later) == {}
    assert [m.within_run for m in measurements(later, "p1/C1")] == [True]  # step 0, in the run
    open_ended = _run(duration_s=None)
    assert run_time_problems(_record(open_ended, _at(-300 * DAY), _at(0))) == {}


def test_a_run_dated_after_the_logbook_was_written_or_submitted_is_inconsistent() -> None:
    record = _record(_run(duration_s=30.0), _at(-10))
    written = record.model_copy(update={"updated_at": _at(60)})  # the cell, then logbook.json
    assert run_time_problems(written) == {}
    before = record.model_copy(update={"updated_at": _at(-2 * DAY)})
    assert "after the logbook was last updated" in run_time_problems(before)["r1"]
    # against the server's clock (the submission), a day of skew is allowed
    assert run_time_problems(record, submitted_at=_at(-3600)) == {}
    problem = run_time_problems(record, submitted_at=_at(-2 * DAY))["r1"]
    assert "after the logbook was submitted" in problem
    levels = EvidenceLevels(submitted_at=_at(-2 * DAY))
    levelled, flags = apply_levels(record, "p1/C1", measurements(record, "p1/C1"), levels)
    assert [m.level for m in levelled] == ["testimony"] and "run_times_inconsistent" in flags


def test_a_trackio_run_name_shared_by_two_run_cells_is_each_cells_own() -> None:
    """A Trackio run resumed by a second command: its metrics in either window are explained."""
    first = _run(id="r1", duration_s=30.0, created_at=_at(-DAY))
    second = _run(id="r2", duration_s=30.0)
    record = _record(first, _at(-DAY - 10), _at(-10))
    record = record.model_copy(update={"runs": [first, second]})
    assert run_time_problems(record) == {}


# ---- a bundle's self-declared runs ----


def test_a_bundle_run_is_testimony_until_a_replay_or_an_attestation_lifts_it(
    tmp_path: Path,
) -> None:
    """The attack: a bundle's declared runs and metrics were self-recorded evidence (verified
    when they matched). Now ``run_self_declared`` keeps them testimony; a matched replay or
    attestation lifts them as it lifts a Trackio run, a mismatch does not."""
    root = make_bundle(tmp_path / "b")
    logs = (
        "import trackio\ntrackio.init(project='p1')\ntrackio.log({'claims/p1/C1/accuracy': 0.87})\n"
    )
    (root / "train.py").write_text(logs, encoding="utf-8")  # a script that can log the metric
    record = read_bundle(root)
    found = measurements(record, "p1/C1")
    assert [m.level for m in found] == ["self-recorded"]  # what gathering alone would say
    levelled, flags = apply_levels(record, "p1/C1", found)
    assert [m.level for m in levelled] == ["testimony"] and flags == ["run_self_declared"]
    as_trackio = record.model_copy(update={"format": "trackio"})
    assert [m.level for m in apply_levels(as_trackio, "p1/C1", found)[0]] == ["self-recorded"]
    for level in ("replayed", "attested"):
        lifted = EvidenceLevels(runs={"seed0": RunStanding(level=level, notes=["matched"])})
        levelled, flags = apply_levels(record, "p1/C1", found, lifted)
        assert [m.level for m in levelled] == [level] and flags == []
    mismatch = EvidenceLevels(runs={"seed0": RunStanding(level="testimony",
                                                          flags=["replay_mismatch"])})  # fmt: skip
    levelled, flags = apply_levels(record, "p1/C1", found, mismatch)
    assert [m.level for m in levelled] == ["testimony"] and "replay_mismatch" in flags


def test_times_no_calendar_holds_are_named_not_raised() -> None:
    """Hostile times (epoch 1e300, nan, a month 13) neither crash the check nor tie metrics."""
    for stamp in ("1e300", "-1e300", "nan", "inf", "2026-13-45"):
        odd = _run(created_at=stamp)
        record = _record(odd, stamp, _at(-10)).model_copy(update={"updated_at": stamp})
        problems = run_time_problems(record, submitted_at=_at(0))
        assert set(problems) <= {"r1"} and all(isinstance(p, str) for p in problems.values())
    huge = _record(_run(), "-1e300", _at(-10))  # the run's Trackio run "logged" in year -3e292
    assert "s after 1970" in run_time_problems(huge)["r1"]
