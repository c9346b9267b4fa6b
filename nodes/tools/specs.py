"""The tools the model sees: the paper's two (§3.4) and the situational ones.

The schemas are bound to the chat model; the tool executors validate every call against
the same schemas, so a wrongly typed or missing argument becomes an error message the
model can act on rather than an exception. Which tools are on offer in a round is
decided here too (:func:`offered_tools`), once, by the policy node, which records it in
the state for the tool executors to check calls against.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any

from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from deepread.nodes.context import MAX_QUERIES, MAX_QUERY_CHARS, problems
from deepread.prompts import load
from deepread.text.hygiene import brief


@dataclass(frozen=True)
class ToolLimits:
    """What one call may ask for (``Context.max_queries``, ``max_query_chars``), given
    to :func:`parse_args` as the validation context; the defaults without one."""

    queries: int = MAX_QUERIES
    query_chars: int = MAX_QUERY_CHARS

    @classmethod
    def of(cls, context: Any) -> ToolLimits:
        return cls(queries=context.max_queries, query_chars=context.max_query_chars)


def _limits(info: ValidationInfo) -> ToolLimits:
    limits = (info.context or {}).get("limits") if isinstance(info.context, dict) else None
    return limits if isinstance(limits, ToolLimits) else ToolLimits()


def check_text(name: str, text: str, limits: ToolLimits) -> str:
    """``text`` when it is within the query length cap, else a ``ValueError`` the model
    can act on."""
    if len(text) > limits.query_chars:
        raise ValueError(
            f"{name} is {len(text)} characters; at most {limits.query_chars} "
            "are searched: send its key words"
        )
    return text


def refuse_booleans(value: Any) -> Any:
    """``value`` unless it is ``true``/``false`` or a list holding one: pydantic's lax
    mode (which lets ``"3"`` through as 3, as models often send it) reads ``true`` as 1,
    so ``doc_id: true`` would read document 1."""
    if isinstance(value, bool):
        raise ValueError(f"must be a whole number, not {str(value).lower()}")
    if isinstance(value, list) and any(isinstance(v, bool) for v in value):
        raise ValueError("must hold whole numbers, not true or false")
    return value


#: A whole-number argument (an id, a paragraph index): ``true`` and ``false`` refused.
Whole = Annotated[int, BeforeValidator(refuse_booleans)]
#: A document, several, or none (every document in scope), booleans refused.
Documents = Annotated[int | list[int] | None, BeforeValidator(refuse_booleans)]
#: A document or none, booleans refused.
MaybeWhole = Annotated[int | None, BeforeValidator(refuse_booleans)]


class SearchArgs(BaseModel):
    """A search's arguments: what the stateless LangChain tools (deepread/
    langchain_tools.py), which keep no read-region memory, offer."""

    query: str | list[str] = Field(
        description="What to look for: keywords or a question, or a list of them (their "
        "results are merged in rank order)."
    )
    doc_id: Documents = Field(
        default=None, description="Search only this document, or these documents (optional)."
    )

    @field_validator("query")
    @classmethod
    def _bounded(cls, query: str | list[str], info: ValidationInfo) -> str | list[str]:
        limits = _limits(info)
        if isinstance(query, str):
            return check_text("the query", query, limits)
        if len(query) > limits.queries:
            raise ValueError(
                f"{len(query)} queries in one call; at most {limits.queries}: "
                "send the most specific ones, or call again with the rest"
            )
        for i, text in enumerate(query):
            check_text(f"query {i}", text, limits)
        return query


class RetrieveArgs(SearchArgs):
    """The agent graph's ``retrieve``: a search that can skip what was shown."""

    exclude_shown: bool = Field(
        default=False,
        description="Skip paragraphs already shown in this conversation (by any tool): "
        "the hits are the best ones not yet seen — the next results page "
        "when the query is repeated (optional).",
    )


class ReadSectionArgs(BaseModel):
    doc_id: Whole = Field(description="Document id, from the Directory Structure.")
    sec_id: Whole = Field(description="Section id within that document.")
    start: Whole = Field(description="First paragraph to read (0-based).")
    end: Whole = Field(description="Last paragraph to read (inclusive).")


class FollowReferenceArgs(BaseModel):
    reference: str = Field(
        description="The reference as written: 'Table 3', 'Figure 2.1', 'Section 4.2', "
        "'§4.2', '4.2', 'section Organizing test code', 'page 12'."
    )
    doc_id: MaybeWhole = Field(
        default=None,
        description="Resolve it in this document only (optional; "
        "default: the documents being read first).",
    )

    @field_validator("reference")
    @classmethod
    def _bounded(cls, reference: str, info: ValidationInfo) -> str:
        return check_text("the reference", reference, _limits(info))


class OpenTocArgs(BaseModel):
    doc_id: Whole = Field(description="Document whose table of contents to show.")


class FindDocumentsArgs(BaseModel):
    query: str = Field(
        description="The question, or the names, periods and dates it gives (a company, "
        "a course, a year, a form, a date)."
    )

    @field_validator("query")
    @classmethod
    def _bounded(cls, query: str, info: ValidationInfo) -> str:
        return check_text("the query", query, _limits(info))


RETRIEVE = "retrieve"
READ_SECTION = "read_section"
#: Offered as well when the prompt shows a bounded interaction space (nodes/model_input/space.py).
OPEN_TOC = "open_toc"
#: Offered as well when the conversation's scope holds several documents: which of them
#: a question is about (deepread.corpus.library.search).
FIND_DOCUMENTS = "find_documents"
#: Offered as well when the question or an observation mentions a reference ("Table 3",
#: "Section 4.2", "page 12") that resolves (corpus/references.py); the paper's two-tool
#: default stays otherwise.
FOLLOW_REFERENCE = "follow_reference"

ARGS: dict[str, type[BaseModel]] = {
    RETRIEVE: RetrieveArgs,
    READ_SECTION: ReadSectionArgs,
    OPEN_TOC: OpenTocArgs,
    FOLLOW_REFERENCE: FollowReferenceArgs,
    FIND_DOCUMENTS: FindDocumentsArgs,
}

#: The paper's two tools, offered by default.
TOOL_NAMES = (RETRIEVE, READ_SECTION)


def offered_tools(state: Mapping[str, Any], tools: tuple[str, ...]) -> tuple[str, ...]:
    """The tools on offer this round: ``tools`` (the mode's), plus ``find_documents``
    when the scope holds several documents, ``open_toc`` when the space is bounded and
    ``follow_reference`` when the turn mentions a reference."""
    out = tools
    if state.get("library") and FIND_DOCUMENTS not in out:
        out = (FIND_DOCUMENTS, *out)
    if state.get("bounded") and OPEN_TOC not in out:
        out = (*out, OPEN_TOC)
    if state.get("references") and FOLLOW_REFERENCE not in out:
        out = (*out, FOLLOW_REFERENCE)
    return out


def tool_schemas(names: tuple[str, ...] = TOOL_NAMES) -> list[dict[str, Any]]:
    """OpenAI-format definitions of the tools ``names``, descriptions from ``prompts/``."""
    return [copy.deepcopy(_schema(name)) for name in names]


#: What the agent graph's tools can do beyond the stateless LangChain tools that share
#: their ``prompts/<name>.md`` (deepread/langchain_tools.py): what needs read-region memory.
MEMORY_NOTES = {RETRIEVE: "retrieve_exclude_shown"}


@cache
def _schema(name: str) -> dict[str, Any]:
    # Built once: pydantic's JSON schema generation costs milliseconds, every round.
    schema = convert_to_openai_tool(ARGS[name])
    schema["function"]["name"] = name
    parts = [name, MEMORY_NOTES[name]] if name in MEMORY_NOTES else [name]
    schema["function"]["description"] = " ".join(load(p) for p in parts)
    return schema


class ToolArgumentError(ValueError):
    """A tool call's arguments do not fit the tool's schema."""


def parse_args(name: str, args: Any, limits: ToolLimits | None = None) -> BaseModel:
    """Validated arguments of a ``name`` call within ``limits`` (default: the defaults
    of the context's ``max_*`` fields), or :class:`ToolArgumentError`."""
    if not isinstance(args, dict):
        raise ToolArgumentError(f"{name} expects a JSON object of arguments, got {brief(args)}")
    try:
        return ARGS[name].model_validate(
            args, strict=False, context={"limits": limits or ToolLimits()}
        )
    except ValidationError as exc:
        raise ToolArgumentError(f"invalid arguments for {name}: {problems(exc)}") from None


def read_window(n_para: int, n_tok: int, around: int, budget: int) -> tuple[int, int]:
    """The ``read_section`` range of a section that fits ``budget`` tokens: the whole
    section when it fits, else the window of the paragraphs around ``around`` that does
    (a third of it above), estimated from the section's mean paragraph size."""
    if n_tok <= budget:
        return 0, max(0, n_para - 1)
    span = max(1, int(budget / (n_tok / max(1, n_para))))
    start = max(0, min(around - span // 3, n_para - span))
    return start, min(n_para - 1, start + span - 1)


def check_scope(doc_id: int | list[int], scope: list[int] | None) -> None:
    """``ValueError`` when ``doc_id`` (or one of several) is outside the conversation's
    documents."""
    for one in [doc_id] if isinstance(doc_id, int) else doc_id:
        if scope and one not in scope:
            raise ValueError(
                f"document {one} is outside this conversation's scope "
                f"(documents {', '.join(map(str, scope))})"
            )


def reason(exc: BaseException) -> str:
    """An exception's message as a sentence (a ``KeyError`` would show its repr)."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)
