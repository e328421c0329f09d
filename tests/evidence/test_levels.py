"""Provenance levels: one ordering, and helpers others import (board, outcomes)."""

from __future__ import annotations

import pytest

import openrepro.evidence as evidence
import openrepro.provenance as provenance
from openrepro.errors import ConfigError
from openrepro.evidence import PROVENANCE_LEVELS, at_least, check_level, strongest, weakest


def test_levels_are_ordered_weakest_first() -> None:
    assert PROVENANCE_LEVELS == ("testimony", "self-recorded", "reviewed", "replayed", "attested")
    # an independent human review outranks the participant's own record, not a re-run
    assert at_least("reviewed", "self-recorded") and not at_least("reviewed", "replayed")
    assert at_least("attested", "replayed") and at_least("replayed", "replayed")
    assert not at_least("self-recorded", "replayed")
    assert not at_least("testimony", "self-recorded")


def test_strongest_and_weakest() -> None:
    assert strongest(["self-recorded", "attested", "replayed"]) == "attested"
    assert weakest(["attested", "self-recorded", "replayed"]) == "self-recorded"
    assert weakest([]) == "testimony"


def test_unknown_level_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown provenance level"):
        check_level("verified")
    with pytest.raises(ConfigError):
        at_least("replayed", "gold")


def test_every_exported_name_resolves() -> None:
    for package in (evidence, provenance):
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{package.__name__}.{name}"
