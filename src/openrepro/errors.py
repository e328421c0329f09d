"""The one exception tree of openrepro.

Every error a user can meet derives from :class:`OpenReproError` and is defined here, with what
it means to each front end: ``exit_code`` for the CLI (a one-line message and that code, never a
traceback) and ``http_status`` for the board's JSON API and pages. A subclass inherits both
unless it says otherwise.

| error | exit | HTTP |
| --- | --- | --- |
| OpenReproError (and any subclass not below, e.g. LabelError) | 1 | 400 |
| ConfigError, ChallengeNotFoundError, ClaimError, CheckError, WorkspaceExistsError | 2 | 400 |
| LLMAuthError | 2 | 502 |
| LLMError, LLMUnavailableError, LLMOutputError | 1 | 502 |
| LogbookError, UnsafeArchiveError, UnreadableEvidenceError | 2 | 422 |
| NotFoundError | 3 | 404 |
| PermissionDeniedError | 4 | 403 |
| AuthError | 4 | 401 |
| FrozenError, ChallengeExistsError | 5 / 1 | 409 |
| BudgetError | 6 | 402 |
| QueueFullError | 7 | 429 |
| StoreError, FreezeError, EngineError | 1 | 500 |
| SourceError, PdfTextError, JobError, HubError, PublishError, PushError | 1 | 502 |
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AuthError",
    "BudgetError",
    "ChallengeExistsError",
    "ChallengeNotFoundError",
    "CheckError",
    "ClaimError",
    "ConfigError",
    "EngineError",
    "FreezeError",
    "FrozenError",
    "HubError",
    "JobError",
    "LLMAuthError",
    "LLMError",
    "LLMOutputError",
    "LLMUnavailableError",
    "LabelError",
    "LogbookError",
    "NotFoundError",
    "OpenReproError",
    "PdfTextError",
    "PermissionDeniedError",
    "PublishError",
    "PushError",
    "QueueFullError",
    "SourceError",
    "StoreError",
    "UnreadableEvidenceError",
    "UnsafeArchiveError",
    "WorkspaceExistsError",
]


class OpenReproError(Exception):
    """Base class of every error openrepro raises on purpose."""

    exit_code: ClassVar[int] = 1
    http_status: ClassVar[int] = 400


class ConfigError(OpenReproError):
    """A setting is missing or invalid (openrepro.toml or an OPENREPRO_* variable)."""

    exit_code = 2


class ChallengeExistsError(OpenReproError):
    """`openrepro init` was asked to create a challenge where one already exists."""

    http_status = 409


class ChallengeNotFoundError(ConfigError):
    """No challenge folder (openrepro.toml) was found."""


class NotFoundError(OpenReproError):
    """A requested record (paper, claim, ...) does not exist."""

    exit_code = 3
    http_status = 404


class SourceError(OpenReproError):
    """A paper source cannot be read at all (unknown scheme, unreachable service, bad file).

    Problems with single rows or files inside a readable source are not raised: they are reported
    as skipped items and the rest of the source is imported.
    """

    http_status = 502


class PdfTextError(SourceError, ValueError):
    """A PDF cannot be read or holds no text; ``str()`` is a one-line reason. The PDF-folder
    source reports it as a skipped file and goes on."""


class StoreError(OpenReproError):
    """The database cannot be opened, migrated or written."""

    http_status = 500


class LLMError(OpenReproError):
    """A language-model call failed."""

    http_status = 502


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
    http_status = 422


class UnsafeArchiveError(LogbookError):
    """An archive was refused before anything was written (path escape, link, device, bomb)."""


class UnreadableEvidenceError(LogbookError):
    """A stored file of a logbook cannot be read when judging (a CSV field over the field limit,
    a corrupted Parquet page): the claim gets ``evidence_unreadable``, the judge goes on."""


class PermissionDeniedError(OpenReproError):
    """The caller's role does not allow this (e.g. a participant overriding a verdict)."""

    exit_code = 4
    http_status = 403


class AuthError(PermissionDeniedError):
    """No valid API token was given where one is required."""

    http_status = 401


class FrozenError(OpenReproError):
    """The challenge is frozen (read-only) until an organizer reopens it."""

    exit_code = 5
    http_status = 409


class BudgetError(OpenReproError):
    """A compute job does not fit the participant's remaining credit."""

    exit_code = 6
    http_status = 402


class QueueFullError(OpenReproError):
    """A participant already has as many items waiting in the judge queue as one may
    (``queue_max_per_participant``): submit again once some are judged."""

    exit_code = 7
    http_status = 429


class JobError(OpenReproError):
    """A compute job cannot be launched, found or controlled on its backend."""

    http_status = 502


class ClaimError(OpenReproError):
    """A claim change was refused (ungrounded quote, unknown kind, nothing to change)."""

    exit_code = 2


class CheckError(OpenReproError):
    """A claim's check is malformed, not grounded in its claim's quote, or cannot be read."""

    exit_code = 2


class LabelError(OpenReproError):
    """A labels file cannot be read: a line that is not JSON or not a valid label."""


class WorkspaceExistsError(OpenReproError):
    """The target folder already holds a workspace or a Trackio logbook."""

    exit_code = 2


class FreezeError(OpenReproError):
    """The dataset cannot be written (e.g. the output folder holds something else)."""

    http_status = 500


class EngineError(OpenReproError):
    """A distributed run failed for a reason outside openrepro's own errors (a lost worker)."""

    http_status = 500


class HubError(OpenReproError):
    """A call to the Hugging Face Hub failed: the message names the repo and the HTTP status,
    never the token."""

    http_status = 502


class PublishError(HubError):
    """Publishing a logbook as a Space (and its trace as a Dataset) failed."""


class PushError(HubError):
    """Uploading the frozen dataset failed."""
