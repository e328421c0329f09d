"""The judges of a run as one value, as inspect_ai's scorers take ``model=[...]``.

:class:`Judges` holds the judge model(s) of a run: the settings of each judge of the panel
(a model name, a ``.gguf`` path or an endpoint's settings), or clients a caller opened itself.
It is built in one place from the settings and the command line's options
(:meth:`Judges.from_options`: ``--model``, ``--judges a,b``, ``--no-llm``), and it opens no
client until a claim needs a model (:meth:`Judges.clients`, called by the engine only when a
quantity is left for the judges to choose a pointer for); an embedded model loads on its first
call even then. An empty :class:`Judges` is the deterministic path: a claim that needs a model
stays ``inconclusive``.

What shapes a verdict besides its inputs is named here too: the rules, prompt and pointer
prompt versions and the judges' model, hashed into the **judge config**
(:func:`judge_config`) under which verdicts are stored and skipped on a re-run.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from openrepro.config import Settings
from openrepro.errors import ConfigError
from openrepro.evidence.decide import DEFAULT_REL_TOL
from openrepro.llm import LLMClient, Usage, configured_model, endpoint_urls, open_client, pin_model
from openrepro.store import Store

__all__ = [
    "JUDGE_VERSION",
    "POINTER_PROMPT_VERSION",
    "PROMPT_VERSION",
    "Judges",
    "judge_config",
]

JUDGE_VERSION = "rules-v4"  # v4: no reported-value fallback; a claim without a check: N0
PROMPT_VERSION = "judge-extract-v1"
POINTER_PROMPT_VERSION = "judge-pointer-v1"  # the model chooses a numbered pointer (rule 4)


def judge_config(model: str = "", rel_tol: float = DEFAULT_REL_TOL) -> str:
    """A short id of everything that shapes a verdict: rules, prompt, model, tolerance."""
    payload = json.dumps([JUDGE_VERSION, PROMPT_VERSION, POINTER_PROMPT_VERSION, model, rel_tol])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _for_model(settings: Settings, name: str) -> Settings:
    """The settings with ``name`` as the judge model ("" keeps the configured one; a ``.gguf``
    path names the embedded model's file when no endpoint is set)."""
    if not name:
        return settings
    if not endpoint_urls(settings) and name.endswith(".gguf"):
        return settings.model_copy(update={"llm_model_path": name, "llm_model": ""})
    return settings.model_copy(update={"llm_model": name})


@dataclass(frozen=True)
class Judges:
    """The judge model(s) of a run: ``settings`` of each judge (opened on first need, replies
    cached in ``store``), or ``given`` clients a caller opened (and closes) itself. A panel of
    several judges binds a quantity only to a pointer every judge chose."""

    settings: tuple[Settings, ...] = ()
    store: Store | None = None
    given: tuple[LLMClient, ...] = ()
    _opened: dict[int, LLMClient] = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @classmethod
    def of(cls, *clients: LLMClient) -> Judges:
        """Judges from clients already open (their owner closes them)."""
        return cls(given=tuple(clients))

    @classmethod
    def from_options(
        cls,
        settings: Settings,
        store: Store | None,
        *,
        model: str | None = None,
        panel: Sequence[str] = (),
        no_llm: bool = False,
    ) -> Judges:
        """The judges the command line names: none with ``no_llm``; else each model of
        ``panel`` (``--judges a,b``), else ``model`` (``--model``), else the configured judge
        model (setting ``llm_model``, or the embedded model)."""
        if no_llm:
            return cls(store=store)
        names = [n.strip() for n in panel if n.strip()] or [model or ""]
        return cls(tuple(_for_model(settings, name) for name in names), store)

    def __len__(self) -> int:
        return len(self.given) + len(self.settings)

    def _client(self, index: int) -> LLMClient:
        with self._lock:
            if index not in self._opened:
                self._opened[index] = open_client(self.settings[index], self.store, defer=True)
            return self._opened[index]

    @property
    def opened(self) -> int:
        """How many of the judges' clients were opened so far (``given`` ones not counted)."""
        with self._lock:
            return len(self._opened)

    def clients(self) -> list[LLMClient]:
        """The judges' clients, opened now if not yet (an embedded model loads on its first
        call only)."""
        return [*self.given, *(self._client(i) for i in range(len(self.settings)))]

    @property
    def model(self) -> str:
        """The model name the panel's verdicts record (``a+b``), the input of its judge config;
        asked of a client only for an endpoint whose settings name no model."""
        names = [c.backend.model for c in self.given]
        names += [configured_model(s) or self._client(i).backend.model
                  for i, s in enumerate(self.settings)]  # fmt: skip
        return "+".join(names)

    @property
    def config(self) -> str:
        """The judge config of verdicts these judges give (:func:`judge_config`)."""
        return judge_config(self.model)

    @property
    def usage(self) -> Usage:
        """Tokens and calls spent so far by the clients opened."""
        total = Usage()
        with self._lock:
            opened = list(self._opened.values())
        for client in [*self.given, *opened]:
            total.add(client.usage)
        return total

    def pinned(self) -> Judges:
        """These judges with each model name resolved in its settings (an endpoint's first
        listed model), so that processes elsewhere record the same model and judge config."""
        if self.given:
            raise ConfigError("judges given as open clients cannot be sent to other processes")
        return Judges(tuple(pin_model(s) for s in self.settings), self.store)

    def close(self) -> None:
        """Close the clients this value opened (``given`` ones are their owner's)."""
        with self._lock:
            opened = list(self._opened.values())
            self._opened.clear()
        for client in opened:
            client.close()
