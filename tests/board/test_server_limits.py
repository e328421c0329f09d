"""Connection-level limits of the board's server (openrepro.board.server), against a real
uvicorn on 127.0.0.1 with the options ``openrepro serve`` uses.

Each test reproduces a finding of the second hostile-participants probe: a huge request head
accepted when ``httptools`` is installed; idle connections starving honest clients (every
request 503); a slowloris connection held open by a byte now and then. Honest requests come
from 127.0.0.2 (also the loopback interface) so that per-client limits can be told apart from
a global stall.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from board_fixtures import live_board

from openrepro.board.server import MAX_HEADER_BYTES, GuardedH11Protocol
from openrepro.challenge import ChallengeContext

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def _address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def _honest(url: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    return httpx.Client(base_url=url.replace("127.0.0.1", "127.0.0.1"), transport=transport,
                        timeout=10)  # fmt: skip


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """True when the server closes ``sock`` (EOF or reset) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


@pytest.fixture
def board(challenge: ChallengeContext) -> Iterator[str]:
    with live_board(challenge) as url:
        yield url


@pytest.fixture
def fast_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GuardedH11Protocol, "head_timeout_s", 0.6)
    monkeypatch.setattr(GuardedH11Protocol, "max_per_client", 20)


def test_a_huge_request_head_is_refused_whatever_parser_is_installed(board: str) -> None:
    """Before: with httptools installed, a 300 MiB header was accepted and parsed."""
    pytest.importorskip("httptools")  # the finding needs it; h11 alone always capped
    sock = socket.create_connection(_address(board))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
    sent = 0
    try:
        while sent < 8 * MAX_HEADER_BYTES:
            sock.sendall(b"a" * 4096)
            sent += 4096
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server stopped reading: refused
    sock.settimeout(5)
    try:
        answer = sock.recv(65536)
    except ConnectionResetError:
        answer = b""
    assert not answer.startswith(b"HTTP/1.1 200")
    assert answer == b"" or answer.startswith(b"HTTP/1.1 4")
    sock.close()
    with _honest(board) as client:
        assert client.get("/").status_code == 200


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_idle_connections_do_not_starve_honest_clients(board: str, fast_limits: None) -> None:
    """Before: 1,000 idle connections made every honest request answer 503."""
    idle = [socket.create_connection(_address(board)) for _ in range(40)]
    try:
        # past the per-client cap, a new connection from the same address is told it is busy
        assert any(s.recv(4096).startswith(b"HTTP/1.1 503") for s in idle[20:22])
        with _honest(board) as client:
            for _ in range(5):
                assert client.get("/").status_code == 200
        # the idle ones are closed at the head deadline
        assert _closed_by_server(idle[0], within=5)
    finally:
        for s in idle:
            s.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_slowloris_connection_is_closed_at_the_head_deadline(
    board: str, fast_limits: None
) -> None:
    """Before: a byte every few seconds kept a connection (and its slot) forever."""
    sock = socket.create_connection(_address(board))
    started = time.monotonic()
    closed = False
    try:
        for byte in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
            sock.sendall(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - started > 3:
                break
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    closed = closed or _closed_by_server(sock, within=2)
    sock.close()
    assert closed
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_keep_alive_requests_still_work(board: str, fast_limits: None) -> None:
    """The head deadline restarts after each response: a keep-alive client is served again."""
    with _honest(board) as client:
        for _ in range(3):
            assert client.get("/api/v1/stats").status_code == 200
            time.sleep(0.2)
