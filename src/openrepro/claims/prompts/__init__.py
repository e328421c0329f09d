"""Versioned prompt files: ``<name>-v<N>.md`` with ``## system`` and ``## user`` sections.

The user section is a :class:`string.Template` (``$title``), so braces in paper text are safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files
from string import Template

__all__ = ["Prompt", "load_prompt"]

_SECTION = re.compile(r"^## (system|user)\s*$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: Template

    def render(self, **values: str) -> tuple[str, str]:
        return self.system, self.user.substitute(values)


def load_prompt(version: str) -> Prompt:
    """Load ``prompts/<version>.md`` shipped with the package (e.g. ``extract-v1``)."""
    text = files("openrepro.claims.prompts").joinpath(f"{version}.md").read_text(encoding="utf-8")
    text = _COMMENT.sub("", text)
    parts = _SECTION.split(text)
    found = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if set(found) != {"system", "user"}:
        raise ValueError(f"prompt {version} needs a '## system' and a '## user' section")
    return Prompt(version=version, system=found["system"], user=Template(found["user"]))
