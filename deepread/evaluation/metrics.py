"""The paper's behaviour metrics per question, and their summaries over questions.

Per question (§4.4, Table 2, Fig. 3): the first action; whether it starts with Retrieve
and reads later (S(s→r)); Retrieve and Read call counts and their ratio C_s/C_r; tool
calls, rounds, tokens. A summary averages a group of per-question records (a mode, or a
mode and a question type): accuracy over judged answers, evidence shares over questions
with gold evidence (gold pages over questions with pages; abstention over the
unanswerable and the answerable questions apart), S(s→r) as a share of questions and
C_s/C_r as the ratio of the *totals* (a per-question ratio is undefined whenever a
question has no Read).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

RETRIEVE, READ = "retrieve", "read_section"


def first_action(names: Sequence[str]) -> str | None:
    """The first tool called, or None when the model answered without tools."""
    return names[0] if names else None


def search_then_read(names: Sequence[str]) -> bool:
    """S(s→r) for one question: the first call is Retrieve and a Read comes later."""
    return bool(names) and names[0] == RETRIEVE and READ in names[1:]


def call_ratio(n_retrieve: int, n_read: int) -> float | None:
    """C_s/C_r: Retrieve calls per Read call; ``inf`` without Reads, None without either."""
    if n_read:
        return n_retrieve / n_read
    return math.inf if n_retrieve else None


def behaviour(calls: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Behaviour metrics of one trajectory from its tool calls ``[{name, args}]``."""
    names = [c["name"] for c in calls]
    n_retrieve, n_read = names.count(RETRIEVE), names.count(READ)
    return {
        "first_action": first_action(names),
        "n_retrieve": n_retrieve,
        "n_read": n_read,
        "tool_calls": len(names),
        "s_to_r": search_then_read(names),
        "cs_cr": call_ratio(n_retrieve, n_read),
    }


def _mean(values: Iterable[float | int | None]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Summary of one group of per-question records (see the module docstring)."""
    metrics = [r["metrics"] for r in records]
    judged = [m["judge"] for m in metrics if m.get("judge") is not None]
    agent = [m for m in metrics if m.get("s_to_r") is not None]  # flat modes call no tools
    n_retrieve = sum(m.get("n_retrieve", 0) for m in agent)
    n_read = sum(m.get("n_read", 0) for m in agent)
    obs = [m.get("observation_tokens", 0) for m in metrics]
    return {
        "n": len(records),
        "judged": len(judged),
        "accuracy": sum(judged) / len(judged) if judged else None,
        "with_evidence": sum(m.get("evidence_read") is not None for m in metrics),
        "evidence_located": _mean(m.get("evidence_located") for m in metrics),
        "evidence_read": _mean(m.get("evidence_read") for m in metrics),
        "with_pages": sum(m.get("gold_page_shown") is not None for m in metrics),
        "gold_page_shown": _mean(m.get("gold_page_shown") for m in metrics),
        # What the answer shows (evaluation/answer_evidence.py): the same tests on its text,
        # a gold page among its citations, gold evidence in its first citation.
        "evidence_in_answer": _mean(m.get("evidence_in_answer") for m in metrics),
        "answer_cites_gold_page": _mean(m.get("answer_cites_gold_page") for m in metrics),
        "first_quote_gold": _mean(m.get("first_quote_gold") for m in metrics),
        "first_line_gold": _mean(m.get("first_line_gold") for m in metrics),
        # Benchmarks asked of a whole library: was the question's own document read?
        "own_document_read": _mean(m.get("own_document_read") for m in metrics),
        # Benchmarks: abstention (stop_reason "no_evidence") on the questions the
        # document cannot answer, and false abstention on the ones it can.
        "unanswerable": sum(m.get("answerable") is False for m in metrics),
        "abstain_unanswerable": _mean(
            m["abstained"] for m in metrics if m.get("answerable") is False and "abstained" in m
        ),
        "abstain_answerable": _mean(
            m["abstained"] for m in metrics if m.get("answerable") is True and "abstained" in m
        ),
        "observation_tokens": _mean(obs),
        "spend": _mean(m.get("spend") for m in metrics),
        "observation_tokens_median": statistics.median(obs) if obs else None,
        "first_action_retrieve": (
            _mean(m.get("first_action") == RETRIEVE for m in agent) if agent else None
        ),
        "s_to_r": _mean(m["s_to_r"] for m in agent) if agent else None,
        "cs_cr": call_ratio(n_retrieve, n_read) if agent else None,
        "n_retrieve": n_retrieve,
        "n_read": n_read,
        "tool_calls": _mean(m.get("tool_calls", 0) for m in metrics),
        "rounds": _mean(m.get("rounds", 0) for m in metrics),
        "input_tokens": _mean(m.get("input_tokens", 0) for m in metrics),
        "output_tokens": _mean(m.get("output_tokens", 0) for m in metrics),
        "tokens_estimated": any(m.get("tokens_estimated") for m in metrics),
        "stop_reasons": dict(Counter(r.get("stop_reason") or "?" for r in records)),
        "seconds": _mean(r.get("elapsed_s") for r in records),
    }


def summarize_by_type(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"overall": …, "by_type": {type: …}}`` for one mode's records."""
    types = sorted({r.get("type") or "untyped" for r in records})
    return {
        "overall": summarize(records),
        "by_type": {
            t: summarize([r for r in records if (r.get("type") or "untyped") == t]) for t in types
        },
    }


def json_safe(value: Any) -> Any:
    """``value`` with infinities as the string ``"inf"`` (JSON has no infinity)."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    """Inverse of :func:`json_safe` for the ratio fields."""
    if value == "inf":
        return math.inf
    if isinstance(value, dict):
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value
