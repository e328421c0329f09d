"""`publish_bundle`: a bundle becomes a static Space (and a trace dataset) on a fake Hub.

The real huggingface_hub client talks to :mod:`fake_hub` over HTTP, so the requests, the NDJSON
commit and the error handling are the client's own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_hub import FakeHub, serve_hub
from huggingface_hub import constants
from test_bundle import make_bundle

from openrepro.errors import OpenReproError, PublishError
from openrepro.logbooks.publish import publish_bundle, space_readme
from openrepro.logbooks.records import LogbookRecord

SPACE = "ada/p1-logbook"


@pytest.fixture(autouse=True)
def _hub_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The client as on a participant's machine, whatever the test shell has set.

    huggingface_hub reads these settings once, at import, into ``constants``: setting the
    environment variables now would change nothing, so the constants themselves are patched.
    """
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # else no request is sent at all
    # The fake answers "regular" to every preupload, so nothing should go through Xet; with Xet
    # off, an unexpected "lfs" answer would hit the fake's (absent) LFS endpoint and fail loudly
    # instead of trying to reach a Xet server.
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    # No token of the developer's (HF_TOKEN, `hf auth login`) may stand in for a missing one.
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with serve_hub() as fake:
        yield fake


def test_a_bundle_is_published_as_a_static_space(tmp_path: Path, hub: FakeHub) -> None:
    bundle = make_bundle(tmp_path / "b")
    report = publish_bundle(bundle, SPACE, token="hf_test", endpoint=hub.url)

    space = hub.repo("space", SPACE)
    assert space.sdk == "static" and not space.private
    assert len(space.commits) == 1  # the whole site in one commit
    assert report.space_commit == space.commits[0].oid
    assert report.space_url == f"{hub.url}/spaces/{SPACE}"
    assert report.dataset_id is None and ("dataset", f"{SPACE}-traces") not in hub.repos

    png = hashlib.sha256((bundle / "fig.png").read_bytes()).hexdigest()
    assert set(space.files) == {"index.html", "README.md", f"files/{png}.png"} == set(report.files)
    assert space.files[f"files/{png}.png"] == (bundle / "fig.png").read_bytes()
    page = space.files["index.html"].decode("utf-8")
    assert "p1" in page and "python train.py --seed 0" in page and f"files/{png}.png" in page
    readme = space.files["README.md"].decode("utf-8")
    front = readme.split("---\n")[1]
    assert "sdk: static\n" in front and "app_file: index.html\n" in front
    assert '  - "trackio-logbook"\n  - "openrepro"\n' in front and "arxiv:" not in front
    assert hub.unknown == []


def test_the_trace_goes_to_a_traces_dataset(tmp_path: Path, hub: FakeHub) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"role": "agent", "text": "ran train.py"}\n', encoding="utf-8")
    report = publish_bundle(
        make_bundle(tmp_path / "b"), SPACE, token="hf_test", endpoint=hub.url, private=True,
        trace=trace,
    )  # fmt: skip

    dataset = hub.repo("dataset", f"{SPACE}-traces")
    assert dataset.private and hub.repo("space", SPACE).private
    assert dataset.files == {"trace.jsonl": trace.read_bytes()}
    assert (report.dataset_id, report.dataset_commit) == (f"{SPACE}-traces", dataset.sha)
    readme = hub.repo("space", SPACE).files["README.md"].decode("utf-8")
    assert f"{hub.url}/datasets/{SPACE}-traces" in readme


def test_publishing_again_reuses_the_space(tmp_path: Path, hub: FakeHub) -> None:
    bundle = make_bundle(tmp_path / "b")
    first = publish_bundle(bundle, SPACE, token="hf_test", endpoint=hub.url)
    again = publish_bundle(bundle, SPACE, token="hf_test", endpoint=hub.url)
    space = hub.repo("space", SPACE)
    assert again.space_commit == first.space_commit and len(space.commits) == 1  # nothing changed

    (bundle / "README.md").write_text("# Claim p1/C1: verified\nNow with seeds 1 and 2.\n")
    changed = publish_bundle(bundle, SPACE, token="hf_test", endpoint=hub.url)
    assert changed.space_commit == space.sha != first.space_commit
    assert set(space.commits[-1].files) == {"index.html"}  # unchanged files are left out
    assert b"seeds 1 and 2" in space.files["index.html"]


def test_without_a_token_the_error_names_the_space_and_401(tmp_path: Path, hub: FakeHub) -> None:
    bundle = make_bundle(tmp_path / "b")
    with pytest.raises(PublishError, match=rf"Space {SPACE}: HTTP 401") as caught:
        publish_bundle(bundle, SPACE, endpoint=hub.url)
    assert isinstance(caught.value, OpenReproError) and hub.repos == {}

    with pytest.raises(PublishError, match=r"HTTP 401") as wrong:
        publish_bundle(bundle, SPACE, token="hf_secret_wrong", endpoint=hub.url)
    assert "hf_secret_wrong" not in str(wrong.value)


def test_http_errors_and_bad_ids_are_publish_errors(tmp_path: Path, hub: FakeHub) -> None:
    bundle = make_bundle(tmp_path / "b")
    for bad in ("no-owner", "ada/", "ada/bad name", "a/b/c", "ada/x--y"):
        with pytest.raises(PublishError, match="invalid Space id"):
            publish_bundle(bundle, bad, token="hf_test", endpoint=hub.url)
    with pytest.raises(PublishError, match=r"trace .*not a file"):
        publish_bundle(bundle, SPACE, token="hf_test", endpoint=hub.url, trace=tmp_path / "no")
    assert hub.requests == []  # refused before anything was sent

    # A Hub whose commit endpoint is missing: the client's 404 names the Space and the status.
    with pytest.raises(PublishError, match=rf"Space {SPACE}: HTTP 404"):
        publish_bundle(bundle, SPACE, token="hf_test", endpoint=f"{hub.url}/nowhere")


def test_offline_mode_is_a_publish_error(
    tmp_path: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(PublishError, match=rf"Space {SPACE}: HF_HUB_OFFLINE is set"):
        publish_bundle(make_bundle(tmp_path / "b"), SPACE, token="hf_test", endpoint=hub.url)
    assert hub.requests == []


def test_an_arxiv_paper_is_tagged() -> None:
    record = LogbookRecord(format="bundle", format_version="1", paper_id="arXiv:2501.01234v2")
    front = space_readme(record).split("---\n")[1]
    assert '  - "arxiv:2501.01234"\n' in front
    assert (
        json.loads(front.split("title: ")[1].splitlines()[0])
        == "Reproduction of arXiv:2501.01234v2"
    )
