"""`pull`, `submit` and `logbook` as subprocesses: what a participant and an organizer see."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "logbooks"))

from test_bundle import make_bundle
from test_cli import run


def test_pull_submit_list_show_render(tmp_path: Path) -> None:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    folder = tmp_path / "c"
    listing = tmp_path / "papers.json"
    listing.write_text(json.dumps([{"id": "p1", "title": "Sparse", "abstract": "An abstract."}]))
    assert run("papers", "import", str(listing), cwd=folder).returncode == 0

    pulled = run("pull", "p1", "--dir", str(tmp_path / "ws"), "-f", "json", cwd=folder, fresh=True)
    assert pulled.returncode == 0, pulled.stderr
    files = json.loads(pulled.stdout)["files"]
    assert {"PAPER.md", "CLAIMS.md", "claims.json", "INSTRUCTIONS.md", "AGENTS.md"} <= set(files)
    again = run("pull", "p1", "--dir", str(tmp_path / "ws"), cwd=folder)
    assert again.returncode == 2 and "already holds" in again.stderr

    bundle = make_bundle(tmp_path / "b")
    submitted = run("submit", str(bundle), cwd=folder)
    assert submitted.returncode == 0, submitted.stderr
    assert "evidence" in submitted.stdout and "testimony" in submitted.stdout
    assert "run seed0: `python train.py --seed 0` exit 0" in submitted.stdout

    (listed,) = json.loads(run("logbook", "ls", "-f", "json", cwd=folder).stdout)
    assert (listed["paper_id"], listed["participant"], listed["runs"]) == ("p1", "ada", 1)
    shown = json.loads(run("logbook", "show", str(listed["id"]), "-f", "json", cwd=folder).stdout)
    assert shown["metrics"][0]["value"] == 0.87

    out = tmp_path / "site"
    rendered = run("logbook", "render", str(listed["id"]), "--out", str(out), cwd=folder)
    assert rendered.returncode == 0, rendered.stderr
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "python train.py --seed 0" in html
    assert "Content-Security-Policy" in html
    assert len(list((out / "files").glob("*.png"))) == 1
    write_up = html.split("<h2>Write-up</h2>", 1)[1]
    assert "Claim p1/C1: verified" in write_up and "not evidence" in write_up

    bad = run("submit", str(tmp_path / "nothing"), cwd=folder)
    assert bad.returncode == 2 and "no such file or folder" in bad.stderr


def test_publish_a_bundle_to_a_static_space(tmp_path: Path) -> None:
    """Against a local server answering like the Hub's API (the Hub is unreachable here)."""
    from fake_hub import serve_hub

    bundle = make_bundle(tmp_path / "b")
    with serve_hub() as hub:
        env = {"HF_TOKEN": "hf_test", "HF_HUB_DISABLE_XET": "1", "HF_HUB_OFFLINE": "0",
               "HF_HOME": str(tmp_path / "hf")}  # fmt: skip
        result = run("logbook", "publish", str(bundle), "--space", "ada/repro-p1", "--endpoint",
                     hub.url, "-f", "json", cwd=tmp_path, env=env)  # fmt: skip
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["space_id"] == "ada/repro-p1"
        assert "index.html" in report["files"]
        denied = run("logbook", "publish", str(bundle), "--space", "ada/repro-p1", "--endpoint",
                     hub.url, cwd=tmp_path, env={**env, "HF_TOKEN": "hf_wrong"})  # fmt: skip
        assert denied.returncode != 0
        assert "401" in denied.stderr and "hf_wrong" not in denied.stderr
