"""Self-recorded evidence with a one-line bypass each: a comment that named
trackio, a traceback under exit 0, a duration of 1e9 s that made a window take in metrics logged
300 days after the run. Each takes the run's evidence down to testimony now."""

from __future__ import annotations

from openrepro.evidence.checks import apply_levels, check_record, script_can_log
from openrepro.evidence.gather import measurements
from openrepro.logbooks.records import LogbookRecord, Metric, Run

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
