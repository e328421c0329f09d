"""Talking to the Hugging Face Hub: repo ids and errors, shared by everything that publishes.

:func:`hub_errors` turns what ``huggingface_hub`` raises into one of openrepro's
:class:`~openrepro.errors.HubError` classes (``PublishError`` for logbook Spaces, ``PushError``
for frozen datasets) naming the repo and the HTTP status; the token never appears in a message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2

from openrepro.errors import HubError

__all__ = ["MAX_NAME_CHARS", "check_repo_id", "hub_errors", "hub_token", "scrub"]

MAX_NAME_CHARS = 96  # the Hub's limit on a repo name
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def check_repo_id(
    repo_id: str, what: str = "Space", error: type[HubError] = HubError
) -> tuple[str, str]:
    """``owner/name`` split in two; ``error`` if the Hub would refuse the id."""
    owner, slash, name = repo_id.partition("/")
    valid = (
        slash == "/"
        and all(_NAME.fullmatch(part) for part in (owner, name))
        and len(name) <= MAX_NAME_CHARS
        and not any(bad in repo_id for bad in ("--", ".."))
    )
    if not valid:
        raise error(
            f"invalid {what} id {repo_id!r}: expected owner/name (letters, digits, '-', '_', '.', "
            f"at most {MAX_NAME_CHARS} characters, no '--' or '..')"
        )
    return owner, name


def hub_token(configured: str = "") -> str | None:
    """``HF_TOKEN``, else the configured token, else None (huggingface_hub's own lookup)."""
    return os.environ.get("HF_TOKEN") or configured or None


def scrub(message: str, token: str | None) -> str:
    """The first line of ``message``, with ``token`` masked."""
    first = message.strip().splitlines()[0] if message.strip() else message
    return first.replace(token, "***") if token else first


@contextmanager
def hub_errors(where: str, token: str | None, error: type[HubError] = HubError) -> Iterator[None]:
    """Turn the Hub client's errors inside the block into ``error`` naming ``where`` (e.g.
    ``"dataset owner/name"``)."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    try:
        yield
    except HfHubHTTPError as exc:
        status = exc.response.status_code
        detail = exc.server_message or exc.response.reason_phrase or "error"
        raise error(scrub(f"{where}: HTTP {status}: {detail}", token)) from exc
    except OfflineModeIsEnabled as exc:
        raise error(f"{where}: HF_HUB_OFFLINE is set, the Hub cannot be reached") from exc
    except httpx2.TransportError as exc:
        raise error(scrub(f"{where}: cannot reach the Hub ({exc})", token)) from exc
    except ValueError as exc:  # e.g. README metadata the Hub refused (HTTP 400)
        raise error(scrub(f"{where}: {exc}", token)) from exc
