"""Logbooks: readers (Trackio folder or Space, openrepro bundle), safe unpacking, rendering."""

from openrepro.logbooks.records import (
    Artifact,
    Cell,
    FileRef,
    LogbookRecord,
    Metric,
    Page,
    Run,
    Testimony,
)

__all__ = [
    "Artifact",
    "Cell",
    "FileRef",
    "LogbookRecord",
    "Metric",
    "Page",
    "Run",
    "Testimony",
]
