"""The Hugging Face Jobs backend, through ``huggingface_hub``'s Jobs API.

Every call names the namespace (``hf_namespace``, else the token's user). Jobs carry labels
``openrepro-challenge``, ``openrepro-job``, ``openrepro-participant``, ``openrepro-paper`` and
``openrepro-claim`` so they can be found on the Hub (and re-attached by ``reconcile`` if the CLI
died between the reservation and the launch). Prices come from ``list_jobs_hardware()``
(``unit_cost_usd`` per ``unit_label``), cached in ``jobs/hf_hardware.json`` for
``hf_hardware_ttl_s``. The Hub has no billing API, so a job's cost is an estimate: its running
seconds (``durations.running_secs``) x that list price.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from openrepro.challenge import ChallengeContext
from openrepro.errors import JobError

if TYPE_CHECKING:  # huggingface_hub is imported when the backend is opened
    from huggingface_hub._jobs_api import JobInfo

__all__ = [
    "LABEL_PREFIX",
    "HfJobs",
    "HubJob",
    "hardware_prices",
    "label_value",
]

LABEL_PREFIX = "openrepro-"
UNIT_SECONDS = {"second": 1.0, "minute": 60.0, "hour": 3600.0}
HF_STAGES = {
    "SCHEDULING": "scheduling",
    "RUNNING": "running",
    "COMPLETED": "completed",
    "ERROR": "error",
    "CANCELED": "canceled",
    "DELETED": "canceled",
}


def label_value(value: str) -> str:
    """A label value the Hub accepts: letters, digits, ``.``, ``_`` and ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", value)[:63]


class HubJob:
    """What openrepro keeps of a Hub ``JobInfo``."""

    def __init__(self, info: JobInfo) -> None:
        self.id: str = info.id
        self.url: str = info.url
        stage = str(getattr(info.status.stage, "value", info.status.stage))
        self.status: str = HF_STAGES.get(stage, "error")
        self.message: str | None = info.status.message
        self.started_at: datetime | None = info.started_at
        self.finished_at: datetime | None = info.finished_at
        self.running_s: float | None = None
        if info.durations is not None and info.durations.running_secs is not None:
            self.running_s = float(info.durations.running_secs)


class HfJobs:
    """One challenge's access to HF Jobs (endpoint, token and namespace from its settings)."""

    def __init__(self, ctx: ChallengeContext) -> None:
        from huggingface_hub import HfApi

        settings = ctx.settings
        self.ctx = ctx
        self.api = HfApi(endpoint=settings.hf_endpoint or None, token=settings.hf_token or None)
        self._namespace = settings.hf_namespace

    @property
    def namespace(self) -> str:
        if not self._namespace:
            try:
                self._namespace = str(self.api.whoami()["name"])
            except Exception as exc:
                raise JobError(
                    f"cannot tell the HF Jobs namespace (set hf_namespace): {exc}"
                ) from exc
        return self._namespace

    def _call(self, what: str, fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except JobError:
            raise
        except Exception as exc:  # HTTP, network, validation: one clear message
            raise JobError(f"HF Jobs: {what} failed: {exc}") from exc

    def run(
        self, command: list[str], *, flavor: str, timeout_s: float, labels: dict[str, str],
        env: dict[str, str],
    ) -> HubJob:  # fmt: skip
        info = self._call(
            "run_job", self.api.run_job, image=self.ctx.settings.hf_jobs_image, command=command,
            flavor=flavor, timeout=int(timeout_s), labels=labels, env=env,
            namespace=self.namespace,
        )  # fmt: skip
        return HubJob(info)

    def run_uv(
        self, script: str, script_args: list[str], *, flavor: str, timeout_s: float,
        labels: dict[str, str], env: dict[str, str],
    ) -> HubJob:  # fmt: skip
        info = self._call(
            "run_uv_job", self.api.run_uv_job, script=script, script_args=script_args,
            flavor=flavor, timeout=int(timeout_s), labels=labels, env=env,
            namespace=self.namespace,
        )  # fmt: skip
        return HubJob(info)

    def inspect(self, external_id: str) -> HubJob:
        info = self._call(
            "inspect_job", self.api.inspect_job, job_id=external_id, namespace=self.namespace
        )
        return HubJob(info)

    def find(self, labels: dict[str, str]) -> list[HubJob]:
        infos = self._call(
            "list_jobs",
            lambda **kw: list(self.api.list_jobs(**kw)),
            labels=labels,
            namespace=self.namespace,
        )
        return [HubJob(info) for info in infos]

    def cancel(self, external_id: str) -> None:
        self._call("cancel_job", self.api.cancel_job, job_id=external_id, namespace=self.namespace)

    def wait(self, external_id: str, timeout_s: float | None) -> HubJob:
        try:
            info = self.api.wait_for_job(
                external_id, timeout=timeout_s, poll_interval=1.0, namespace=self.namespace
            )
        except TimeoutError as exc:
            raise JobError(f"HF job {external_id} did not end within {timeout_s:g} s") from exc
        except Exception as exc:
            raise JobError(f"HF Jobs: wait_for_job failed: {exc}") from exc
        return HubJob(info)

    def logs(self, external_id: str, *, follow: bool) -> Iterator[str]:
        try:
            yield from self.api.fetch_job_logs(
                job_id=external_id, namespace=self.namespace, follow=follow
            )
        except Exception as exc:
            raise JobError(f"HF Jobs: fetch_job_logs failed: {exc}") from exc

    def hardware(self) -> dict[str, float]:
        """Flavor → USD per hour, from ``list_jobs_hardware()``."""
        items = self._call("list_jobs_hardware", self.api.list_jobs_hardware)
        prices: dict[str, float] = {}
        for item in items:
            seconds = UNIT_SECONDS.get(str(item.unit_label).lower())
            if seconds is not None:
                prices[str(item.name)] = float(item.unit_cost_usd) * 3600.0 / seconds
        return prices


def hardware_prices(ctx: ChallengeContext, *, refresh: bool = False) -> dict[str, float]:
    """HF Jobs prices (USD/hour by flavor), cached in ``jobs/hf_hardware.json`` with a TTL."""
    settings = ctx.settings
    cache = settings.directory / "jobs" / "hf_hardware.json"
    endpoint = settings.hf_endpoint or "https://huggingface.co"
    if not refresh and cache.is_file():
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            fresh = time.time() - float(data["fetched_at"]) < settings.hf_hardware_ttl_s
            if fresh and data.get("endpoint") == endpoint:
                return {str(k): float(v) for k, v in data["usd_per_hour"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache is refetched
    prices = HfJobs(ctx).hardware()
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    payload = {"fetched_at": time.time(), "endpoint": endpoint, "usd_per_hour": prices}
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(cache)
    return prices
