"""The HTTP server settings of the board: a connection layer that sheds load instead of stalling.

``openrepro serve`` runs uvicorn with :class:`GuardedH11Protocol`, whatever HTTP parser is
installed (uvicorn prefers ``httptools`` when it is there, and ``httptools`` has no cap on a
request head: a 300 MiB header was accepted and parsed in super-linear time). The protocol is
uvicorn's h11 one with three limits of its own:

- **a request head cap**: h11's ``max_incomplete_event_size`` (``MAX_HEADER_BYTES``); a larger
  request line plus headers is answered 431-like (h11: 400) and the connection closed;
- **a head deadline**: a connection must deliver a complete request head within
  ``HEAD_TIMEOUT_S`` of opening (or of its previous response), or it is closed: an idle or
  slowloris connection cannot be held open by sending a byte now and then;
- **connection caps**: at most ``MAX_CONNECTIONS`` open connections in all and
  ``MAX_CONNECTIONS_PER_CLIENT`` from one address; a connection past either cap gets an
  immediate ``503`` with ``Retry-After`` and is closed, so one client holding a thousand idle
  sockets never starves the others (uvicorn's own ``limit_concurrency`` counts idle connections
  too, so it is not used).

Work in flight is bounded by :class:`openrepro.board.guard.RequestGuard` (``max_inflight``
requests, then 503) and cancelled at ``request_timeout_s`` (its statements are interrupted:
:func:`openrepro.store.deadline`). Behind a reverse proxy, the proxy's address is every client's
address: set ``MAX_CONNECTIONS_PER_CLIENT`` through ``OPENREPRO_MAX_CONNECTIONS_PER_CLIENT`` or
let the proxy enforce per-client limits (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "HEAD_TIMEOUT_S",
    "KEEP_ALIVE_S",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_CLIENT",
    "MAX_HEADER_BYTES",
    "GuardedH11Protocol",
    "uvicorn_options",
]

#: Idle keep-alive connections close after this many seconds.
KEEP_ALIVE_S = 5
#: A request line plus headers may take this many bytes (h11 refuses more).
MAX_HEADER_BYTES = 32 * 1024
#: A new connection (or one between requests) must send a whole request head within this time.
HEAD_TIMEOUT_S = 10.0
MAX_CONNECTIONS = int(os.environ.get("OPENREPRO_MAX_CONNECTIONS", "4000"))
MAX_CONNECTIONS_PER_CLIENT = int(os.environ.get("OPENREPRO_MAX_CONNECTIONS_PER_CLIENT", "256"))

_BUSY_BODY = b'{"error": {"type": "ServerBusy", "message": "too many connections; retry later"}}'
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\n"
    b"connection: close\r\ncontent-length: "
    + str(len(_BUSY_BODY)).encode()
    + b"\r\n\r\n"
    + _BUSY_BODY
)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a head deadline and connection caps (see the module doc)."""

    #: Open connections per client address, shared by every connection of the process.
    per_client: ClassVar[Counter[str]] = Counter()
    head_timeout_s: float = HEAD_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS
    max_per_client: int = MAX_CONNECTIONS_PER_CLIENT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else ""
        if (
            len(self.connections) > self.max_connections
            or self.per_client[host] >= self.max_per_client
        ):
            transport.write(_BUSY)
            transport.close()
            return
        self.per_client[host] += 1
        self._counted = host
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self._counted is not None:
            self.per_client[self._counted] -= 1
            if self.per_client[self._counted] <= 0:
                del self.per_client[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a whole request head arrived
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()  # the next request's head has the same deadline

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timeout)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: the request timeout governs it
        if not self.transport.is_closing():
            self.transport.close()


def uvicorn_options() -> dict[str, Any]:
    """The keyword arguments every ``uvicorn.run`` of the board takes."""
    return {
        "http": GuardedH11Protocol,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "limit_concurrency": None,
    }
