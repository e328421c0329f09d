"""Evidence provenance beyond what a logbook records: replays and attested runs
(docs/provenance.md).

The levels and the consistency checks of self-recorded evidence are :mod:`openrepro.evidence`
(``levels``, ``checks``); this package raises (or lowers) a run's level by doing something:
re-running its command (:mod:`~openrepro.provenance.replay`) or reading the job platform's own
record of it (:mod:`~openrepro.provenance.attest`). Results go to the ``replays`` table, which
:func:`openrepro.evidence.stored_levels` reads.
"""

from openrepro.provenance.attest import (
    JobEvidence,
    attest_if_cited,
    attest_logbook,
    attest_run,
)
from openrepro.provenance.replay import (
    ReplayReport,
    ReplayResult,
    replay_all,
    replay_logbook,
    replay_run,
    runs_for_claim,
)
from openrepro.provenance.sandbox import SandboxLimits, run_sandboxed, sandbox_problem

__all__ = [
    "JobEvidence",
    "ReplayReport",
    "ReplayResult",
    "SandboxLimits",
    "attest_if_cited",
    "attest_logbook",
    "attest_run",
    "replay_all",
    "replay_logbook",
    "replay_run",
    "run_sandboxed",
    "runs_for_claim",
    "sandbox_problem",
]
