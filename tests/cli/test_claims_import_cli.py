"""`openrepro claims import` as a subprocess: anchored and unanchored claims, idempotent."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import run

TEXT = (
    "Ridge regression can grok. Two-layer ReLU networks grok in 36 of 42 configurations, "
    "and the delay grows with the inverse regularization strength."
)


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_cli_import(tmp_path: Path) -> None:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    folder = tmp_path / "c"
    listing = _write(tmp_path / "papers.json", [{"id": "p1", "title": "T", "abstract": TEXT}])
    assert run("papers", "import", str(listing), cwd=folder).returncode == 0
    claims = _write(tmp_path / "claims.json", [
        {"paper": "p1", "claim": "Two-layer ReLU networks grok in 36 of 42 configurations."},
        {"paper": "p1", "claim": "Quantum annealers factor RSA-2048."},
    ])  # fmt: skip
    done = run("claims", "import", str(claims), "-f", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["added"] == ["p1/C1", "p1/C2"] and report["unanchored"] == ["p1/C2"]
    text = run("claims", "import", str(claims), cwd=folder)
    assert "0 added" in text.stdout and "2 already there" in text.stdout
