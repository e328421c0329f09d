"""The tables of the frozen dataset: their columns, types and meaning (one place for the Parquet
schema, the JSON Lines key order and the dataset card)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa  # type: ignore[import-untyped]

__all__ = ["TABLES", "Column", "TableSpec", "arrow_schema"]

_STR = pa.string()
_INT = pa.int64()
_BOOL = pa.bool_()
_FLOAT = pa.float64()
_TIME = pa.timestamp("us", tz="UTC")
_STRS = pa.list_(pa.string())


@dataclass(frozen=True)
class Column:
    """One column: ``json`` columns hold canonical JSON text in Parquet (sorted keys, compact
    separators) and the same value inlined as an object in the JSON Lines copy."""

    name: str
    type: pa.DataType
    description: str
    json: bool = False


@dataclass(frozen=True)
class TableSpec:
    name: str
    description: str
    columns: tuple[Column, ...]
    order: str  # how rows are sorted (for the card)

    @property
    def schema(self) -> pa.Schema:
        return arrow_schema(self.columns)


def arrow_schema(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.type) for c in columns])


def _c(name: str, type_: pa.DataType, description: str, *, json: bool = False) -> Column:
    return Column(name, type_, description, json)


_PAPERS = TableSpec(
    "papers",
    "Every paper of the venue (attempted or not); the full text is not redistributed.",
    (
        _c("paper_id", _INT, "Internal id (join key of the other tables)."),
        _c("paper", _STR, "Venue id (the OpenReview id where one exists)."),
        _c("title", _STR, "Title."),
        _c("authors", _STRS, "Authors, in order."),
        _c("abstract", _STR, "Abstract."),
        _c("status", _STR, "Venue status (e.g. poster, oral)."),
        _c("track", _STR, "Track."),
        _c("decision", _STR, "Decision text."),
        _c("site_url", _STR, "Paper page."),
        _c("pdf_url", _STR, "PDF link."),
        _c("arxiv_id", _STR, "arXiv id, if any."),
        _c("keywords", _STRS, "Keywords."),
        _c("source", _STR, "Where the paper was imported from."),
        _c("licence", _STR, "The paper's own licence, where known."),
        _c("has_full_text", _BOOL, "Whether openrepro held the paper's full text."),
    ),
    "paper_id",
)

_CLAIMS = TableSpec(
    "claims",
    "Every claim, active or removed, grounded in verbatim quotes of its paper.",
    (
        _c("claim_id", _INT, "Internal id."),
        _c("paper_id", _INT, "Paper (papers.paper_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("key", _STR, "Stable key within the paper (C1, C2, ...); cited as paper/key."),
        _c("text", _STR, "The claim."),
        _c("kind", _STR, "result | efficiency | theory | qualitative."),
        _c("status", _STR, "active | removed (removed claims never count)."),
        _c("origin", _STR, "Who wrote it (llm, organizer, ...)."),
        _c("quotes", _STR, "Quotes with character offsets into the paper text (JSON).", json=True),
        _c(
            "reported",
            _STR,
            "Reported values: metric, value, unit, dataset, setting (JSON).",
            json=True,
        ),
        _c("scale", _STR, "Scale the paper used: model size, data, steps (JSON).", json=True),
        _c(
            "provenance",
            _STR,
            "How the claim was extracted: model, prompt version (JSON).",
            json=True,
        ),
        _c("created_at", _TIME, "When the claim was stored."),
    ),
    "claim_id",
)

_LOGBOOKS = TableSpec(
    "logbooks",
    "The logbook index: one row per submitted logbook revision.",
    (
        _c("logbook_id", _INT, "Internal id."),
        _c("paper_id", _INT, "Paper (papers.paper_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("participant", _STR, "Handle of the participant."),
        _c("team", _STR, "Team, if any."),
        _c("revision", _STR, "Revision label."),
        _c("current", _BOOL, "The participant's newest revision for this paper (the one counted)."),
        _c("title", _STR, "Title."),
        _c("source_url", _STR, "Where the logbook was published (e.g. a static Space)."),
        _c("format", _STR, "trackio | bundle."),
        _c("submitted_at", _TIME, "Submission time."),
    ),
    "logbook_id",
)

_VERDICTS = TableSpec(
    "verdicts",
    "Every verdict of the judge per (logbook, claim, judge config), with its checked evidence "
    "pointers, flags and provenance level.",
    (
        _c("verdict_id", _INT, "Internal id."),
        _c("logbook_id", _INT, "Logbook (logbooks.logbook_id)."),
        _c("claim_id", _INT, "Claim (claims.claim_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "Claim key within the paper."),
        _c("participant", _STR, "Handle of the logbook's participant."),
        _c("team", _STR, "Team, if any."),
        _c("verdict", _STR, "The judge's own value: verified | falsified | toy | inconclusive."),
        _c(
            "current",
            _BOOL,
            "Counted in consensus and outcomes (newest verdict of the newest "
            "revision, active claim).",
        ),
        _c(
            "effective",
            _STR,
            "The value counted (after organizer edits and re-checks, and the "
            "provenance floor for verified); null when not current.",
        ),
        _c("edited", _BOOL, "An organizer edit or re-check changed it (see verdict_edits)."),
        _c(
            "provenance",
            _STR,
            "Provenance level: testimony < self-recorded < reviewed < replayed < attested.",
        ),
        _c("rationale", _STR, "The judge's rationale."),
        _c(
            "evidence",
            _STR,
            "Checked evidence pointers: file + line, metric key + step, artifact hash (JSON).",
            json=True,
        ),
        _c("flags", _STRS, "Flags raised while judging (e.g. injected instructions)."),
        _c("judge_config", _STR, "Judge configuration."),
        _c("judge_model", _STR, "Model of the judge."),
        _c("prompt_version", _STR, "Prompt version."),
        _c("tokens_in", _INT, "Prompt tokens."),
        _c("tokens_out", _INT, "Completion tokens."),
        _c("seconds", _FLOAT, "Seconds spent judging."),
        _c("created_at", _TIME, "When the verdict was recorded."),
    ),
    "verdict_id",
)

_VERDICT_EDITS = TableSpec(
    "verdict_edits",
    "Organizer overrides and re-check decisions: the old value is kept with who, when and why.",
    (
        _c("edit_id", _INT, "Internal id."),
        _c("verdict_id", _INT, "Verdict (verdicts.verdict_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "Claim key."),
        _c("old_value", _STR, "Value before."),
        _c("new_value", _STR, "Value after."),
        _c("editor", _STR, "Who changed it."),
        _c("reason", _STR, "Why."),
        _c("source", _STR, "override (an organizer) | recheck (a re-check decision)."),
        _c("created_at", _TIME, "When."),
    ),
    "edit_id",
)

_CLAIM_EDITS = TableSpec(
    "claim_edits",
    "Organizer changes to claims: field, old and new value, who, when, why.",
    (
        _c("edit_id", _INT, "Internal id."),
        _c("claim_id", _INT, "Claim (claims.claim_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "Claim key."),
        _c("field", _STR, "The field changed."),
        _c("old_value", _STR, "Value before (JSON).", json=True),
        _c("new_value", _STR, "Value after (JSON).", json=True),
        _c("editor", _STR, "Who changed it."),
        _c("reason", _STR, "Why."),
        _c("created_at", _TIME, "When."),
    ),
    "edit_id",
)

_CONSENSUS = TableSpec(
    "claim_consensus",
    "The challenge's verdict on every active claim across independent logbooks (teams).",
    (
        _c("claim_id", _INT, "Claim (claims.claim_id)."),
        _c("paper_id", _INT, "Paper (papers.paper_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "Claim key."),
        _c(
            "consensus",
            _STR,
            "verified | falsified | contested | toy-only | inconclusive | unattempted.",
        ),
        _c("logbooks", _INT, "Logbooks with a current verdict on the claim."),
        _c("verified", _INT, "Independent groups whose verdict is verified."),
        _c("falsified", _INT, "Independent groups whose verdict is falsified."),
        _c("toy", _INT, "Independent groups with toy evidence only."),
        _c("inconclusive", _INT, "Independent groups that established nothing."),
        _c("overridden", _INT, "Verdicts whose value an organizer edit or a re-check changed."),
        _c(
            "level",
            _STR,
            "A verified claim: the strongest provenance level among the verified verdicts that "
            "count it (testimony < self-recorded < reviewed < replayed < attested); else null.",
        ),
        _c(
            "below_minimum",
            _STR,
            "A claim not verified: the strongest level of its verdicts the judge found verified "
            "on evidence below min_provenance_verified (shown, not counted); else null.",
        ),
    ),
    "paper_id, claim_id",
)

_OUTCOMES = TableSpec(
    "paper_outcomes",
    "One row per paper: claim consensus counts and the outcome rows it belongs to.",
    (
        _c("paper_id", _INT, "Paper (papers.paper_id)."),
        _c("paper", _STR, "Venue id."),
        _c("title", _STR, "Title."),
        _c("status", _STR, "One label: the most telling outcome."),
        _c("claims", _INT, "Active claims."),
        _c("logbooks", _INT, "Current logbooks."),
        _c("verified", _INT, "Claims whose consensus is verified."),
        _c("falsified", _INT, "... falsified."),
        _c("contested", _INT, "... contested."),
        _c("toy_only", _INT, "... toy-only."),
        _c("inconclusive", _INT, "... inconclusive."),
        _c("unattempted", _INT, "... unattempted."),
        _c("examined", _BOOL, "At least one judged logbook."),
        _c("any_verified", _BOOL, "At least one claim verified."),
        _c("fully_reproduced", _BOOL, "Every claim verified."),
        _c("partially_reproduced", _BOOL, "At least one verified, none falsified or contested."),
        _c("mixed", _BOOL, "At least one verified and one falsified or contested."),
        _c("falsified_any", _BOOL, "At least one claim falsified or contested."),
        _c("all_falsified", _BOOL, "Every claim falsified, none verified."),
        _c("contested_any", _BOOL, "At least one contested claim."),
        _c("toy_only_paper", _BOOL, "Only toy evidence."),
        _c("nothing_established", _BOOL, "Only inconclusive."),
        _c(
            "verified_levels",
            _STR,
            "Verified claims per provenance level of their strongest counted evidence (JSON).",
            json=True,
        ),
        _c(
            "below_minimum",
            _STR,
            "Claims not counted verified whose verified verdicts all rest on evidence below "
            "min_provenance_verified, per the strongest such level (JSON).",
            json=True,
        ),
    ),
    "paper_id",
)

_PARTICIPANTS = TableSpec(
    "participants",
    "Participants by handle and team only (no names, emails or tokens).",
    (
        _c("participant", _STR, "Handle (the HF username where they have one)."),
        _c("team", _STR, "Team, if any."),
    ),
    "participant",
)

#: The fields of :class:`openrepro.outcomes.AuthorResponseView`, the newest response per claim.
_AUTHOR_RESPONSES = TableSpec(
    "author_responses",
    "What the papers' authors answered about the findings (the newest answer per claim).",
    (
        _c("id", _INT, "Internal id of the response."),
        _c("paper_id", _INT, "Paper (papers.paper_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "The claim, as paper/key."),
        _c("response", _STR, "agrees | disputes | fixed | no-answer."),
        _c("version", _STR, "For fixed: the version of the paper that fixes it."),
        _c("note", _STR, "The authors' note."),
        _c("recorded_by", _STR, "Who recorded the response."),
        _c("created_at", _TIME, "When."),
    ),
    "paper_id, claim",
)

_REVIEW_TASKS = TableSpec(
    "review_tasks",
    "Blinded human review tasks for claims with a human check, with the figures of the answers.",
    (
        _c("task_id", _INT, "Internal id of the task (join key of review_answers)."),
        _c("task", _STR, "Task name."),
        _c("logbook_id", _INT, "Logbook reviewed (logbooks.logbook_id)."),
        _c("claim_id", _INT, "Claim (claims.claim_id)."),
        _c("paper", _STR, "Venue id of the paper."),
        _c("claim", _STR, "Claim key."),
        _c("question", _STR, "The question shown to reviewers."),
        _c("scale", _STR, "usable (one output at a time) | preference (two, blinded sides)."),
        _c("items", _STR, "The items: files the logbook's recorded runs produced.", json=True),
        _c("seed", _INT, "Seed of every reviewer's order and sides."),
        _c("repeat_share", _FLOAT, "Share of items shown twice, for self-agreement."),
        _c(
            "figures",
            _STR,
            "The decision from the answers (verdict, rule, interval, kappa/alpha, per-reviewer "
            "self-agreement, flags), reviewers pseudonymised.",
            json=True,
        ),
        _c("created_at", _TIME, "When the task was made."),
    ),
    "task_id",
)

_REVIEW_ANSWERS = TableSpec(
    "review_answers",
    "Every answer of every reviewer; reviewers pseudonymised (reviewer-N across the challenge).",
    (
        _c("task_id", _INT, "Task (review_tasks.task_id)."),
        _c("reviewer", _STR, "Pseudonym of the reviewer (the same person has the same one)."),
        _c("role", _STR, "self | team | organizer | invited (the last two are independent)."),
        _c("slot", _INT, "Position in the reviewer's schedule."),
        _c("item", _STR, "Item id."),
        _c("shown_order", _STR, "AB: A on the left; BA: B on the left."),
        _c("answer", _STR, "Unblinded answer: A | B | same, or usable | not usable."),
        _c("repeat", _BOOL, "A repeated item (self-agreement)."),
        _c("seconds", _FLOAT, "Server time from showing the item to receiving the answer."),
        _c("answered_at", _TIME, "When."),
    ),
    "task_id, reviewer, slot",
)

#: Every table, in the order of the card.
TABLES: tuple[TableSpec, ...] = (
    _PAPERS,
    _CLAIMS,
    _LOGBOOKS,
    _VERDICTS,
    _VERDICT_EDITS,
    _CLAIM_EDITS,
    _CONSENSUS,
    _OUTCOMES,
    _PARTICIPANTS,
    _AUTHOR_RESPONSES,
    _REVIEW_TASKS,
    _REVIEW_ANSWERS,
)
