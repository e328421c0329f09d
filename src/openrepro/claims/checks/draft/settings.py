"""Numbers that are settings of the experiment, not values a claim reports: the one predicate
(:func:`is_setting`) the drafting rules and the audit share, and a claim's scale.

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import _APPROX, _Clause
from openrepro.claims.values import (
    NumberMention,
    Scale,
    find_numbers,
    parse_scale,
)

__all__ = ["is_setting"]


_SETTING_AFTER = re.compile(
    r"^\s?(?:%\s)?(?:sparsity|simulations?|samples?|steps?|timesteps?|epochs?|-?shot|iterations?|"
    r"components?|tasks?|batch|parameters?|params|layers?|bits?|-bit|rounds?|seeds?|repeats|"
    r"tokens?|examples|trajectories|episodes|predator|synthetic|measurements|policies|"
    r"representation|adapters?|datasets?|benchmark|models?|GB|[KMB]\b|mark|timestep|"
    r"valid summary|(?:[a-z-]+\s)?budgets?\b|(?:prediction|confidence|credible)\s+intervals?)",
    re.IGNORECASE,
)


_SETTING_UNITS = {
    "day",
    "days",
    "step",
    "steps",
    "epoch",
    "epochs",
    "token",
    "tokens",
    "parameter",
    "parameters",
    "param",
    "params",
    "K",
    "M",
    "B",
    "T",
}


_SAMPLE_COUNT = re.compile(
    r"^\s?(?:[A-Za-z-]+\s){0,2}?(?:draws|trials|runs|repetitions|replicates|rollouts|samples|"
    r"simulations|seeds|episodes|steps|iterations|queries|prompts|trajectories|days|weeks|months|"
    r"mice|subjects|participants|patients|classes)\b",
    re.IGNORECASE,
)


#: What stands just before a setting's number: "batch size of 64", "k = 5", "after 3 epochs",
#: "within 100 steps", "with only 8", "a threshold of 0.95", "Figure 3", "± 0.2", a metric's
#: cut-off after "@" ("TPR@5%", "Acc@0.5", "pass@1"). An equals sign after a correlation's name
#: ("r = 0.91", "rho = 0.8") reports a result, not a setting.
_SETTING_BEFORE = re.compile(
    r"(?:batch sizes?(?: of)?|sizes? of|rate of|decay of|coefficient of|patch size|"
    r"(?<!\b[rR])(?<!\b[rR]\s)(?<!rho)(?<!rho\s)(?<!\u03c1)(?<!\u03c1\s)\s?=|[$^@]|equation|eqn\.?|section|figure|table|level|"
    r"room|gamma|epsilon|lambda|budgets?(?: of)?|values of|\bk|\bK|first|after|"
    r"trained (?:on|with|for)|with(?: only)?|at(?: an?)?|threshold of|imbalance factor|"
    r"standard error of|\+-|\+/-|\u00b1|up to \$?\w+=?)\s*\(?\s*$",
    re.IGNORECASE,
)
#: A bound's words before a number ("at least", "about", "<"): a setting's number may carry
#: one ("after at least 3 epochs").
_QUALIFIERS = re.compile(
    rf"(?:{_APPROX}|at least|more than|less than|below|above|over|under|"
    r"greater than|exceed\w*|around or above|[<>]|\s)+$",
    re.IGNORECASE,
)
#: "low thresholds (1.0, 2.0)": the values swept.
_SWEPT = re.compile(
    r"\b(?:thresholds?|sizes?|rates?|values|settings|levels|budgets?)\s*\([^()]*$", re.IGNORECASE
)


def is_setting(text: str, number: NumberMention) -> bool:
    """Whether ``number`` (found in ``text``) is a setting of the experiment (a size, a
    budget, a threshold, a count of runs or samples, a hyperparameter, a reference to a
    figure), not a value the claim reports: the one answer the drafting rules (which numbers a
    relation may compare) and the audit (which numbers a check must use) share."""
    after = text[number.end :]
    if number.unit in _SETTING_UNITS or _SETTING_AFTER.match(after):
        return True
    if _SAMPLE_COUNT.match(after) and number.unit != "%" and "." not in number.text:
        return True  # "10^6 draws", "5 random seeds"; not "94.9 over three seeds"
    before = text[: number.start]
    if _SWEPT.search(before):
        return True
    return bool(
        _SETTING_BEFORE.search(before) or _SETTING_BEFORE.search(_QUALIFIERS.sub("", before))
    )


def _not_a_value(text: str, number: NumberMention) -> bool:
    """Not the value a bound or an equality states, though not a setting either (the audit
    still counts it among the numbers a check must use): "improves X by (at least) 5%", an
    amount of change (the difference rules read it as a margin), and "within 100 steps" or
    "within 0.5 of each other", a horizon or a tolerance."""
    before = _QUALIFIERS.sub("", text[: number.start])
    return bool(re.search(r"\b(?:by|within)\s*\(?\s*$", before, re.I))


def _not_compared(c: _Clause, number: NumberMention) -> bool:
    """A number no bound, equality or plain difference compares with: a setting, an amount of
    change or a tolerance."""
    return is_setting(c.text, number) or _not_a_value(c.text, number)


def _scale_of(text: str) -> Scale:
    """The settings a claim states ("within 100,000 steps", "over 10^6 random draws"): they are
    its scale, not quantities to measure."""
    scale = parse_scale(text)
    if not scale.data_size:
        for mention in find_numbers(text):
            count = _SAMPLE_COUNT.match(text[mention.end :])
            if count and not re.search(r"\bsteps?|iterations?\b", count.group(0)):
                scale.data_size = f"{mention.text}{count.group(0)}".strip()
                break
    return scale
