"""Testimony: what the participant's prose says about a claim (never evidence).

The judge flags ``testimony_disagrees`` when the prose's stance contradicts the verdict; the
re-check queue reads the same stance to find self-declared falsifications.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from openrepro.claims.records import ClaimView
from openrepro.logbooks.records import LogbookRecord, Testimony

__all__ = ["stance_of", "testimony_stance"]

_POSITIVE = re.compile(r"\b(verified|reproduced|confirmed|holds|replicated|success)", re.I)
_NEGATIVE = re.compile(
    r"\b(falsified|not reproduced|could not reproduce|failed to reproduce|does not hold|"
    r"contradict\w*|refuted|fails)",
    re.I,
)


def testimony_stance(record: LogbookRecord, claim: ClaimView) -> str | None:
    """What the participant's prose says about this claim: "positive", "negative" or None."""
    return stance_of(record.testimony, claim.id, claim.key)


def stance_of(testimony: Iterable[Testimony], claim_id: str, key: str) -> str | None:
    """:func:`testimony_stance` over the testimony statements alone (no whole record needed):
    the stance of the lines naming the claim (``<paper>/<key>``, ``<key>:``, ``claim N``)."""
    names = (claim_id, f"{key}:", f"{key} ", f"claim {key[1:]}")
    stances: set[str] = set()
    for statement in testimony:
        for line in statement.text.splitlines():
            text = unicodedata.normalize("NFKC", line)
            if not any(name.lower() in text.lower() for name in names):
                continue
            if _NEGATIVE.search(text):
                stances.add("negative")
            elif _POSITIVE.search(text):
                stances.add("positive")
    return stances.pop() if len(stances) == 1 else None
