"""`pull`: the workspace an agent gets, with a Trackio logbook scaffolded by Trackio itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.errors import WorkspaceExistsError
from openrepro.logbooks.manifest import EvidenceMap
from openrepro.papers import PaperRecord, import_papers
from openrepro.workspace import pull_paper

ABSTRACT = "On GLUE, the method reaches 88.1 average accuracy with a 350M-parameter backbone."


def test_pull_writes_the_workspace_and_a_planned_logbook(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    record = PaperRecord(venue_id="p1", title="Sparse", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [record], source="t")
    with challenge.store.session() as s:
        add_claim(s, challenge.challenge_id, "p1", text="88.1 on GLUE.", kind="result",
                  quotes=["reaches 88.1 average accuracy"], editor="org",
                  drafting="rules")  # fmt: skip
    dest = tmp_path / "ws"
    report = pull_paper(challenge, "p1", dest)
    for name in ("PAPER.md", "CLAIMS.md", "claims.json", "INSTRUCTIONS.md", "AGENTS.md"):
        assert (dest / name).is_file(), name
    claims = json.loads((dest / "claims.json").read_text())
    assert [c["id"] for c in claims] == ["p1/C1"]
    assert claims[0]["reported"][0]["value"] == 88.1
    assert "claims/p1/C1/<metric>" in (dest / "CLAIMS.md").read_text()
    assert "$" not in (dest / "INSTRUCTIONS.md").read_text().split("```")[0]  # all filled in
    logbook = json.loads((dest / ".trackio" / "logbook" / "logbook.json").read_text())
    assert logbook["paper"]["id"] == "p1"
    assert logbook["paper"]["claims"] == ["p1/C1"]
    titles = [child["title"] for child in logbook["root"]["children"]]
    assert titles[0].startswith("p1/C1: ")
    index = (dest / ".trackio" / "logbook" / "pages" / "index.md").read_text()
    assert "| planned |" in index
    assert report.pages["p1/C1"] in index
    with pytest.raises(WorkspaceExistsError):
        pull_paper(challenge, "p1", dest)


def test_the_evidence_map_example_is_a_valid_map(
    challenge: ChallengeContext, tmp_path: Path
) -> None:
    """The example participants copy is read by the same model `submit` reads maps with."""
    record = PaperRecord(venue_id="p1", title="Sparse", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [record], source="t")
    with challenge.store.session() as s:
        add_claim(s, challenge.challenge_id, "p1", text="88.1 on GLUE.", kind="result",
                  quotes=["reaches 88.1 average accuracy"], editor="org",
                  drafting="rules")  # fmt: skip
    pull_paper(challenge, "p1", tmp_path / "ws")
    text = (tmp_path / "ws" / "INSTRUCTIONS.md").read_text()
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    parsed = EvidenceMap.model_validate_json(example)
    assert list(parsed.claims) == ["p1/C1"]
    assert parsed.pointers("p1/C1", "C1", "accuracy")[0].where == {"method": "ours"}
    assert "evidence_map.json" in (tmp_path / "ws" / "AGENTS.md").read_text()
    # the file layout that binds: one file per run, never rewritten after it
    layout = text.split("## Files your runs write", 1)[1].split("\n## ", 1)[0]
    assert "outputs/\n  p1/C1/\n    seed0.csv" in layout
    assert "artifact_changed_after_run" in layout and "replay" in layout
