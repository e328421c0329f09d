"""The review page in a real browser (Debian's Chromium through Playwright): keyboard answers,
a server killed with SIGKILL and restarted, and the 128-pair flow through `review check`."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from review_images import brightness_of, make_pairs, truth
from typer.testing import CliRunner

from openrepro.cli import app
from openrepro.review import create_task, read_answers, schedule

KEYS = {"left": "1", "right": "2", "same": "s"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(folder: Path, reviewer: str, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "openrepro", "review", "serve", str(folder),
         "--reviewer", reviewer, "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except httpx.TransportError:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the review server did not start")


@contextmanager
def _server(folder: Path, reviewer: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    proc = _start(folder, reviewer, port)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


def _choice(left: bytes, right: bytes) -> str:
    a, b = brightness_of(left), brightness_of(right)
    return "same" if a == b else "left" if a > b else "right"


_LOOK = """() => {
  const mean = (img) => {
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) { sum += data[i]; }
    return sum / (data.length / 4);
  };
  const a = mean(document.getElementById('left')), b = mean(document.getElementById('right'));
  return a === b ? 'same' : a > b ? 'left' : 'right';
}"""


def _answer_in_browser(page: Any, done: int, total: int) -> None:
    """Look at both images (their pixels, in the page), press the key of the brighter side,
    wait for the next item."""
    page.wait_for_function(
        "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)"
    )
    page.keyboard.press(KEYS[page.evaluate(_LOOK)])
    page.wait_for_function(
        "text => document.getElementById('progress').textContent.startsWith(text)",
        arg=f"{done + 1} / {total}",
    )


def test_killed_server_keeps_every_answer_once(browser: Any, tmp_path: Path) -> None:
    a_dir, b_dir = make_pairs(tmp_path, 10)
    folder = tmp_path / "task"
    task = create_task(folder, a_dir, b_dir, question="Which image is brighter?", seed=3)
    total = len(schedule(task, "alice"))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    page = browser.new_page()
    proc = _start(folder, "alice", port)
    try:
        page.goto(base + "/")
        assert page.text_content("#question") == "Which image is brighter?"
        for done in range(5):
            _answer_in_browser(page, done, total)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert len(read_answers(task.answers_path)) == 5
    with _server(folder, "alice", port):
        page.reload()
        assert page.text_content("#progress").startswith(f"5 / {total}")  # resumed
        for done in range(5, 8):
            _answer_in_browser(page, done, total)
        # a stale form for an answered slot is not written again
        csrf = page.get_attribute('input[name="csrf"]', "value") or ""
        httpx.post(base + "/answer", data={"slot": 0, "choice": "left", "csrf": csrf}, timeout=5)
    page.close()
    answers = read_answers(task.answers_path)
    assert len(answers) == 8
    assert len({a.slot for a in answers}) == 8
    slots = schedule(task, "alice")
    assert [a.slot for a in answers] == [s.slot for s in slots[:8]]
    index = {f"pair_{i:03d}.png": i for i in range(10)}
    assert all(a.answer == truth(index[a.item]) for a in answers)  # unblinded correctly


def _answer_over_http(base: str, total: int, wrong: bool) -> None:
    """A second reviewer without a browser: the same page over HTTP, wrong on some items."""
    with httpx.Client(base_url=base, timeout=5) as client:
        for _ in range(total):
            html = client.get("/").text
            slot = int(html.split('name="slot" value="')[1].split('"')[0])
            left = client.get(html.split('id="left" src="')[1].split('"')[0]).content
            right = client.get(html.split('id="right" src="')[1].split('"')[0]).content
            choice = _choice(left, right)
            if slot % 10 == 3 and wrong:
                choice = "same" if choice != "same" else "left"
            csrf = html.split('name="csrf" value="')[1].split('"')[0]
            client.post("/answer", data={"slot": slot, "choice": choice, "csrf": csrf})
        assert 'id="done"' in client.get("/").text


def test_128_pairs_end_to_end_with_agreement(browser: Any, tmp_path: Path) -> None:
    a_dir, b_dir = make_pairs(tmp_path, 128)
    folder = tmp_path / "quantization"
    runner = CliRunner()
    result = runner.invoke(app, ["review", "create", str(folder), "--a", str(a_dir), "--b",
                                 str(b_dir), "--question", "Which image is brighter?",
                                 "--seed", "11", "--format", "json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["items"] == 128
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    total = 128 + 13  # 10 % repeated
    started = time.perf_counter()
    with _server(folder, "alice", port):
        page = browser.new_page()
        page.goto(base + "/")
        for done in range(total):
            _answer_in_browser(page, done, total)
        assert page.text_content("#done")
        page.close()
    browser_seconds = time.perf_counter() - started
    with _server(folder, "bob", port):
        _answer_over_http(base, total, wrong={"yes"})
    result = runner.invoke(app, ["review", "check", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["problems"] == [] and report["answers"] == 2 * total
    alice, bob = report["reviewers"]
    assert alice["reviewer"] == "alice" and alice["items"] == 128
    assert alice["repeats"] == 13 and alice["self_agreement"] == 1.0
    pair = report["pairs"][0]
    assert pair["items"] == 128
    assert 0.8 < pair["percent"] < 1.0
    assert 0.7 < pair["kappa"] < 1.0 and 0.7 < report["alpha"] < 1.0
    text = runner.invoke(app, ["review", "check", str(folder)]).output
    assert "Cohen's kappa" in text and "Krippendorff's alpha" in text
    print(f"\n128 pairs: alice in Chromium {browser_seconds:.1f} s; bob self-agreement "
          f"{bob['self_agreement']}; agreement {pair['percent']:.3f}, kappa {pair['kappa']:.3f}, "
          f"alpha {report['alpha']:.3f}")  # fmt: skip
