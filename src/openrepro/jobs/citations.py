"""Which compute jobs a logbook cites: the one grammar the board and attestation share.

A job id is ``local:N`` or ``hf:N`` (openrepro's store id of the job) or ``hf:<24 hex>`` (the
Hub's own id of an HF Job): :data:`JOB_ID_RE`. A run cites a job by

* its cell's JSON header: ``"job_id"`` (a string), ``"job_ids"`` (a list) or ``"job"`` (a
  string);
* or a mention of a well-formed id in its title, command, or cell body (a run's output printing
  ``openrepro: job local:12 ...`` is how a ``trackio logbook run -- openrepro jobs run ...``
  cell cites its job).

A logbook cites the jobs its runs cite, plus those named in the headers of its other cells and
in its trace entries (same keys). Only well-formed ids count, in order of appearance, once each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from openrepro.logbooks.records import LogbookRecord, Run

__all__ = ["JOB_ID_RE", "JOB_ID_TEXT_RE", "jobs_cited_by", "jobs_cited_by_run"]

_ID = r"(?:local|hf):(?:[0-9a-f]{24}|[0-9]{1,18})"
#: A whole job id (``local:12``, ``hf:13``, ``hf:<24 hex>``); groups: backend, id.
JOB_ID_RE = re.compile(r"^(local|hf):([0-9a-f]{24}|[0-9]{1,18})$")
#: A job id mentioned in text, not part of a longer word, path or id.
JOB_ID_TEXT_RE = re.compile(rf"(?<![\w:/.-])({_ID})(?![\w:/-])")

_HEADER_KEYS = ("job_id", "job")


def _from_header(meta: Mapping[str, Any]) -> list[str]:
    values: list[Any] = [meta.get(key) for key in _HEADER_KEYS]
    many = meta.get("job_ids")
    if isinstance(many, list):
        values.extend(many)
    found: list[str] = []
    for value in values:
        text = value.strip() if isinstance(value, str) else ""
        if JOB_ID_RE.match(text):
            found.append(text)
    return found


def jobs_cited_by_run(record: LogbookRecord, run: Run) -> list[str]:
    """Job ids one run cites (header first, then mentions in its text)."""
    cell = next((c for page in record.pages for c in page.cells if c.id == run.id), None)
    found = _from_header(cell.meta) if cell is not None else []
    text = "\n".join([run.title, " ".join(run.command), cell.body if cell else run.output])
    found += JOB_ID_TEXT_RE.findall(text)
    return list(dict.fromkeys(found))


def jobs_cited_by(record: LogbookRecord) -> list[str]:
    """Job ids the whole logbook cites (see the module docstring)."""
    found: list[str] = []
    for run in record.runs:
        found += jobs_cited_by_run(record, run)
    for page in record.pages:
        for cell in page.cells:
            found += _from_header(cell.meta)
    for trace in record.traces:
        found += _from_header(trace)
    return list(dict.fromkeys(found))
