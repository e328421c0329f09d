"""`submit` warns when a file a recorded run produced changed after that run, naming the run
(a logbook made by the real trackio CLI; the file is appended to after the run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import test_trackio_reader

from openrepro.challenge import ChallengeContext
from openrepro.logbooks.records import changed_after_run
from openrepro.logbooks.submit import submit_logbook
from openrepro.logbooks.trackio_reader import read_trackio_logbook
from openrepro.papers import PaperRecord, import_papers

built = test_trackio_reader.built  # its module-scoped fixture, made again for this module


def test_a_file_changed_after_its_run_is_named_with_the_run(
    challenge: ChallengeContext, built: tuple[Path, Path], tmp_path: Path
) -> None:
    project, data = built
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="p1", title="P", abstract="a")], source="t")  # fmt: skip
    honest = read_trackio_logbook(copy, trackio_dir=data)
    assert changed_after_run(honest) == []
    with (copy / "results.csv").open("a", encoding="utf-8") as out:
        out.write("0.9\n")  # a second run appending to the same file, unrecorded
    record = read_trackio_logbook(copy, trackio_dir=data)
    [(artifact, recorded, run)] = changed_after_run(record)
    assert artifact.file.path == "results.csv" and recorded == artifact.file.size - 4
    assert run is not None and run.id == record.runs[0].id
    report = submit_logbook(challenge, copy, handle="ada")
    [warning] = [w for w in report.warnings if "changed after" in w]
    assert f"results.csv changed after run {run.id}" in warning
    assert "train.py" in warning and "artifact_changed_after_run" in warning
