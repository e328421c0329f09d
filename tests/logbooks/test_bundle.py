"""openrepro bundles: schema, reading, and the errors a participant meets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openrepro.errors import LogbookError
from openrepro.logbooks.bundle import json_schema, read_bundle

SCHEMA_FILE = Path(__file__).parents[2] / "src" / "openrepro" / "logbooks" / "bundle.schema.json"


def make_bundle(root: Path, **overrides: Any) -> Path:
    """A small valid bundle for paper ``p1``: two seeds, a write-up, a figure."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "train.py").write_text("print('accuracy 0.87')\n", encoding="utf-8")
    (root / "logs").mkdir(exist_ok=True)
    (root / "logs" / "seed0.txt").write_text("epoch 1\naccuracy 0.87\n", encoding="utf-8")
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / "seed0.json").write_text('{"accuracy": 0.87}\n', encoding="utf-8")
    (root / "README.md").write_text("# Claim p1/C1: verified\nWe matched the paper.\n")
    (root / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    manifest: dict[str, Any] = {
        "openrepro_bundle": 1,
        "paper": "p1",
        "participant": "ada",
        "title": "Reproducing p1",
        "claims": ["p1/C1"],
        "writeup": "README.md",
        "runs": [
            {
                "id": "seed0",
                "command": ["python", "train.py", "--seed", "0"],
                "exit_code": 0,
                "duration_s": 12.5,
                "log": "logs/seed0.txt",
                "scripts": ["train.py"],
                "produced": ["results/seed0.json"],
            },
        ],
        "metrics": [
            {"run": "seed0", "key": "claims/p1/C1/accuracy", "step": 0, "value": 0.87},
        ],
        "artifacts": [{"path": "fig.png", "kind": "figure"}],
    }
    manifest.update(overrides)
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_shipped_json_schema_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == json_schema()


def test_a_bundle_reads_into_evidence_and_testimony(tmp_path: Path) -> None:
    record = read_bundle(make_bundle(tmp_path / "b"))
    assert (record.format, record.paper_id, record.participant) == ("bundle", "p1", "ada")
    (run,) = record.runs
    assert (run.exit_code, run.duration_s, run.output) == (0, 12.5, "epoch 1\naccuracy 0.87\n")
    assert run.scripts == {"train.py": "print('accuracy 0.87')\n"}
    assert [f.path for f in run.produced] == ["results/seed0.json"]
    assert [(m.key, m.value) for m in record.metrics] == [("claims/p1/C1/accuracy", 0.87)]
    assert record.testimony[0].text.startswith("# Claim p1/C1: verified")
    assert {f.path for f in record.files} == {
        "logs/seed0.txt", "train.py", "results/seed0.json", "fig.png", "README.md"
    }  # fmt: skip
    assert record.revision() == read_bundle(tmp_path / "b").revision()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"openrepro_bundle": 2}, "openrepro_bundle"),
        ({"paper": ""}, "paper"),
        ({"surprise": 1}, "surprise"),
        ({"artifacts": [{"path": "../outside.png"}]}, "must be relative"),
        ({"artifacts": [{"path": "/etc/passwd"}]}, "must be relative"),
        ({"artifacts": [{"path": "missing.png"}]}, "missing.png"),
        ({"metrics": [{"run": "nope", "key": "k", "value": 1}]}, "unknown run 'nope'"),
        ({"metrics": [{"run": "seed0", "key": "k", "value": "NaN"}]}, "finite"),
    ],
)
def test_bad_manifests_name_the_problem(tmp_path: Path, overrides: dict[str, Any],
                                        message: str) -> None:  # fmt: skip
    with pytest.raises(LogbookError, match=message):
        read_bundle(make_bundle(tmp_path / "b", **overrides))


def test_bad_files_name_the_file(tmp_path: Path) -> None:
    root = make_bundle(tmp_path / "b")
    (root / "logs" / "seed0.txt").write_bytes(b"\xff\xfe bad")
    with pytest.raises(LogbookError, match=r"logs/seed0.txt is not valid UTF-8"):
        read_bundle(root)
    (root / "manifest.json").write_text("{", encoding="utf-8")
    with pytest.raises(LogbookError, match=r"manifest\.json: invalid JSON"):
        read_bundle(root)
    link = make_bundle(tmp_path / "c")
    (link / "fig.png").unlink()
    (link / "fig.png").symlink_to("/etc/hostname")
    with pytest.raises(LogbookError, match=r"fig\.png"):
        read_bundle(link)
