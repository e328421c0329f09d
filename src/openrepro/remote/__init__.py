"""A participant's side of a hosted challenge: register with a board, keep its token in the
user's config, upload logbooks to it and read one's verdicts back (``openrepro participants
register --server``, ``submit``, ``status``)."""

from openrepro.intake.records import ClaimStatus, LogbookStatus, ParticipantStatus
from openrepro.remote.client import (
    pack_workspace,
    register_remote,
    remote_queue,
    remote_status,
    require_credential,
    submit_remote,
)
from openrepro.remote.credentials import (
    TOKEN_ENV,
    Credential,
    credentials_path,
    find_credential,
    normalise_server,
    save_credential,
    stored_servers,
)

__all__ = [
    "TOKEN_ENV",
    "ClaimStatus",
    "Credential",
    "LogbookStatus",
    "ParticipantStatus",
    "credentials_path",
    "find_credential",
    "normalise_server",
    "pack_workspace",
    "register_remote",
    "remote_queue",
    "remote_status",
    "require_credential",
    "save_credential",
    "stored_servers",
    "submit_remote",
]
