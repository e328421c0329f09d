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
takes the run's evidence down to testimony). A run's times must also agree with the times
recorded beside them (:func:`run_time_problems`, slack :func:`time_slack`: 5 minutes or 10 % of
the duration, whichever is larger, between times of the participant's machine;
:data:`CLOCK_SKEW_S` between its clock and the server's):

- the Trackio runs logged in a run cell (the Trackio run names of the metrics logged in its
  window) did not log before the cell's window ``[created_at - duration_s, created_at]``
  began: a metric of the same Trackio run logged outside every run cell's window, earlier than
  the window's start by more than the slack, means the process that logged the window's
  values was running before the recorded command started (``duration_s: 60`` beside metrics
  spanning 300 days; a long job started by hand whose last values land while a recorded
  ``sleep 60`` runs). Metrics of the same Trackio run logged *after* the window are left to
  rule R2 (``metric_outside_run``: they do not count, and the values logged in the window
  still decide: a series continued after the run with the paper's value must not hide what
  the run logged). A run cell without a duration has no recorded start: this check does not
  apply to it;
- the run started before the logbook was last written (``updated_at`` of ``logbook.json``,
  which Trackio rewrites after each cell it writes), and the run did not end after the
  logbook's submission (the server's time, given by the judge): the metrics that count lie in
  the run's window, so none of them is dated after the submission either.

A bundle records no times (its runs and metrics are the manifest's word): only its durations
are checked. A duration within the cap and consistent with these times that is still a lie (a
run cell and a metrics database typed by hand) is not caught here: it is ``self-recorded``
evidence, and only a replay or an attestation raises it (docs/provenance.md).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from openrepro.logbooks.records import LogbookRecord, Metric, Run

__all__ = [
    "CLOCK_SKEW_S",
    "MAX_RUN_SECONDS",
    "TIME_SLACK_FRACTION",
    "TIME_SLACK_S",
    "WINDOW_SLACK_S",
    "RunFinder",
    "run_time_problems",
    "time_slack",
]

WINDOW_SLACK_S = 2.0  # seconds allowed either side of a run's window
MAX_RUN_SECONDS = 30 * 24 * 3600.0  # the longest run a logbook may record (30 days)
TIME_SLACK_S = 300.0  # times of one machine that must agree: at least 5 minutes apart...
TIME_SLACK_FRACTION = 0.10  # ...or 10 % of the run's duration, to count as disagreeing
CLOCK_SKEW_S = 24 * 3600.0  # the participant's clock against the server's (zones, drift)


def _seconds(stamp: str | None) -> float | None:
    """An ISO-8601 time (or finite epoch seconds) as epoch seconds; naive times are taken as
    UTC."""
    if stamp is None or not stamp.strip():
        return None
    text = stamp.strip()
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        return number if math.isfinite(number) else None  # "nan" or "inf" is no time
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


def time_slack(run: Run) -> float:
    """How far two times of the participant's machine may disagree about ``run``: 5 minutes
    or 10 % of its recorded duration, whichever is larger."""
    duration = run.duration_s if run.duration_s and run.duration_s > 0 else 0.0
    return max(TIME_SLACK_S, TIME_SLACK_FRACTION * min(duration, MAX_RUN_SECONDS))


def _iso(moment: float) -> str:
    """``moment`` (epoch seconds) as people read it; a time no calendar holds as a number."""
    try:
        return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return f"{moment:g} s after 1970"


def run_time_problems(record: LogbookRecord, *, submitted_at: str | None = None) -> dict[str, str]:
    """Per run id, how its recorded times cannot be true: a duration above
    :data:`MAX_RUN_SECONDS`, or a run that ended before it started (a negative duration); its
    Trackio runs logging before its window began; a start after the logbook's last update; a
    run dated after ``submitted_at`` (the logbook's submission, the server's time: the metrics
    that count lie in the run's window). See the module docstring for the slack each
    comparison allows. Near-linear in metrics and runs (no metric is compared with every run)."""
    found: dict[str, str] = {}
    for run in record.runs:
        duration = run.duration_s
        if duration is None:
            continue
        if duration > MAX_RUN_SECONDS:
            found[run.id] = f"a duration of {duration:g} s, above {MAX_RUN_SECONDS:g} s"
        elif duration < 0:
            found[run.id] = f"a negative duration ({duration:g} s)"
    if record.format != "trackio":
        return found  # a bundle records no times
    windows = _windows(record)
    if not windows:
        return found
    early = _earlier_logging(record, windows)
    updated = _seconds(record.updated_at)
    submitted = _seconds(submitted_at)
    for window in windows:
        run, slack = window.run, time_slack(window.run)
        if run.id in found:
            continue
        first = early(window.start - WINDOW_SLACK_S, window.end + WINDOW_SLACK_S)
        if run.duration_s is not None and first is not None and first[0] < window.start - slack:
            found[run.id] = (
                f"its Trackio run {first[1]!r} logged a metric at {_iso(first[0])}, before the "
                f"run's window {_iso(window.start)} .. {_iso(window.end)} by more than {slack:g} s"
            )  # a run without a duration has no recorded start to contradict
        elif updated is not None and window.start > updated + slack:
            found[run.id] = (
                f"it started at {_iso(window.start)}, after the logbook was last updated "
                f"({_iso(updated)}, logbook.json updated_at)"
            )
        elif submitted is not None and window.end > submitted + CLOCK_SKEW_S:
            found[run.id] = (
                f"it is dated {_iso(window.end)}, after the logbook was submitted "
                f"({_iso(submitted)})"
            )
    return found


def _earlier_logging(
    record: LogbookRecord, windows: list[_Window]
) -> Callable[[float, float], tuple[float, str] | None]:
    """A query: for the metrics logged within ``[low, high]`` (a run's window), the earliest
    time their Trackio runs logged outside every run's window, and that Trackio run's name
    (None: none did). A sparse table of minima over the metrics sorted by time answers each
    window in constant time."""
    spans: list[tuple[float, float]] = []  # the union of the windows (with their slack)
    for w in sorted(windows, key=lambda w: w.start):
        low, high = w.start - WINDOW_SLACK_S, w.end + WINDOW_SLACK_S
        if spans and low <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], high))
        else:
            spans.append((low, high))
    starts = [low for low, _ in spans]

    def held(when: float) -> bool:
        at = bisect.bisect_right(starts, when) - 1
        return at >= 0 and when <= spans[at][1]

    stamped = [(when, m.run) for m in record.metrics
               if m.source != "bundle" and (when := _seconds(m.timestamp)) is not None]  # fmt: skip
    stray: dict[str, float] = {}  # Trackio run name -> its earliest metric outside every window
    inside: list[tuple[float, str]] = []
    for when, name in stamped:
        if held(when):
            inside.append((when, name))
        elif when < stray.get(name, math.inf):
            stray[name] = when
    inside = sorted((when, name) for when, name in inside if name in stray)
    times = [when for when, _ in inside]
    table = [[(stray[name], name) for _, name in inside]]
    while (1 << len(table)) <= len(inside):
        half, row = 1 << (len(table) - 1), table[-1]
        table.append([min(row[i], row[i + half]) for i in range(len(row) - half)])

    def query(low: float, high: float) -> tuple[float, str] | None:
        first, last = bisect.bisect_left(times, low), bisect.bisect_right(times, high)
        if first >= last:
            return None
        level = (last - first).bit_length() - 1
        return min(table[level][first], table[level][last - (1 << level)])

    return query


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
