"""Shared pieces of the Ray tests: a local Ray instance per module, stores to compare, and a
fake OpenAI-compatible server whose replies depend only on the prompt (deterministic)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Reply, Request, completion

from openrepro.challenge import ChallengeContext, init_challenge

__all__ = ["KeyedFake", "local_ray", "make_challenge", "second_database"]


def local_ray() -> Iterator[Any]:
    """A local Ray instance with 2 CPUs on 127.0.0.1 (the body of a module fixture)."""
    import ray  # CI installs it (scripts/setup.sh)

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        object_store_memory=128 * 1024 * 1024,
        log_to_driver=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def second_database(database_url: str, tmp_path: Path) -> Iterator[str]:
    """Another empty database of the same kind as ``database_url`` (dropped afterwards)."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'other.db'}"
    else:
        from pgdb import postgres_database

        yield from postgres_database()


def make_challenge(folder: Path, database_url: str) -> ChallengeContext:
    return init_challenge(folder, "test", venue="Test/2026", database_url=database_url)


_NUMBERED = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_ITEM = re.compile(r"^\[(\d+)\] .*?(\d+\.\d+)", re.MULTILINE)


class KeyedFake(FakeOpenAI):
    """Answers extraction prompts with the first two numbered sentences as claims, pointer
    choices with the column ``eval/.../b<k>_accuracy`` of the claim's benchmark B<k> (else none),
    and judge prompts with the first evidence item holding a number and that number: a pure
    function of the prompt, whichever server or process gets it."""

    def _chat(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        if "Columns:" in prompt:  # a pointer choice: the column named after the claim's B<k>
            bench = re.search(r"Claim: .*? on B(\d+)\.", prompt)
            column = bench and re.search(
                rf"^\[(\d+)\] .*eval/\S*b{bench.group(1)}_accuracy", prompt, re.MULTILINE
            )
            quantities = prompt.split("Quantities, in order:", 1)[1].split("Columns:", 1)[0]
            count = max(1, quantities.count("\n- "))
            answer = {"choices": [int(column.group(1)) if column else 0] * count}
        elif "Evidence items:" in prompt:
            listing = prompt.split("Evidence items:", 1)[1]
            found = _ITEM.search(listing)
            answer: dict[str, Any] = (
                {"items": [int(found.group(1))], "value": float(found.group(2)), "unit": ""}
                if found
                else {"items": [], "value": None, "unit": ""}
            )
        else:
            sentences = _NUMBERED.findall(prompt)[:2]
            answer = {
                "claims": [
                    {"sentences": [int(n)], "claim": f"The paper states: {text[:80]}",
                     "kind": "result"}
                    for n, text in sentences
                ]
            }  # fmt: skip
        return completion(json.dumps(answer))
