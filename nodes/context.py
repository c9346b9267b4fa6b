"""Run-time configuration of the graphs (LangGraph ``context_schema``), validated.

:class:`Context` configures one run of the agent; :class:`IngestContext`, smaller, one
run of the ingest graph. Each field has a description and constraints that LangGraph
turns into the JSON schema Studio draws its form from, and the same constraints are
checked when a context is made — from Python, or by LangGraph from a server request's
dict — so a bad value is refused with a message naming the field, never a ``TypeError``
deep inside a node:

* **types** are strict: ``k="abc"``, ``k=3.7`` and ``k=True`` are refused, not coerced;
* **ranges**: ``k >= 1``, ``max_rounds >= 1``, a window of two numbers ``>= 0``…;
* **unknown fields** (``max_round``, ``K``) are refused with the closest field named.

A field the caller did not give takes ``DEEPREAD_<NAME>`` from the environment when that
is set (read through :mod:`deepread.environment.settings`), else its default: explicit values win,
including one equal to the default (``Context(k=5)`` with ``DEEPREAD_K=10`` is 5).
:attr:`Context.given` says which fields the caller gave.
"""

from __future__ import annotations

import difflib
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, get_type_hints

from pydantic import Field as Limits
from pydantic import TypeAdapter, ValidationError

from deepread.environment.settings import current as current_settings
from deepread.nodes.names import MODEL_NODES
from deepread.text.hygiene import brief

#: Unknown names and problems listed in one message (the rest are counted).
_LISTED = 5

#: Bounds on what a question and a tool call may ask for (the defaults of the
#: ``max_*`` fields; on a server only the operator changes them): each is far above
#: what a real question or a model's call needs, and each bounds the work and memory one
#: request can cost (docs/reliability.md, "Bounds").
MAX_QUESTION_CHARS = 200_000  # ~50,000 tokens
MAX_QUERIES = 10
MAX_QUERY_CHARS = 2_000
MAX_READ_PARAGRAPHS = 200
MAX_TOOL_CALLS = 16


class ContextError(ValueError):
    """A context value is refused; the message names the field and what it accepts."""


def _describe(text: str, **more: Any) -> dict[str, Any]:
    return {"description": text, **more}


@cache
def _checkers(cls: type) -> dict[str, TypeAdapter]:
    """One strict validator per field, from its (constrained) annotation."""
    hints = get_type_hints(cls, include_extras=True)
    return {f.name: TypeAdapter(hints[f.name]) for f in fields(cls)}


def _default(f: Field) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def _from_env(f: Field, raw: str) -> Any:
    """An environment string as the field's type (lists are comma-separated)."""
    current = _default(f)
    text = raw.strip()
    try:
        if isinstance(current, bool):
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off", ""):
                return False
            return raw
        if isinstance(current, int):
            return int(text)
        if isinstance(current, float):
            return float(text)
        if isinstance(current, list) or current is None:
            return [int(x) for x in text.replace(" ", "").split(",") if x] or None
    except ValueError:
        return raw  # refused below, with the variable named
    return raw


def _unknown(cls: type, names: list[str]) -> ContextError:
    known = [f.name for f in fields(cls)]
    lowered = {k.lower(): k for k in known}
    parts = []
    for name in names[:_LISTED]:
        # A name longer than any field cannot be a misspelling of one (and difflib's cost
        # grows with its length).
        close = (
            difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=0.6)
            if len(str(name)) <= 64
            else []
        )
        hint = f" (did you mean {lowered[close[0]]!r}?)" if close else ""
        parts.append(f"{brief(name)}{hint}")
    if len(names) > _LISTED:
        parts.append(f"and {len(names) - _LISTED} more")
    kind = cls.__name__.removeprefix("Served")  # the served schemas subclass the public ones
    plural = "s" if len(names) > 1 else ""
    return ContextError(
        f"unknown {kind} field{plural} {', '.join(parts)}; the fields are: {', '.join(known)}"
    )


def _check(cls: type, name: str, value: Any, source: str | None) -> Any:
    if isinstance(value, tuple):
        value = list(value)  # Python callers write windows as tuples
    try:
        return _checkers(cls)[name].validate_python(value, strict=True)
    except ValidationError as exc:
        raise ContextError(f"{_where(name, value, source)}: {problems(exc)}") from None


def _where(name: str, value: Any, source: str | None) -> str:
    if source:
        return f"{source}={brief(value)} (for context field {name!r})"
    return f"context field {name!r} = {brief(value)} ({type(value).__name__})"


def problems(exc: ValidationError) -> str:
    """What pydantic found wrong, each kind of problem once and the first few only: a
    list of 100,000 bad items is one line, not 100,000."""
    seen: dict[str, None] = {}
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in error["loc"] if not isinstance(p, int))
        # A validator's own ValueError already says what is wrong, in our words.
        msg = error["msg"].removeprefix("Value error, ")
        seen.setdefault(f"{where}: {msg}" if where else msg)
    listed = list(seen)[:_LISTED]
    more = exc.error_count() - len(listed)
    return "; ".join(listed) + (f" (and {more} more problems)" if more > 0 else "")


@dataclass(kw_only=True, init=False)
class _ValidatedContext:
    """Keyword-only construction that checks names, types and ranges, with env defaults."""

    given: ClassVar[frozenset[str]]

    def __init__(self, **given: Any) -> None:
        names = [f.name for f in fields(self)]
        unknown = [k for k in given if k not in names]
        if unknown:
            raise _unknown(type(self), unknown)
        env = current_settings().context_defaults
        for f in fields(self):
            if f.name in given:
                value, source = given[f.name], None
            elif f.name in env:
                value, source = _from_env(f, env[f.name]), f"DEEPREAD_{f.name.upper()}"
            else:
                value, source = _default(f), None
            setattr(self, f.name, _check(type(self), f.name, value, source))
        # Which fields the caller gave, as opposed to defaults and environment values.
        object.__setattr__(self, "given", frozenset(given))


_STORE = field(
    default="",
    metadata=_describe(
        "Store directory or Qdrant URL. Empty: DEEPREAD_STORE, QDRANT_URL, or the per-user "
        "data directory. On a server only the operator sets it."
    ),
)
_COLLECTION = field(
    default="default",
    metadata=_describe(
        "Collection to read from or ingest into (1-64 letters, digits, '_' or '-')."
    ),
)
_NAME = "Model name: 'gpt-4o-mini', 'openai:gpt-4o-mini', 'ollama:llama3.1:8b' or an "


@dataclass(kw_only=True, init=False)
class Context(_ValidatedContext):
    """How one run of the DeepRead agent is configured."""

    store: str = _STORE
    collection: str = _COLLECTION
    # Studio's model picker: the "llm" kind of LangGraph's templates, and the nodes whose
    # model it is (json_schema_extra reaches the context's JSON schema; a server whose
    # operator lists DEEPREAD_SERVE_MODELS also offers them as its values, graphs/served.py).
    model: Annotated[str, {"__template_metadata__": {"kind": "llm"}}] = field(
        default="",
        metadata=_describe(
            _NAME + "OpenAI-compatible server's own name ('llama3.1:8b' via "
            "OPENAI_BASE_URL). Empty: the offline extractive policy (no LLM). On a server "
            "only the operator sets it, unless it offers clients a choice "
            "(DEEPREAD_SERVE_MODELS): then one of those.",
            json_schema_extra={"langgraph_nodes": list(MODEL_NODES)},
        ),
    )
    documents: Annotated[list[Annotated[int, Limits(ge=0)]] | None, Limits()] = field(
        default=None,
        metadata=_describe("doc_ids in scope (TOC and retrieval); null: all documents."),
    )
    k: Annotated[int, Limits(ge=1)] = field(
        default=5, metadata=_describe("Hits per retrieve call (Algorithm 1's K).")
    )
    page_tokens: Annotated[int, Limits(ge=0)] = field(
        default=750,
        metadata=_describe(
            "A retrieve page of short hits goes on past the k best with the next ones, up to "
            "2k in all, while it stays within this many tokens. 0: exactly k hits."
        ),
    )
    window: Annotated[list[Annotated[int, Limits(ge=0)]], Limits(min_length=2, max_length=2)] = (
        field(
            default_factory=lambda: [0, 0],
            metadata=_describe(
                "Scanning window [up, down] added around each hit, inside its section."
            ),
        )
    )
    max_rounds: Annotated[int, Limits(ge=1)] = field(
        default=50,
        metadata=_describe(
            "Model calls with tools per question (paper: T=50); then the model must answer."
        ),
    )
    toc_budget: Annotated[int, Limits(ge=1)] = field(
        default=4000,
        metadata=_describe(
            "Token budget of the TOC in the system prompt; deeper levels are collapsed first "
            "to fit."
        ),
    )
    temperature: Annotated[float, Limits(ge=0.0, le=2.0)] = field(
        default=0.0, metadata=_describe("Sampling temperature of the chat model.")
    )
    retrieval_mode: Literal["dense", "bm25", "hybrid"] = field(
        default="hybrid",
        metadata=_describe("Ranking for retrieve: 'dense', 'bm25' or 'hybrid' (RRF of both)."),
    )
    model_retries: Annotated[int, Limits(ge=0)] = field(
        default=3,
        metadata=_describe(
            "Retries of a transient model error (429, 5xx, timeout), with exponential "
            "backoff. On a server only the operator sets it."
        ),
    )
    model_timeout: Annotated[float, Limits(ge=0.0)] = field(
        default=120.0,
        metadata=_describe(
            "Seconds one model response may take in all, retries included; then the turn "
            "ends with stop_reason 'error'. 0: no deadline. On a server only the operator "
            "sets it."
        ),
    )
    follow_references: bool = field(
        default=True,
        metadata=_describe(
            "Offer the follow_reference tool when the question or a tool result mentions "
            "'Table 3', 'Section 4.2', 'page 12'…"
        ),
    )
    check_sufficiency: bool = field(
        default=True,
        metadata=_describe(
            "Check that the cited evidence supports the answer before returning it; if not, "
            "read the cited paragraph's section once and re-answer, else abstain "
            "(stop_reason 'no_evidence')."
        ),
    )
    support_threshold: Annotated[float, Limits(ge=0.0, le=1.0)] = field(
        default=0.34,
        metadata=_describe(
            "Sufficiency check: the cosine similarity (local MiniLM model, whatever the "
            "collection embeds with) the best cited paragraph must reach with what the "
            "question asks. 0: the lexical test (sufficiency_threshold) instead. Tuned on "
            "the FinanceBench and SyllabusQA dev folders "
            "(docs/history/benchmarks-2026.md §12)."
        ),
    )
    unused_term_support: Annotated[float, Limits(ge=0.0, le=1.0)] = field(
        default=0.42,
        metadata=_describe(
            "Sufficiency check: the similarity the best cited paragraph must reach instead "
            "(the higher of the two applies) when the question names a specific word its "
            "cited documents never use ('aprons' of a syllabus that never mentions them; "
            "nodes/sufficiency/unused_terms.py). 0: off, every question needs support_threshold. "
            "Used with the dense check only (support_threshold > 0)."
        ),
    )
    answer_type_check: bool = field(
        default=True,
        metadata=_describe(
            "Sufficiency check: an answer is not supported when the question asks for a kind "
            "of fact (a time or date, a number of the things it counts, a percentage, an "
            "email or web address, a phone number) that neither the cited paragraphs nor "
            "their section titles hold (nodes/sufficiency/answer_type.py). On: such "
            "passages are about the topic but do not answer; the patterns only check kinds "
            "they recognise "
            "reliably, so a miss means the fact is absent."
        ),
    )
    sufficiency_threshold: Annotated[float, Limits(ge=0.0, le=1.0)] = field(
        default=0.3,
        metadata=_describe(
            "Lexical check, used when support_threshold is 0: share of the question's "
            "content words the cited paragraphs must contain (devset: answerable "
            "questions 0.35-1.0)."
        ),
    )
    notes_budget: Annotated[int, Limits(ge=0)] = field(
        default=12000,
        metadata=_describe(
            "Tokens the messages sent to the model may take; past it, older tool results are "
            "sent as compact evidence notes. 0: never."
        ),
    )
    max_question_chars: Annotated[int, Limits(ge=1)] = field(
        default=MAX_QUESTION_CHARS,
        metadata=_describe(
            "Longest question accepted, in characters; a longer one ends the turn with "
            "stop_reason 'error' before any work. On a server only the operator sets it."
        ),
    )
    max_queries: Annotated[int, Limits(ge=1)] = field(
        default=MAX_QUERIES,
        metadata=_describe(
            "Most queries one retrieve call may list; more is a tool error the model can act "
            "on. On a server only the operator sets it."
        ),
    )
    max_query_chars: Annotated[int, Limits(ge=1)] = field(
        default=MAX_QUERY_CHARS,
        metadata=_describe(
            "Longest query (and follow_reference reference) a tool call may send, in "
            "characters. On a server only the operator sets it."
        ),
    )
    max_read_paragraphs: Annotated[int, Limits(ge=1)] = field(
        default=MAX_READ_PARAGRAPHS,
        metadata=_describe(
            "Most paragraphs one read_section call may return (the range clipped to its "
            "section); a wider range is a tool error saying the section's size. On a "
            "server only the operator sets it."
        ),
    )
    max_tool_calls: Annotated[int, Limits(ge=1)] = field(
        default=MAX_TOOL_CALLS,
        metadata=_describe(
            "Most tool calls of one model reply that are run; the others are answered "
            "with an error asking for them in the next round. On a server only the "
            "operator sets it."
        ),
    )


@dataclass(kw_only=True, init=False)
class IngestContext(_ValidatedContext):
    """How one run of the ingest graph is configured."""

    store: str = _STORE
    collection: str = _COLLECTION
    ocr_model: str = field(
        default="",
        metadata=_describe(
            "Vision model that reads PDF pages as images into Markdown (the paper's OCR "
            "route). Empty: the PDF text layer. On a server only the operator sets it."
        ),
    )
    vision_model: str = field(
        default="",
        metadata=_describe(
            "Vision model that describes figures (cached). Empty: none. On a server only "
            "the operator sets it."
        ),
    )
    describe_model: str = field(
        default="",
        metadata=_describe(
            "Chat model writing a one-line summary per section for the TOC (cached, "
            "budgeted). Empty: none. On a server only the operator sets it."
        ),
    )


def check_context(schema: type[_ValidatedContext], values: dict[str, Any]) -> Any:
    """``schema(**values)``: the validated context, or a :class:`ContextError`."""
    if not isinstance(values, dict):
        raise ContextError(f"a context is an object of fields, not {type(values).__name__}")
    return schema(**values)
