"""Versioned prompt files: ``<name>-v<N>.md`` with ``## system`` and ``## user`` sections, and
optionally a ``## repair`` section (the follow-up a drafter sends when code refuses the first
answer, ``$reason`` in it).

The user and repair sections are :class:`string.Template` s (``$title``), so braces in paper text
are safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files
from string import Template

__all__ = ["Prompt", "load_prompt"]

_SECTION = re.compile(r"^## (system|user|repair)\s*$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: Template
    repair: Template | None = None

    def render(self, **values: str) -> tuple[str, str]:
        return self.system, self.user.substitute(values)

    def render_repair(self, **values: str) -> str:
        """The repair follow-up with ``values`` (``reason``); an error for a prompt without one."""
        if self.repair is None:
            raise ValueError(f"prompt {self.version} has no '## repair' section")
        return self.repair.substitute(values)


def load_prompt(version: str) -> Prompt:
    """Load ``prompts/<version>.md`` shipped with the package (e.g. ``extract-v1``)."""
    text = files("openrepro.claims.prompts").joinpath(f"{version}.md").read_text(encoding="utf-8")
    text = _COMMENT.sub("", text)
    parts = _SECTION.split(text)
    found = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if set(found) - {"repair"} != {"system", "user"}:
        raise ValueError(f"prompt {version} needs a '## system' and a '## user' section")
    repair = Template(found["repair"]) if "repair" in found else None
    return Prompt(
        version=version, system=found["system"], user=Template(found["user"]), repair=repair
    )
