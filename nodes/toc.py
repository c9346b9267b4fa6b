"""The ``toc`` node: start a turn and inject the Directory Structure (paper §3.3).

It records the question, marks where the turn starts, and renders the TOC of the
documents in scope within ``toc_budget`` (:mod:`deepread.corpus.toc_text`). When even
the collapsed TOC would not fit, the prompt shows a bounded interaction space instead
(:mod:`deepread.nodes.model_input.space`). It also records the collection the turn
reads (``scope``, the part of the read-region memory the turn's nodes see). A question
over ``Context.max_question_chars`` is refused before any work (:class:`QuestionTooLong`,
which the error handler ends the turn with, keeping the question out of the thread).
"""

from __future__ import annotations

from typing import cast

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from deepread.corpus.toc_text import RenderedToc, render_toc, section_line
from deepread.nodes.context import Context
from deepread.nodes.model_input.space import initial_space, render_space
from deepread.nodes.read_memory import changed_documents, forget
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState, turn_fields
from deepread.text.hygiene import brief, clean_query

__all__ = ["RenderedToc", "make_toc", "render_toc", "section_line"]


def fresh_turn(state: AgentState) -> AgentState:
    """The start of a turn: the question (as the newest human message), where the turn
    starts, and its per-turn fields afresh; the thread's messages and read regions carry
    on. Raises ``ValueError`` for a request with no usable question."""
    messages = state.get("messages", [])
    raw = state.get("question") or ""
    if not isinstance(raw, str):  # e.g. {"question": 42} from an API client
        raise ValueError(f"question must be text, not {type(raw).__name__} ({brief(raw)})")
    question = clean_query(raw).strip()  # no lone surrogate reaches a tokenizer
    new: list[AnyMessage] = []
    if question and not (
        messages and isinstance(messages[-1], HumanMessage) and messages[-1].content == question
    ):
        new.append(HumanMessage(content=question))
    elif not question:
        # Chat input: the turn's question is the newest human message. (finalize
        # clears ``question`` so that a later chat turn is not answered with it.)
        if not (messages and isinstance(messages[-1], HumanMessage)):
            raise ValueError(
                "no question: pass {'question': …} or chat messages ending with the user's question"
            )
        question = str(messages[-1].content)
    turn_start = len(messages) if new else max(0, len(messages) - 1)
    fresh = turn_fields()
    fresh["messages"], fresh["question"], fresh["turn_start"] = new, question, turn_start
    return fresh


class QuestionTooLong(ValueError):
    """A question over ``Context.max_question_chars``: refused before any work, and kept
    out of the thread's messages (:func:`refused_turn`) — its cost (tokenizing,
    searching, every later prompt) grows with its length."""


def asked_question(state: AgentState) -> str:
    """The question this turn asks, as given: ``question``, else the newest human message."""
    messages = state.get("messages", [])
    raw = state.get("question") or ""
    if isinstance(raw, str) and raw:
        return raw
    return str(messages[-1].content) if messages and isinstance(messages[-1], HumanMessage) else ""


def check_length(state: AgentState, context: Context) -> None:
    """:class:`QuestionTooLong` when the turn's question is over the context's cap."""
    asked = asked_question(state)
    if len(asked) > context.max_question_chars:
        raise QuestionTooLong(
            f"the question is {len(asked)} characters; at most "
            f"{context.max_question_chars} are accepted (context field "
            "max_question_chars, DEEPREAD_MAX_QUESTION_CHARS)"
        )


def refused_turn(state: AgentState) -> AgentState:
    """The start of a turn whose question was refused: its per-turn fields afresh and
    nothing of the question added to the thread's messages."""
    fresh = turn_fields()
    fresh["question"], fresh["turn_start"] = "", len(state.get("messages", []))
    return fresh


def make_toc(resources: Resources) -> AgentNode:
    """The ``toc`` node: start a turn and build the Directory Structure for the prompt.

    A store that fails, an unknown collection or document in scope: the node raises and
    the graph's error handler (:mod:`deepread.nodes.failure`) ends the turn."""

    @resources.leasing
    def toc(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        context = runtime.context or Context()
        check_length(state, context)
        # The turn's collection: the part of the thread's read-region memory its nodes
        # see (nodes/read_memory.py: view).
        fresh = fresh_turn(state)
        fresh["scope"] = scope = resources.scope(context)
        question = fresh["question"]
        index = resources.index(context)
        # What the memory holds of documents written again or removed since they were
        # shown is forgotten: their paragraphs are shown again (nodes/state.py).
        # (The reducers read a None value as "forget": read_memory.merge_regions.)
        fresh.update(
            cast(
                AgentState, forget(state, scope, changed_documents(state, scope, index.versions()))
            )
        )
        documents = index.toc(context.documents) if context.documents else index.toc()
        rendered = render_toc(documents, context.toc_budget)
        space: list[int] = []
        # Several documents in scope: a library, whose question may not say which it is
        # about (find_documents is on offer, nodes/tools/specs.py).
        library = len(documents) > 1
        bounded = rendered.max_level is not None and library
        text, listed = rendered.text, rendered.sections
        if bounded:
            # Collapsing would hide most sections of every document: show the documents
            # the question names (else those retrieval ranks highest) in full instead,
            # and let the space grow from there.
            space = list(
                dict.fromkeys(
                    [
                        *(state.get("space") or []),
                        *initial_space(index, question, context.documents),
                    ]
                )
            )
            text, listed = render_space(documents, space, context.toc_budget)
        return {
            **fresh,
            "toc": text,
            "toc_sections": [list(key) for key in listed],
            "bounded": bounded,
            "space": space,
            "toc_space": space,
            "library": library,
        }

    return toc
