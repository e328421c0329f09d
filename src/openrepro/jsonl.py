"""Reading typed records from a JSON Lines file (labelled verdicts, labelled checks, ...).

Blank lines and lines starting with ``#`` are skipped; a line that is not JSON, or not a valid
record, is an error naming the file, the line and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from openrepro.errors import OpenReproError

__all__ = ["read_records"]

R = TypeVar("R", bound=BaseModel)


def read_records(path: Path | str, model: type[R], error: type[OpenReproError]) -> list[R]:
    """Every record of ``path`` as ``model``; problems raise ``error`` (see the module)."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{source}: cannot read labels ({exc.strerror or exc})") from exc
    records: list[R] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            records.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise error(f"{source}: line {number}: not JSON ({exc.msg})") from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "label"
            raise error(f"{source}: line {number}: {where}: {first['msg']}") from exc
    return records
