"""The ``toc`` node: start a turn and inject the Directory Structure (paper §3.3).

It records the question, marks where the turn starts, and renders the TOC of the
documents in scope within ``toc_budget`` (:mod:`deepread.corpus.toc_text`). When even
the collapsed TOC would not fit, the prompt shows a bounded interaction space instead
(:mod:`deepread.nodes.model_input.space`).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from deepread.corpus.toc_text import RenderedToc, render_toc, section_line
from deepread.nodes.context import Context
from deepread.nodes.model_input.space import initial_space, render_space, toc_view
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState
from deepread.nodes.tools.specs import reason
from deepread.stores.backend import StoreError
from deepread.text.hygiene import brief, clean_query

__all__ = ["RenderedToc", "make_toc", "render_toc", "section_line"]


def make_toc(resources: Resources):
    """The ``toc`` node: start a turn and build the Directory Structure for the prompt."""

    @resources.leasing
    def toc(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        messages = state.get("messages", [])
        raw = state.get("question") or ""
        if not isinstance(raw, str):  # e.g. {"question": 42} from an API client
            raise ValueError(f"question must be text, not {type(raw).__name__} "
                             f"({brief(raw)})")
        asked = raw or (str(messages[-1].content) if messages
                        and isinstance(messages[-1], HumanMessage) else "")
        if len(asked) > context.max_question_chars:
            # Refused before any work (and kept out of the thread's messages): its cost
            # — tokenizing, searching, every later prompt — grows with its length.
            return {"stop_reason": "error", "turn_start": len(messages), "rounds": 0,
                    "answer": "", "citations": [], "tool_calls": [], "usage": {},
                    "error": f"the question is {len(asked)} characters; at most "
                             f"{context.max_question_chars} are accepted (context field "
                             "max_question_chars, DEEPREAD_MAX_QUESTION_CHARS)"}
        question = clean_query(raw).strip()  # no lone surrogate reaches a tokenizer
        new: list[HumanMessage] = []
        if question and not (messages and isinstance(messages[-1], HumanMessage)
                             and messages[-1].content == question):
            new.append(HumanMessage(content=question))
        elif not question:
            # Chat input: the turn's question is the newest human message. (finalize
            # clears ``question`` so that a later chat turn is not answered with it.)
            if not (messages and isinstance(messages[-1], HumanMessage)):
                raise ValueError("no question: pass {'question': …} or chat messages "
                                 "ending with the user's question")
            question = str(messages[-1].content)
        turn_start = len(messages) if new else max(0, len(messages) - 1)
        # Per-turn fields start afresh; the thread's messages and read regions carry on.
        fresh: dict[str, Any] = {
            "messages": new, "question": question, "turn_start": turn_start, "rounds": 0,
            "scope": resources.scope(context),
            "stop_reason": "", "error": None, "answer": "", "citations": [],
            "dropped_citations": 0, "tool_calls": [], "usage": {}, "sufficiency": "",
            "checks": 0, "retry_reason": "", "check_usage": {}}
        try:
            index = resources.index(context)
            documents = index.toc(context.documents) if context.documents else index.toc()
            rendered = render_toc(documents, context.toc_budget)
            space: list[int] = []
            bounded = rendered.max_level is not None and len(documents) > 1
            text, view = rendered.text, toc_view(rendered, documents)
            if bounded:
                # Collapsing would hide most sections of every document: show the
                # documents retrieval ranks highest in full instead, and let the space
                # grow from there.
                space = list(dict.fromkeys([
                    *(state.get("space") or []),
                    *initial_space(index, question, context.documents)]))
                text, view = render_space(documents, space, context.toc_budget)
        except (KeyError, ValueError, StoreError) as exc:
            # A bad collection name, an unknown document in scope, a store in use or
            # gone: the turn ends with stop_reason "error" and the reason, not a crashed
            # graph.
            return {**fresh, "stop_reason": "error", "error": reason(exc)}
        return {**fresh, "toc": text, "toc_view": view, "bounded": bounded, "space": space,
                "toc_space": space}

    return toc
