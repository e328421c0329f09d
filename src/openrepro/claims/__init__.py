"""Claims: grounded extraction (LLM + code checks), curation with history, values and scale."""

from openrepro.claims.extract import PROMPT_VERSION, extract_claims, extract_paper
from openrepro.claims.records import (
    ClaimView,
    ExtractedClaim,
    ExtractionOutput,
    ExtractionReport,
    PaperExtraction,
    Quote,
)
from openrepro.claims.service import (
    add_claim,
    edit_claim,
    get_claim,
    list_claims,
    remove_claim,
    split_claim_id,
)
from openrepro.claims.text import candidate_sentences, locate
from openrepro.claims.values import ReportedValue, Scale, parse_scale, parse_values

__all__ = [
    "PROMPT_VERSION",
    "ClaimView",
    "ExtractedClaim",
    "ExtractionOutput",
    "ExtractionReport",
    "PaperExtraction",
    "Quote",
    "ReportedValue",
    "Scale",
    "add_claim",
    "candidate_sentences",
    "edit_claim",
    "extract_claims",
    "extract_paper",
    "get_claim",
    "list_claims",
    "locate",
    "parse_scale",
    "parse_values",
    "remove_claim",
    "split_claim_id",
]
