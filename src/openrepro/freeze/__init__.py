"""Freeze: the whole record of a challenge as a deterministic dataset (Parquet + JSON Lines, a
dataset card and ``SHA256SUMS``), optionally pushed to the Hugging Face Hub; the challenge is
read-only afterwards until an organizer reopens it."""

from __future__ import annotations

from openrepro.freeze.card import CardInfo, render_card
from openrepro.freeze.export import (
    CHECKSUMS,
    PARQUET_OPTIONS,
    FreezeReport,
    FrozenFile,
    export_dataset,
    freeze_dataset,
)
from openrepro.freeze.push import PushReport, push_dataset
from openrepro.freeze.tables import TABLES, Column, TableSpec

__all__ = [
    "CHECKSUMS",
    "PARQUET_OPTIONS",
    "TABLES",
    "CardInfo",
    "Column",
    "FreezeReport",
    "FrozenFile",
    "PushReport",
    "TableSpec",
    "export_dataset",
    "freeze_dataset",
    "push_dataset",
    "render_card",
]
