"""Run-time configuration of the agent graph (LangGraph ``context_schema``).

Each field has a description (shown in LangGraph Studio) and an environment fallback:
a field left at its default takes ``DEEPREAD_<NAME>`` when that is set, as the
react-agent template does.
"""

from __future__ import annotations

import os
from dataclasses import MISSING, dataclass, field, fields
from typing import Any


def _env_value(current: Any, raw: str) -> Any:
    if isinstance(current, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(current, int):
        return int(raw)
    if isinstance(current, float):
        return float(raw)
    if isinstance(current, list) or current is None:
        return [int(x) for x in raw.replace(" ", "").split(",") if x]
    return raw


@dataclass(kw_only=True)
class Context:
    """How one run of the DeepRead agent is configured."""

    model: str = field(default="", metadata={
        "description": "Chat model name for an OpenAI-compatible endpoint (OPENAI_API_KEY, "
                       "OPENAI_BASE_URL), e.g. 'gpt-4o-mini' or 'openai:gpt-4o-mini'. Empty: "
                       "the offline extractive policy (no LLM)."})
    store: str = field(default="", metadata={
        "description": "Store directory or Qdrant URL. Empty: DEEPREAD_STORE, QDRANT_URL, "
                       "or the per-user data directory."})
    collection: str = field(default="default", metadata={
        "description": "Collection to answer from."})
    documents: list[int] | None = field(default=None, metadata={
        "description": "doc_ids in scope (TOC and retrieval); None: all documents."})
    k: int = field(default=5, metadata={
        "description": "Hits per retrieve call (Algorithm 1's K)."})
    window: list[int] = field(default_factory=lambda: [0, 0], metadata={
        "description": "Scanning window [up, down] added around each hit, inside its "
                       "section."})
    max_rounds: int = field(default=50, metadata={
        "description": "Model calls with tools per question (paper: T=50); then the model "
                       "must answer."})
    toc_budget: int = field(default=4000, metadata={
        "description": "Token budget of the TOC in the system prompt; deeper levels are "
                       "collapsed first to fit."})
    temperature: float = field(default=0.0, metadata={
        "description": "Sampling temperature of the chat model."})
    retrieval_mode: str = field(default="hybrid", metadata={
        "description": "Ranking for retrieve: 'dense', 'bm25' or 'hybrid' (RRF of both)."})
    model_retries: int = field(default=3, metadata={
        "description": "Retries of a transient model error (429, 5xx, timeout), with "
                       "exponential backoff."})
    model_timeout: float = field(default=120.0, metadata={
        "description": "Seconds one model response may take in all, retries included; "
                       "then the turn ends with stop_reason 'error'. 0: no deadline."})
    ocr_model: str = field(default="", metadata={
        "description": "Ingest: vision model that reads PDF pages as images into Markdown "
                       "(the paper's OCR route). Empty: the PDF text layer."})
    vision_model: str = field(default="", metadata={
        "description": "Ingest: vision model that describes figures (cached). Empty: none."})
    describe_model: str = field(default="", metadata={
        "description": "Ingest: chat model writing a one-line summary per section for the "
                       "TOC (cached, budgeted). Empty: none."})
    follow_references: bool = field(default=True, metadata={
        "description": "Offer the follow_reference tool when the question or a tool "
                       "result mentions 'Table 3', 'Section 4.2', 'page 12'…"})
    check_sufficiency: bool = field(default=True, metadata={
        "description": "Check that the cited evidence supports the answer before "
                       "returning it; if not, read the cited paragraph's section once "
                       "and re-answer, else abstain (stop_reason 'no_evidence')."})
    sufficiency_threshold: float = field(default=0.3, metadata={
        "description": "Lexical check: share of the question's content words the cited "
                       "paragraphs must contain (devset: answerable questions 0.35-1.0)."})
    notes_budget: int = field(default=12000, metadata={
        "description": "Tokens the messages sent to the model may take; past it, older "
                       "tool results are sent as compact evidence notes. 0: never."})

    def __post_init__(self) -> None:
        for f in fields(self):
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            raw = os.environ.get(f"DEEPREAD_{f.name.upper()}")
            if raw is not None and getattr(self, f.name) == default:
                setattr(self, f.name, _env_value(default, raw))
        if len(self.window) != 2 or min(self.window) < 0:
            raise ValueError(f"window must be [up, down] with both >= 0, got {self.window}")
        if self.retrieval_mode not in ("dense", "bm25", "hybrid"):
            raise ValueError(f"retrieval_mode must be dense, bm25 or hybrid, "
                             f"not {self.retrieval_mode!r}")
