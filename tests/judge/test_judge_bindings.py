"""Binding a claim's check beyond exact metric keys, on real Trackio logbooks: numbers only in a
CSV a recorded run produced, an evidence map (to a metric key, to rows of a produced file), what
a bad map gets, ambiguous name matches, and the bindings `submit` prints."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from test_cli import run  # the CLI as a process, as in tests/cli/
from test_judge_flow import _trackio  # the trackio CLI in a workspace, as the flow tests run it

from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Check, Comparator, Direction, Quantity, Relation
from openrepro.claims.service import set_check
from openrepro.errors import LogbookError
from openrepro.intake import submit
from openrepro.judge.service import judge_logbooks
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim, Logbook, Verdict
from openrepro.workspace import pull_paper

ABSTRACT = (
    "On CIFAR-10 our method reaches at least 90% accuracy with a small backbone. "
    "APT outperforms LoRA in accuracy on GLUE."
)
# argv: rows "label:v1,v2;label:v3" (one CSV row per value), the output path
WRITE_CSV = """
import csv, os, sys
path = sys.argv[2]
os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
with open(path, "w", newline="") as handle:
    out = csv.writer(handle)
    out.writerow(["method", "seed", "accuracy"])
    for part in sys.argv[1].split(";"):
        label, values = part.split(":")
        for seed, value in enumerate(values.split(",")):
            out.writerow([label, seed, value])
print("wrote", path)
"""
LOG_METRIC = """
import sys, trackio
for seed, value in enumerate(float(v) for v in sys.argv[1].split(",")):
    trackio.init(project="repro", name=f"seed{seed}")
    trackio.log({"eval/acc": value})
    trackio.finish()
"""


@pytest.fixture
def claims(challenge: ChallengeContext) -> None:
    """C1: a bound with one quantity ("at least 90 %"); C2: an ordering (apt, baseline)."""
    paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT)
    import_papers(challenge.store, challenge.challenge_id, [paper], source="t")
    with challenge.store.session() as s:
        one = add_claim(
            s,
            challenge.challenge_id,
            "p1",
            text="At least 90% accuracy.",
            kind="result",
            quotes=["reaches at least 90% accuracy"],
            editor="org",
            drafting="rules",
        )
        add_claim(s, challenge.challenge_id, "p1", text="APT beats LoRA.", kind="result",
                  quotes=["APT outperforms LoRA in accuracy"], editor="org",
                  drafting="rules")  # fmt: skip
        # the organizer's ordering, its baseline named by its role (the maps below say so)
        quantities = [Quantity(name="apt", description="APT's accuracy"),
                      Quantity(name="baseline", description="LoRA's accuracy")]  # fmt: skip
        ordering = Check(relation=Relation.ordering, subject="apt", baselines=["baseline"],
                         comparator=Comparator.gt, direction=Direction.higher,
                         quantities=quantities)  # fmt: skip
        two = set_check(s, challenge.challenge_id, "p1/C2", ordering, editor="org",
                        reason="the ordering the quote asserts")  # fmt: skip
    assert one.check is not None and [q.name for q in one.check.quantities] == ["subject"]
    assert two.check is not None and [q.name for q in two.check.quantities] == ["apt", "baseline"]


def _workspace(ctx: ChallengeContext, tmp: Path, name: str) -> tuple[Path, dict[str, str]]:
    ws = tmp / name
    pages = pull_paper(ctx, "p1", ws).pages
    (ws / "write_csv.py").write_text(WRITE_CSV)
    (ws / "log_metric.py").write_text(LOG_METRIC)
    return ws, pages


def _run(ws: Path, page: str, *argv: str) -> None:
    _trackio(ws, "logbook", "run", "--page", page, "--", sys.executable, *argv)


def _map(ws: Path, claims: dict[str, Any]) -> None:
    (ws / "evidence_map.json").write_text(json.dumps({"format": 1, "claims": claims}))


def _judged(ctx: ChallengeContext, book: int) -> dict[str, Any]:
    """Per claim key: verdict, rule, flags (from the judge's report) and the stored details."""
    report = judge_logbooks(ctx, None, logbook_ids=[book])
    with ctx.store.session() as s:
        details = dict(
            s.execute(
                select(Claim.key, Verdict.details)
                .join(Claim, Claim.id == Verdict.claim_id)
                .where(Verdict.logbook_id == book)
            ).all()
        )
    return {
        row.claim_id.rsplit("/", 1)[-1]: {"verdict": row.verdict, "rule": row.rule,
                                          "flags": row.flags,
                                          "details": details[row.claim_id.rsplit("/", 1)[-1]]}
        for row in report.verdicts
    }  # fmt: skip


def _binding(judged: dict[str, Any], quantity: str) -> dict[str, Any]:
    return next(b for b in judged["details"]["bindings"] if b["quantity"] == quantity)


def test_a_claim_whose_only_evidence_is_a_produced_csv_is_judged_by_its_relation(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "csv")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3,94.9", "outputs/results.csv")
    book = submit_logbook(challenge, ws, handle="csv").logbook_id
    got = _judged(challenge, book)["C1"]
    # no claims/ metric at all: the column named as the claim's metric binds, a row per seed
    assert got["verdict"] == "verified" and got["rule"] == "K:S1", got
    binding = _binding(got, "subject")
    assert binding["how"] == "match" and sorted(binding["values"]) == [94.9, 95.1, 95.3]
    assert {p["kind"] for p in binding["pointers"]} == {"table_cell"}
    assert {p["path"] for p in binding["pointers"]} == {"outputs/results.csv"}
    assert sorted(p["row"] for p in binding["pointers"]) == [1, 2, 3]
    assert all(p["column"] == "accuracy" and len(p["sha256"]) == 64 for p in binding["pointers"])
    # the evaluation's own pointers name the file, the row and the column
    assert "outputs/results.csv, row 1, column accuracy" in got["details"]["bound"][0]["pointers"]


def test_below_the_bound_in_a_csv_is_falsified(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "low")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:85.1,85.3,84.9", "outputs/results.csv")
    got = _judged(challenge, submit_logbook(challenge, ws, handle="low").logbook_id)["C1"]
    assert (got["verdict"], got["rule"]) == ("falsified", "K:S2")


def test_an_evidence_map_pointing_at_a_metric_key(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "metric")
    _run(ws, pages["p1/C1"], "log_metric.py", "95.1,95.3,94.9")
    _map(ws, {"p1/C1": {"subject": {"metric": "eval/acc"}}})
    report = submit(challenge, ws, "metric")
    got = _judged(challenge, report.logbook_id)["C1"]
    assert got["verdict"] == "verified", got
    binding = _binding(got, "subject")
    assert binding["how"] == "map" and "metric eval/acc" in binding["reason"]
    assert {p["key"] for p in binding["pointers"]} == {"eval/acc"}
    assert all(p["kind"] == "metric" and p["step"] is not None for p in binding["pointers"])


def test_an_evidence_map_binds_a_baseline_by_rows_of_a_produced_file(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "rows")
    _run(ws, pages["p1/C2"], "write_csv.py", "APT:88.0,88.3,87.9;LoRA:85.1,85.0,85.3",
         "outputs/glue.csv")  # fmt: skip
    book = submit_logbook(challenge, ws, handle="unmapped").logbook_id
    unmapped = _judged(challenge, book)["C2"]
    # name matching binds apt (the method column says APT) but nothing is named "baseline"
    assert _binding(unmapped, "apt")["how"] == "match"
    assert _binding(unmapped, "baseline")["how"] == "unbound"
    assert unmapped["verdict"] == "inconclusive"

    _map(ws, {"C2": {"baseline": {"file": "outputs/glue.csv", "where": {"method": "LoRA"},
                                  "column": "accuracy"}}})  # fmt: skip
    # the same participant's next revision (another participant's identical file would be a
    # copy: artifact_copied)
    mapped = _judged(challenge, submit_logbook(challenge, ws, handle="unmapped").logbook_id)["C2"]
    assert mapped["verdict"] == "verified", mapped
    baseline = _binding(mapped, "baseline")
    assert baseline["how"] == "map" and sorted(baseline["values"]) == [85.0, 85.1, 85.3]
    assert sorted(p["row"] for p in baseline["pointers"]) == [4, 5, 6]


def test_a_map_pointing_at_a_file_no_run_produced_binds_nothing(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "forged")
    _run(ws, pages["p1/C1"], "log_metric.py", "50.0")  # something ran, logging eval/acc
    (ws / "mine.csv").write_text("seed,score\n0,95.0\n1,95.2\n")  # written by hand
    _map(ws, {"p1/C1": {"subject": {"file": "mine.csv", "column": "score"}}})
    report = submit(challenge, ws, "forged")
    [c1] = [c for c in report.bindings if c.claim == "p1/C1"]
    assert c1.quantities[0].how == "unbound" and "mine.csv" in c1.quantities[0].reason
    got = _judged(challenge, report.logbook_id)["C1"]
    assert got["verdict"] == "inconclusive" and "map_entry_unbound" in got["flags"]
    assert (
        "mine.csv was not produced by a successful recorded run"
        in _binding(got, "subject")["reason"]
    )


def test_a_map_with_a_bad_row_or_column_binds_nothing_and_says_why(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "bad")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3,94.9", "outputs/results.csv")
    _map(ws, {"p1/C1": {"subject": {"file": "outputs/results.csv", "row": 9,
                                    "column": "accuracy"}},
              "p1/C2": {"apt": {"file": "outputs/results.csv", "column": "acc"},
                        "baseline": {"file": "outputs/results.csv", "row": 1,
                                     "column": "method"}}})  # fmt: skip
    report = submit(challenge, ws, "bad")
    reasons = {q.quantity: q.reason for c in report.bindings for q in c.quantities}
    assert "no row 9 (the table has 3)" in reasons["subject"]
    assert "no column 'acc'" in reasons["apt"]
    assert "holds 'ours', not a number" in reasons["baseline"]
    got = _judged(challenge, report.logbook_id)
    # a wrong map hides no evidence: name matching still binds the CSV's accuracy column, and
    # the verdict says the map was wrong
    assert got["C1"]["verdict"] == "verified" and "map_entry_unbound" in got["C1"]["flags"]
    subject = _binding(got["C1"], "subject")
    assert subject["how"] == "match" and "instead outputs/results.csv" in subject["reason"]
    assert got["C2"]["verdict"] == "inconclusive" and "map_entry_unbound" in got["C2"]["flags"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "invalid JSON"),
        ('{"claims": {}}', "no format version"),
        ('{"format": 7, "claims": {}}', "format 7 is not known"),
        ('{"format": 1, "claims": {"p1/C1": {"subject": {"file": "a.csv"}}}}', "needs a column"),
        (
            '{"format": 1, "claims": {"p1/C1": {"subject": {"metric": "a", "file": "b"}}}}',
            "exactly one of metric, file or table",
        ),
        (
            '{"format": 1, "claims": {"p1/C1": {"subject": {"table": "t", "column": "c", '
            '"row": 0}}}}',
            "greater than or equal to 1",
        ),
        ('{"format": 1, "claims": [], "extra": 1}', "extra"),
    ],
)
def test_a_malformed_map_refuses_the_submission_and_keeps_what_was_stored(
    challenge: ChallengeContext, claims: None, tmp_path: Path, text: str, problem: str
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "malformed")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1", "outputs/results.csv")
    first = submit_logbook(challenge, ws, handle="malformed")
    (ws / "evidence_map.json").write_text(text)
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:96.0", "outputs/results.csv")
    with pytest.raises(LogbookError) as caught:
        submit_logbook(challenge, ws, handle="malformed")
    assert "evidence_map.json" in str(caught.value) and problem in str(caught.value)
    with challenge.store.session() as s:
        books = s.scalars(select(Logbook)).all()
        assert [b.revision for b in books] == [first.revision]  # the stored one, intact


def test_an_ambiguous_column_match_binds_nothing(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    ws, pages = _workspace(challenge, tmp_path, "two")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3", "outputs/a.csv")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:80.0,81.0", "outputs/b.csv")
    report = submit(challenge, ws, "two")
    [subject] = [q for c in report.bindings if c.claim == "p1/C1" for q in c.quantities]
    assert subject.how == "unbound" and subject.reason.startswith("ambiguous: 2 matches")
    assert "outputs/a.csv" in subject.reason and "outputs/b.csv" in subject.reason
    assert _judged(challenge, report.logbook_id)["C1"]["verdict"] == "inconclusive"


def test_the_same_values_twice_are_not_ambiguous(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    """A CSV and a copy of it agree: the match counts once (the first file)."""
    ws, pages = _workspace(challenge, tmp_path, "copy")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3", "outputs/a.csv")
    _run(ws, pages["p1/C1"], "write_csv.py", "ours:95.1,95.3", "outputs/copy/a.csv")
    report = submit(challenge, ws, "copy")
    [subject] = [q for c in report.bindings if c.claim == "p1/C1" for q in c.quantities]
    assert subject.how == "match" and sorted(subject.values) == [95.1, 95.3]


def test_submit_prints_each_claims_bindings(
    challenge: ChallengeContext, claims: None, tmp_path: Path
) -> None:
    if not challenge.settings.database_url.startswith("sqlite"):
        pytest.skip("the CLI opens the challenge folder's own store")
    ws, pages = _workspace(challenge, tmp_path, "cli")
    _run(ws, pages["p1/C2"], "write_csv.py", "APT:88.0,88.3;LoRA:85.1,85.0", "outputs/glue.csv")
    _map(ws, {"C2": {"baseline": {"file": "outputs/glue.csv", "where": {"method": "LoRA"},
                                  "column": "accuracy"}},
              "C9": {"x": {"metric": "m"}}})  # fmt: skip
    folder = tmp_path / "ch"  # the challenge fixture's folder
    done = run("submit", str(ws), "--as", "cli", "-f", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by_claim = {c["claim"]: {q["quantity"]: q for q in c["quantities"]}
                for c in report["bindings"]}  # fmt: skip
    assert by_claim["p1/C2"]["apt"]["how"] == "match"
    assert by_claim["p1/C2"]["baseline"]["how"] == "map"
    assert (
        by_claim["p1/C2"]["baseline"]["pointers"][0] == "outputs/glue.csv, row 3, column accuracy"
    )
    assert by_claim["p1/C1"]["subject"]["how"] == "unbound"
    assert any("'C9' is not a claim of this paper" in w for w in report["warnings"])
    text = run("submit", str(ws), "--as", "cli2", cwd=folder)
    assert text.returncode == 0, text.stderr
    # the same files under another handle are a copy of cli's: nothing that counts
    assert "bindings" in text.stdout and "artifact_copied" in text.stdout
    assert "apt: match" not in text.stdout
    with challenge.store.session() as s:
        assert s.scalar(select(func.count()).select_from(Logbook)) == 2
