"""`openrepro freeze`: the whole record as a deterministic Parquet + JSON Lines dataset.

The store is the outcome store of tests/outcomes (every outcome row) plus a claim edit, JSON
values with unordered keys, evidence pointers, flags and private participant data that must never
leave the store.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from openrepro.challenge import ChallengeContext, init_challenge, open_challenge
from openrepro.cli import app
from openrepro.errors import FreezeError, FrozenError
from openrepro.freeze import CHECKSUMS, TABLES, TableSpec, export_dataset, freeze_dataset
from openrepro.identity import ensure_writable, register, reopen
from openrepro.outcomes import compute_stats, render_tables
from openrepro.outreach import record_response
from openrepro.store import Claim, ClaimEdit, Paper, Participant, Verdict


def _load(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


outcome_store = _load("outcome_store", Path(__file__).parents[1] / "outcomes" / "outcome_store.py")
TABLE_NAMES = [spec.name for spec in TABLES]
SECRET_EMAIL = "alice-private@example.org"


def _fill(ctx: ChallengeContext) -> None:
    outcome_store.build_outcome_store(ctx)
    registration = register(ctx, "gina", team="t9", email=SECRET_EMAIL, name="Gina Secret")
    with ctx.store.session() as session:
        claim = session.scalar(
            select(Claim).join(Paper).where(Paper.venue_id == "P1-full", Claim.key == "C1")
        )
        assert claim is not None
        claim.quotes = [{"text": "we reach 91.2%", "start": 10, "end": 24}]
        claim.reported = [{"value": 91.2, "metric": "accuracy", "unit": "%"}]
        claim.scale = {"steps": 1000, "model": "7B"}
        session.add(
            ClaimEdit(claim_id=claim.id, field="text", old_value={"z": 1, "a": [2, 1]},
                      new_value="edited text", editor="organizer", reason="typo")
        )  # fmt: skip
        verdict = session.scalar(select(Verdict).where(Verdict.claim_id == claim.id))
        assert verdict is not None
        verdict.evidence = [{"metric": "acc", "step": 10, "value": 91.0, "file": "log.txt"}]
        verdict.flags = ["injection-attempt"]
    assert registration.token  # its hash is in the store, and must not be in the dataset


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _jsonl(folder: Path, table: str) -> list[dict[str, object]]:
    lines = (folder / "json" / f"{table}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_freeze_is_complete_deterministic_and_read_only(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    _fill(challenge)
    first = freeze_dataset(challenge, tmp_path / "a")
    second = freeze_dataset(challenge, tmp_path / "b")  # a frozen challenge: the same bytes
    a, b = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert a == b
    export_dataset(challenge, tmp_path / "a")  # an earlier freeze is replaced, byte for byte
    assert _tree(tmp_path / "a") == a
    assert first.frozen_at == second.frozen_at

    expected_files = {"README.md", CHECKSUMS} | {
        f"{kind}/{t}.{ext}" for t in TABLE_NAMES for kind, ext in (("data", "parquet"),
                                                                   ("json", "jsonl"))
    }  # fmt: skip
    assert set(a) == expected_files
    assert [f.path for f in first.files] == sorted(expected_files)
    assert first.bytes == sum(len(data) for data in a.values())

    # SHA256SUMS: sha256sum format, sorted, every file but itself, each hash right
    lines = a[CHECKSUMS].decode().splitlines()
    paths = [line.split("  ", 1)[1] for line in lines]
    assert paths == sorted(expected_files - {CHECKSUMS})
    for line in lines:
        digest, path = line.split("  ", 1)
        assert hashlib.sha256(a[path]).hexdigest() == digest

    # rows: every table, Parquet and JSON Lines agree
    assert first.rows == {
        "papers": 10, "claims": 26, "logbooks": 13, "verdicts": 26, "verdict_edits": 1,
        "claim_edits": 1, "claim_consensus": 16, "paper_outcomes": 10, "participants": 7,
        "author_responses": 0, "review_tasks": 0, "review_answers": 0,
    }  # fmt: skip
    for name in TABLE_NAMES:
        table = pq.read_table(tmp_path / "a" / "data" / f"{name}.parquet")
        assert table.num_rows == first.rows[name] == len(_jsonl(tmp_path / "a", name))

    outcomes = {r["paper"]: r for r in _jsonl(tmp_path / "a", "paper_outcomes")}
    for key, count in outcome_store.EXPECTED.items():
        column = {"falsified": "falsified_any", "contested": "contested_any",
                  "toy_only": "toy_only_paper"}.get(key, key)  # fmt: skip
        assert sum(bool(r[column]) for r in outcomes.values()) == count, key
    assert outcomes["P3-mixed"]["status"] == "mixed"
    assert outcomes["P8-unattempted"]["status"] == "unattempted"

    verdicts = _jsonl(tmp_path / "a", "verdicts")
    override = next(v for v in verdicts if v["paper"] == "P10-override")
    assert (override["verdict"], override["effective"], override["edited"]) == (
        "falsified", "verified", True,
    )  # fmt: skip
    key = ("P2-partial", "C1", "falsified")
    old = [v for v in verdicts if (v["paper"], v["claim"], v["verdict"]) == key]
    assert len(old) == 1 and old[0]["current"] is False and old[0]["effective"] is None
    removed = [v for v in verdicts if v["claim"] == "C9"]  # verdicts on removed claims are kept
    assert len(removed) == 9 and not any(v["current"] for v in removed)
    pointers = next(v for v in verdicts if v["flags"])
    assert pointers["evidence"][0]["metric"] == "acc" and pointers["provenance"] == "self-recorded"
    edit = _jsonl(tmp_path / "a", "claim_edits")[0]
    assert edit["old_value"] == {"a": [2, 1], "z": 1}
    assert b'"old_value":{"a":[2,1],"z":1}' in a["json/claim_edits.jsonl"]  # canonical JSON
    rows = _jsonl(tmp_path / "a", "claim_consensus")
    consensus = {(r["paper"], r["claim"]): r["consensus"] for r in rows}
    assert consensus[("P5-contested", "C1")] == "contested"
    assert consensus[("P9-sameteam", "C1")] == "inconclusive"

    # participants: handle and team only
    assert {"participant": "gina", "team": "t9"} in _jsonl(tmp_path / "a", "participants")
    blob = b"".join(a.values())
    with challenge.store.session() as session:
        token_hash = session.scalar(select(Participant.token_hash).where(
            Participant.handle == "gina"))  # fmt: skip
    assert token_hash and token_hash.encode() not in blob
    assert SECRET_EMAIL.encode() not in blob and b"Gina Secret" not in blob

    # the card: configs for `datasets`, schemas, counts, outcomes, challenge and licence
    card = a["README.md"].decode()
    front = card.split("---\n")[1]
    for name in TABLE_NAMES:
        declared = f"- config_name: {name}\n" in front
        assert declared == (first.rows[name] > 0)  # `datasets` cannot load an empty split
        assert (f"    path: data/{name}.parquet\n" in front) == declared
        assert f"### `{name}` ({first.rows[name]} rows)" in card
    assert "| `effective` | `string` |" in card
    assert "| ≥ 1 claim verified | 4 | 44.4 % |" in card
    # the outcome tables are the stats' own Markdown (one rendering, no drifted copy)
    assert render_tables(compute_stats(challenge), credit_limit=0).strip() in card
    assert "Venue: `Test/2026`" in card and 'license: "cc-by-4.0"' in front
    assert f"{first.frozen_at:%Y-%m-%d %H:%M:%S} UTC" in card

    # read-only until reopened
    with pytest.raises(FrozenError):
        ensure_writable(challenge)
    reopen(challenge)
    ensure_writable(challenge)


def test_the_dataset_loads_with_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = init_challenge(tmp_path / "ch", "ds", venue="V/2026",
                         database_url=f"sqlite:///{tmp_path / 'ds.db'}")  # fmt: skip
    try:
        _fill(ctx)
        report = freeze_dataset(ctx, tmp_path / "out")
    finally:
        ctx.close()
    for name, value in (("HF_DATASETS_OFFLINE", "1"), ("HF_HUB_OFFLINE", "1"),
                        ("HF_HOME", str(tmp_path / "hf"))):  # fmt: skip
        monkeypatch.setenv(name, value)
    import datasets

    cache = str(tmp_path / "cache")
    for name in ("verdicts", "paper_outcomes", "claim_edits"):
        loaded = datasets.load_dataset(str(tmp_path / "out"), name=name, split="train",
                                       cache_dir=cache)  # fmt: skip
        assert loaded.num_rows == report.rows[name]
        assert loaded.column_names == [c.name for c in _spec(name).columns]
    papers = datasets.load_dataset(
        "parquet", data_files=str(tmp_path / "out" / "data" / "papers.parquet"), cache_dir=cache
    )
    assert papers["train"].num_rows == report.rows["papers"]
    row = papers["train"][0]
    assert row["paper"] == "P1-full" and row["authors"] == []
    with pytest.raises(ValueError, match="author_responses"):  # empty: files, but no config
        datasets.load_dataset(str(tmp_path / "out"), name="author_responses", cache_dir=cache)
    verdicts = datasets.load_dataset(str(tmp_path / "out"), name="verdicts", split="train",
                                     cache_dir=cache)  # fmt: skip
    assert verdicts.features["created_at"].dtype.startswith("timestamp[us")


def _spec(name: str) -> TableSpec:
    return next(s for s in TABLES if s.name == name)


def test_author_responses_have_a_declared_schema(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    """Author responses recorded through outreach are frozen with the table's declared columns
    and types (not inferred from whatever the rows hold)."""
    outcome_store.build_outcome_store(challenge)
    record_response(challenge, "P4-allfalse/C1", "disputes", note="we ran it again")
    record_response(challenge, "P3-mixed/C2", "fixed", version="arXiv v2")
    record_response(challenge, "P4-allfalse/C1", "agrees")  # the newest answer per claim counts
    report = export_dataset(challenge, tmp_path / "out")
    assert report.rows["author_responses"] == 2
    rows = _jsonl(tmp_path / "out", "author_responses")
    assert [list(r) for r in rows] == [[c.name for c in _spec("author_responses").columns]] * 2
    assert [(r["claim"], r["response"], r["version"]) for r in rows] == [
        ("P3-mixed/C2", "fixed", "arXiv v2"),
        ("P4-allfalse/C1", "agrees", None),
    ]
    schema = pq.read_schema(tmp_path / "out" / "data" / "author_responses.parquet")
    assert schema.equals(_spec("author_responses").schema)
    card = (tmp_path / "out" / "README.md").read_text()
    assert "- config_name: author_responses\n" in card
    assert "| agrees | 1 |" in card and "| fixed | 1 |" in card


def test_a_reader_that_drifts_from_its_table_is_refused(
    challenge: ChallengeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Columns are matched by name: a reader that gains or loses a column fails loudly, naming
    it, instead of shifting every value after it into the wrong column."""
    import openrepro.freeze.export as export

    outcome_store.build_outcome_store(challenge)
    real = export._participants
    monkeypatch.setattr(
        export, "_participants", lambda s, c: [{**r, "email": "x"} for r in real(s, c)]
    )
    with pytest.raises(FreezeError, match=r"participants: .*unknown: email"):
        export_dataset(challenge, tmp_path / "out")
    monkeypatch.setattr(
        export,
        "_participants",
        lambda s, c: [{"participant": r["participant"]} for r in real(s, c)],
    )
    with pytest.raises(FreezeError, match=r"participants: .*missing: team"):
        export_dataset(challenge, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_foreign_folder_is_refused_and_the_challenge_stays_open(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FreezeError, match="not an earlier freeze"):
        freeze_dataset(challenge, out)
    assert (out / "notes.txt").read_text() == "keep me"
    ensure_writable(challenge)  # the failed freeze reopened it
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mine.")]  # no leftovers


def test_cli_freeze_then_reopen(tmp_path: Path) -> None:
    ctx = init_challenge(tmp_path / "ch", "cli", database_url=f"sqlite:///{tmp_path / 'c.db'}")
    try:
        outcome_store.build_outcome_store(ctx)
    finally:
        ctx.close()
    runner = CliRunner()
    base = ["--dir", str(tmp_path / "ch"), "freeze"]
    started = time.perf_counter()
    result = runner.invoke(app, [*base, str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rows"]["verdicts"] == 26 and report["pushed"] is None
    assert report["seconds"] <= time.perf_counter() - started
    assert (tmp_path / "out" / CHECKSUMS).is_file()

    opened = open_challenge(tmp_path / "ch")
    try:
        with pytest.raises(FrozenError, match="freeze --reopen"):
            ensure_writable(opened)

        again = runner.invoke(app, [*base, "--reopen"])
        assert again.exit_code == 0 and "open for writing again" in again.output
        ensure_writable(opened)
    finally:
        opened.close()
    bad = runner.invoke(app, [*base, str(tmp_path / "x"), "--reopen"])
    assert bad.exit_code != 0
    missing = runner.invoke(app, base)
    assert missing.exit_code != 0
    assert os.listdir(tmp_path / "out")
