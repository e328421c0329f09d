"""The one exception tree of openrepro.

Every error a user can meet derives from :class:`OpenReproError`; the CLI turns each into a
one-line message and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

__all__ = [
    "AuthError",
    "BudgetError",
    "ChallengeExistsError",
    "ChallengeNotFoundError",
    "ConfigError",
    "FrozenError",
    "JobError",
    "LLMAuthError",
    "LLMError",
    "LLMOutputError",
    "LLMUnavailableError",
    "LogbookError",
    "NotFoundError",
    "OpenReproError",
    "PermissionDeniedError",
    "SourceError",
    "StoreError",
    "UnsafeArchiveError",
]


class OpenReproError(Exception):
    """Base class of every error openrepro raises on purpose."""

    exit_code: int = 1


class ConfigError(OpenReproError):
    """A setting is missing or invalid (openrepro.toml or an OPENREPRO_* variable)."""

    exit_code = 2


class ChallengeExistsError(OpenReproError):
    """`openrepro init` was asked to create a challenge where one already exists."""


class ChallengeNotFoundError(ConfigError):
    """No challenge folder (openrepro.toml) was found."""


class NotFoundError(OpenReproError):
    """A requested record (paper, claim, ...) does not exist."""

    exit_code = 3


class SourceError(OpenReproError):
    """A paper source cannot be read at all (unknown scheme, unreachable service, bad file).

    Problems with single rows or files inside a readable source are not raised: they are reported
    as skipped items and the rest of the source is imported.
    """


class StoreError(OpenReproError):
    """The database cannot be opened, migrated or written."""


class LLMError(OpenReproError):
    """A language-model call failed."""


class LLMUnavailableError(LLMError):
    """The endpoint cannot be reached (or the embedded model cannot be loaded)."""


class LLMAuthError(LLMError):
    """The endpoint refused the credentials (HTTP 401/403)."""

    exit_code = 2


class LLMOutputError(LLMError):
    """The model's reply was not valid JSON for the schema, even after one repair attempt.

    A failed extraction is never a pass: callers record it as a failure. ``usage`` holds the
    tokens and seconds the failed call cost (a :class:`openrepro.llm.Usage` as a dict).
    """

    def __init__(self, message: str, *, usage: dict[str, float] | None = None) -> None:
        super().__init__(message)
        self.usage: dict[str, float] = usage or {}


class LogbookError(OpenReproError):
    """A logbook or bundle cannot be read: the message names the file and the problem.

    Nothing of a logbook that raised this is stored.
    """

    exit_code = 2


class UnsafeArchiveError(LogbookError):
    """An archive was refused before anything was written (path escape, link, device, bomb)."""


class PermissionDeniedError(OpenReproError):
    """The caller's role does not allow this (e.g. a participant overriding a verdict)."""

    exit_code = 4


class AuthError(PermissionDeniedError):
    """No valid API token was given where one is required."""


class FrozenError(OpenReproError):
    """The challenge is frozen (read-only) until an organizer reopens it."""

    exit_code = 5


class BudgetError(OpenReproError):
    """A compute job does not fit the participant's remaining credit."""

    exit_code = 6


class JobError(OpenReproError):
    """A compute job cannot be launched, found or controlled on its backend."""
