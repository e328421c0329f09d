"""Where extraction, judging and replays run: ``local`` (this process, the default) or
``ray`` (tasks on a Ray cluster, or a local Ray instance). Both call the same per-item
functions, so they store the same results; Ray is an optional dependency, imported only when
used."""

from __future__ import annotations

from enum import StrEnum

from openrepro.engine.ray_engine import (
    RayOptions,
    extract_claims_ray,
    judge_logbooks_ray,
    ray_session,
    replay_logbooks_ray,
    require_ray,
)

__all__ = [
    "Engine",
    "RayOptions",
    "extract_claims_ray",
    "judge_logbooks_ray",
    "ray_session",
    "replay_logbooks_ray",
    "require_ray",
]


class Engine(StrEnum):
    """The ``--engine`` choices."""

    local = "local"
    ray = "ray"
