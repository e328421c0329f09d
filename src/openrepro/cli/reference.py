"""The CLI reference in the README, generated from the commands themselves.

``python -m openrepro.cli.reference --write README.md`` rewrites the part between the markers;
a test fails when the README is stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import typer.main

from openrepro.config import ENV_PREFIX, Settings

__all__ = ["END", "START", "render_reference", "render_settings", "update_readme"]

START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"
SETTINGS_START = "<!-- settings:start -->"
SETTINGS_END = "<!-- settings:end -->"


# Typer bundles its own copy of Click, so commands and parameters are read by duck typing.


def _is_option(param: Any) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def _param_row(param: Any, ctx: Any) -> str | None:
    if not _is_option(param) or param.hidden or param.name == "help":
        return None
    names = " / ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
    default = param.get_default(ctx, call=False)
    text = (param.help or "").replace("|", "\\|")
    if default not in (None, False, "", ()) and not param.is_flag:
        text += f" (default: `{getattr(default, 'value', default)}`)"
    return f"| {names} | {text} |"


def _command_section(command: Any, ctx: Any) -> list[str]:
    lines = [f"### `{ctx.command_path}`", ""]
    help_text = (command.help or "").strip()
    if help_text:
        lines += [help_text, ""]
    pieces = [
        re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(), p)
        for p in command.collect_usage_pieces(ctx)
    ]
    lines += ["```", f"{ctx.command_path} {' '.join(pieces)}".rstrip(), "```", ""]
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    for argument in arguments:
        helptext = getattr(argument, "help", None) or ""
        name = (argument.metavar or argument.name or "").upper()
        lines.append(f"- `{name}`: {helptext}")
    if arguments:
        lines.append("")
    rows = [r for r in (_param_row(p, ctx) for p in command.get_params(ctx)) if r]
    if rows:
        lines += ["| option | meaning |", "| --- | --- |", *rows, ""]
    if hasattr(command, "list_commands"):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                lines += _command_section(sub, type(ctx)(sub, info_name=sub_name, parent=ctx))
    return lines


def render_reference() -> str:
    from openrepro.cli import app

    root = typer.main.get_command(app)
    root_ctx = root.make_context("openrepro", [], resilient_parsing=True)
    lines = _command_section(root, root_ctx)
    return "\n".join(lines).rstrip() + "\n"


def render_settings() -> str:
    lines = [
        "| setting (`openrepro.toml`) | variable | default | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for name, field in Settings.model_fields.items():
        if field.exclude:
            continue
        default = "(required)" if field.is_required() else f"`{field.default!r}`"
        variable = f"`{ENV_PREFIX}{name.upper()}`"
        lines.append(f"| `{name}` | {variable} | {default} | {field.description or ''} |")
    return "\n".join(lines) + "\n"


def _replace(text: str, start: str, end: str, body: str) -> str:
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    if not _ or end not in rest:
        raise ValueError(f"README lacks the markers {start} ... {end}")
    return f"{head}{start}\n{body}{end}{tail}"


def update_readme(text: str) -> str:
    text = _replace(text, START, END, render_reference())
    return _replace(text, SETTINGS_START, SETTINGS_END, render_settings())


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        path = Path(sys.argv[2])
        path.write_text(update_readme(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(render_reference())
