"""Which recorded run a metric was logged in.

A bundle metric names its run id. A Trackio metric names the *Trackio* run name, which is not a
run cell id, so it is tied by time: it belongs to the run cell whose window
``[created_at - duration_s - 2 s, created_at + 2 s]`` holds its timestamp (``created_at`` is when
the run cell was written, i.e. when the run ended); the closest, then shortest, window wins when
several hold it. The judge's evidence and the rendered logbook tie metrics to runs with the same
:class:`RunFinder`.

A run cell's times are its own word: a hand-written ``duration_s: 1e9`` would make its window
span 31 years and take in metrics logged 300 days after the run. So a window never lasts more
than :data:`MAX_RUN_SECONDS`, and :func:`run_time_problems` names each run whose recorded times
cannot be true (the flag ``run_times_inconsistent`` of :mod:`openrepro.evidence.checks`, which
takes the run's evidence down to testimony). A duration within the cap that is still a lie (a
run cell typed by hand) is not caught here: it is ``self-recorded`` evidence, and only a replay
or an attestation raises it (docs/provenance.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from openrepro.logbooks.records import LogbookRecord, Metric, Run

__all__ = ["MAX_RUN_SECONDS", "WINDOW_SLACK_S", "RunFinder", "run_time_problems"]

WINDOW_SLACK_S = 2.0  # seconds allowed either side of a run's window
MAX_RUN_SECONDS = 30 * 24 * 3600.0  # the longest run a logbook may record (30 days)


def _seconds(stamp: str | None) -> float | None:
    """An ISO-8601 time (or epoch seconds) as epoch seconds; naive times are taken as UTC."""
    if stamp is None or not stamp.strip():
        return None
    text = stamp.strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@dataclass(frozen=True)
class _Window:
    run: Run
    start: float  # when the run began (created_at - duration_s)
    end: float  # when the run cell was written (created_at)


def _claimed_start(run: Run, end: float) -> float:
    duration = run.duration_s if run.duration_s and run.duration_s > 0 else 0.0
    return end - duration


def run_time_problems(record: LogbookRecord) -> dict[str, str]:
    """Per run id, how its recorded times cannot be true: a duration above
    :data:`MAX_RUN_SECONDS`, or a run that ended before it started (a negative duration)."""
    found: dict[str, str] = {}
    for run in record.runs:
        duration = run.duration_s
        if duration is None:
            continue
        if duration > MAX_RUN_SECONDS:
            found[run.id] = f"a duration of {duration:g} s, above {MAX_RUN_SECONDS:g} s"
        elif duration < 0:
            found[run.id] = f"a negative duration ({duration:g} s)"
    return found


def _windows(record: LogbookRecord) -> list[_Window]:
    found: list[_Window] = []
    for run in record.runs:
        end = _seconds(run.created_at)
        if end is None:
            continue
        start = max(_claimed_start(run, end), end - MAX_RUN_SECONDS)
        found.append(_Window(run=run, start=start, end=end))
    return found


def _run_at(windows: list[_Window], when: float) -> Run | None:
    """The run whose slack window holds ``when``; the closest (then shortest) if several do."""
    best: tuple[float, float, int] | None = None
    chosen: Run | None = None
    for index, window in enumerate(windows):
        if not window.start - WINDOW_SLACK_S <= when <= window.end + WINDOW_SLACK_S:
            continue
        distance = max(window.start - when, when - window.end, 0.0)
        rank = (distance, window.end - window.start, index)
        if best is None or rank < best:
            best, chosen = rank, window.run
    return chosen


class RunFinder:
    """Ties metrics to the run cells they were logged in."""

    def __init__(self, record: LogbookRecord) -> None:
        self._by_id = {run.id: run for run in record.runs}
        self._windows = _windows(record)
        self._bundle = record.format == "bundle"

    def run_of(self, metric: Metric) -> Run | None:
        if self._bundle or metric.source == "bundle":
            return self._by_id.get(metric.run)
        when = _seconds(metric.timestamp)
        return None if when is None else _run_at(self._windows, when)
