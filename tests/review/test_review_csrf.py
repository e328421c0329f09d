"""CSRF on `review serve`: a cross-origin form post recorded answers as the reviewer. Now a post
needs the page's per-start form token and must come from the server's own origin."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from review_images import make_pairs

from openrepro.review import create_task, load_task, read_answers
from openrepro.review.server import create_app


def _client(tmp_path: Path) -> tuple[TestClient, Path]:
    a_dir, b_dir = make_pairs(tmp_path, 4)
    create_task(tmp_path / "task", a_dir, b_dir, question="Which is brighter?", seed=1)
    return TestClient(
        create_app(tmp_path / "task", "alice"), base_url="http://127.0.0.1:8765"
    ), tmp_path / "task"


def _answers(folder: Path) -> int:
    return len(read_answers(load_task(folder).answers_path))


def test_a_cross_site_form_post_records_nothing(tmp_path: Path) -> None:
    client, folder = _client(tmp_path)
    evil = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    # the attack as a browser sends it: no token (the attacker cannot read the page), foreign origin
    assert (
        client.post("/answer", data={"slot": 0, "choice": "left"}, headers=evil).status_code == 403
    )
    assert client.post("/answer", data={"slot": 0, "choice": "left"}).status_code == 403
    # even with the token, a foreign Origin or Referer is refused
    page = client.get("/")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    form = {"slot": 0, "choice": "left", "csrf": csrf}
    for headers in ({"Origin": "http://evil.example"}, {"Referer": "http://evil.example/x"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}):  # fmt: skip
        assert client.post("/answer", data=form, headers=headers).status_code == 403, headers
    assert _answers(folder) == 0
    # the page's own form still works
    own = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/answer", data=form, headers=own).status_code == 200
    assert _answers(folder) == 1


def test_the_token_changes_with_each_server_start(tmp_path: Path) -> None:
    client, folder = _client(tmp_path)
    again = TestClient(create_app(folder, "alice"), base_url="http://127.0.0.1:8765")
    token = client.get("/").text.split('name="csrf" value="')[1].split('"')[0]
    assert token not in again.get("/").text
    assert (
        again.post("/answer", data={"slot": 0, "choice": "left", "csrf": token}).status_code == 403
    )


def test_a_rebound_host_name_is_refused(tmp_path: Path) -> None:
    """Before: `review serve` never checked Host, so a page on an attacker's domain that
    resolves to 127.0.0.1 (DNS rebinding) read the page and its form token, then posted."""
    client, folder = _client(tmp_path)
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
        reply = client.get("/", headers={"Host": host})
        assert reply.status_code == 400, host
        assert 'name="csrf"' not in reply.text
        assert client.post("/answer", data={"slot": 0, "choice": "left"},
                           headers={"Host": host}).status_code == 400  # fmt: skip
    assert _answers(folder) == 0
    for host in ("127.0.0.1:8765", "localhost:8765"):
        assert client.get("/", headers={"Host": host}).status_code == 200
