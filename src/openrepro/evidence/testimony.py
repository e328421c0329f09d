"""Testimony: what the participant's prose says about a claim (never evidence).

The judge flags ``testimony_disagrees`` when the prose's stance contradicts the verdict; the
re-check queue reads the same stance to find self-declared falsifications.
"""

from __future__ import annotations

import re
import unicodedata

from openrepro.claims.records import ClaimView
from openrepro.logbooks.records import LogbookRecord

__all__ = ["testimony_stance"]

_POSITIVE = re.compile(r"\b(verified|reproduced|confirmed|holds|replicated|success)", re.I)
_NEGATIVE = re.compile(
    r"\b(falsified|not reproduced|could not reproduce|failed to reproduce|does not hold|"
    r"contradict\w*|refuted|fails)",
    re.I,
)


def testimony_stance(record: LogbookRecord, claim: ClaimView) -> str | None:
    """What the participant's prose says about this claim: "positive", "negative" or None."""
    names = (claim.id, f"{claim.key}:", f"{claim.key} ", f"claim {claim.key[1:]}")
    stances: set[str] = set()
    for statement in record.testimony:
        for line in statement.text.splitlines():
            text = unicodedata.normalize("NFKC", line)
            if not any(name.lower() in text.lower() for name in names):
                continue
            if _NEGATIVE.search(text):
                stances.add("negative")
            elif _POSITIVE.search(text):
                stances.add("positive")
    return stances.pop() if len(stances) == 1 else None
