"""The dataset card (``README.md``) of a frozen challenge.

Its YAML front matter declares one ``datasets`` config per non-empty table
(``data/<table>.parquet``, split ``train``; ``datasets`` cannot load an empty split), so
``datasets.load_dataset(folder_or_repo, name=table)`` loads each table. Its body gives the
challenge, the outcome table of :func:`openrepro.outcomes.compute_stats`, the schema and row count
of every table, how to check the files, and the licence note. Everything in it comes from the
store, so it is as deterministic as the data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from openrepro.freeze.tables import TableSpec
from openrepro.outcomes import Stats, render_tables

__all__ = ["DEFAULT_CONFIG", "CardInfo", "render_card"]

DEFAULT_CONFIG = "paper_outcomes"
TAGS = ("openrepro", "reproducibility", "claims", "machine-learning")


@dataclass
class CardInfo:
    name: str
    venue: str
    title: str
    frozen_at: datetime | None
    license: str
    tables: list[tuple[TableSpec, int, int]]  # (table, rows, Parquet bytes)
    stats: Stats
    public_url: str = ""


def _yaml(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _front_matter(info: CardInfo) -> list[str]:
    title = info.title or info.name
    lines = [
        "---",
        f"pretty_name: {_yaml(f'{title}: frozen reproduction record')}",
        f"license: {_yaml(info.license)}",
        "language:",
        "- en",
        "tags:",
        *(f"- {tag}" for tag in TAGS),
        "configs:",
    ]
    for spec, rows, _ in info.tables:
        if not rows:  # `datasets` cannot load an empty split ("corresponds to no data")
            continue
        lines.append(f"- config_name: {spec.name}")
        if spec.name == DEFAULT_CONFIG:
            lines.append("  default: true")
        lines += [
            "  data_files:",
            "  - split: train",
            f"    path: data/{spec.name}.parquet",
        ]
    lines.append("---")
    return lines


def _outcomes(stats: Stats) -> list[str]:
    return ["## Outcomes", "", render_tables(stats, credit_limit=0).rstrip("\n")]


def _schemas(info: CardInfo) -> list[str]:
    lines = [
        "## Tables",
        "",
        "Each table is `data/<table>.parquet` (a `datasets` config of the same name, split "
        "`train`) and `json/<table>.jsonl` (the same rows as JSON Lines; JSON columns are inlined "
        "there as objects). Ids are the store's own and join the tables. An empty table has its "
        "files but no config (the `datasets` library cannot load an empty split).",
        "",
        "| Table | Rows | Parquet bytes | Sorted by |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| `{s.name}` | {rows} | {size} | {s.order} |" for s, rows, size in info.tables]
    for spec, rows, _ in info.tables:
        lines += [
            "",
            f"### `{spec.name}` ({rows} rows)",
            "",
            _cell(spec.description),
            "",
            "| Column | Type | Description |",
            "|---|---|---|",
        ]
        lines += [
            f"| `{c.name}` | `{c.type}` | {_cell(c.description)}"
            + (" JSON text." if c.json and "JSON" not in c.description else "")
            + " |"
            for c in spec.columns
        ]
    return lines


def render_card(info: CardInfo) -> str:
    """The whole ``README.md``."""
    title = info.title or info.name
    frozen = f"{info.frozen_at:%Y-%m-%d %H:%M:%S} UTC" if info.frozen_at else "(not frozen)"
    about = [
        f"# {title}: frozen reproduction record",
        "",
        f"The public record of the **{info.name}** reproduction challenge"
        + (f" of **{info.venue}**" if info.venue else "")
        + ", frozen by openrepro: every paper, claim, "
        "logbook, verdict (with its checked evidence pointers, flags and provenance level), "
        "organizer edit, claim consensus and paper outcome.",
        "",
        f"- Challenge: `{info.name}`",
        f"- Venue: `{info.venue or '-'}`",
        f"- Frozen at: {frozen}",
    ]
    if info.public_url:
        about.append(f"- Board: {info.public_url}")
    usage = [
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        'verdicts = load_dataset("<this repo or folder>", name="verdicts", split="train")',
        "```",
        "",
        "## Checking the files",
        "",
        "`SHA256SUMS` lists every file but itself (sha256sum format, sorted by path): run "
        "`sha256sum -c SHA256SUMS` in this folder. The same store always freezes to the same "
        "bytes.",
        "",
        "## Licence",
        "",
        f"The verdicts, rationales, consensus, outcomes and the rest of the record are released "
        f"under `{info.license}`. Paper metadata (titles, authors, abstracts) comes from the "
        "venue and keeps each paper's own licence (column `licence` of `papers`); claim quotes "
        "are short verbatim excerpts kept so that each claim can be checked against its paper. "
        "Paper full texts are not redistributed. Participants appear by handle and team only.",
    ]
    parts = [
        "\n".join(_front_matter(info)),
        "\n".join(about),
        "\n".join(_outcomes(info.stats)),
        "\n".join(_schemas(info)),
        "\n".join(usage),
    ]
    return "\n\n".join(parts) + "\n"
