"""API tokens of the boards a participant registered with, kept in the user's config.

``$XDG_CONFIG_HOME/openrepro/credentials.json`` (``~/.config/openrepro/credentials.json`` when
the variable is unset), file mode 0600, keyed by the board's URL::

    {"servers": {"https://repro.example.org": {"handle": "ada", "token": "orp_..."}}}

``OPENREPRO_TOKEN`` overrides the stored token for every board (for CI and agents' sandboxes).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from openrepro.errors import ConfigError

__all__ = [
    "TOKEN_ENV",
    "Credential",
    "credentials_path",
    "find_credential",
    "normalise_server",
    "save_credential",
    "stored_servers",
]

TOKEN_ENV = "OPENREPRO_TOKEN"


class Credential(BaseModel):
    handle: str = ""
    token: str


class _File(BaseModel):
    servers: dict[str, Credential] = Field(default_factory=dict)


def normalise_server(server: str) -> str:
    """The board's URL as a key: scheme and host lower-case, no trailing slash."""
    url = server.strip().rstrip("/")
    if not url.lower().startswith(("http://", "https://")):
        raise ConfigError(f"{server!r}: a board's URL starts with http:// or https://")
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}"


def credentials_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "openrepro" / "credentials.json"


def _read(path: Path) -> _File:
    if not path.is_file():
        return _File()
    try:
        return _File.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise ConfigError(f"{path}: not a credentials file ({exc}); fix or remove it") from exc


def find_credential(server: str) -> Credential | None:
    """The token for ``server``: ``OPENREPRO_TOKEN`` when set, else the stored one, else None."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        return Credential(token=env)
    return _read(credentials_path()).servers.get(normalise_server(server))


def save_credential(server: str, handle: str, token: str) -> Path:
    """Store ``handle``'s token for ``server`` (other boards' entries are kept); the file is
    written whole and atomically, readable by its owner only."""
    path = credentials_path()
    found = _read(path)
    found.servers[normalise_server(server)] = Credential(handle=handle, token=token)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".credentials-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(found.model_dump_json(indent=2) + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def stored_servers() -> list[str]:
    """The boards a token is stored for."""
    return sorted(_read(credentials_path()).servers)
