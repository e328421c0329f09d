"""Logbooks: readers (Trackio folder or Space export, openrepro bundle), safe unpacking,
submission, rendering and publishing."""

from openrepro.logbooks.archive import ArchiveLimits, safe_extract, scan_archive
from openrepro.logbooks.bundle import BundleManifest, read_bundle
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
from openrepro.logbooks.render import render_logbook, render_markdown
from openrepro.logbooks.submit import SubmitReport, read_logbook, submit_logbook
from openrepro.logbooks.trackio_reader import read_trackio_export, read_trackio_logbook

__all__ = [
    "ArchiveLimits",
    "Artifact",
    "BundleManifest",
    "Cell",
    "FileRef",
    "LogbookRecord",
    "Metric",
    "Page",
    "Run",
    "SubmitReport",
    "Testimony",
    "read_bundle",
    "read_logbook",
    "read_trackio_export",
    "read_trackio_logbook",
    "render_logbook",
    "render_markdown",
    "safe_extract",
    "scan_archive",
    "submit_logbook",
]
