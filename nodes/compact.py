"""The ``compact`` node: what the next model call will be sent, made valid and to fit.

It runs before every call of the policy, and decides what the policy then only reads
(:func:`deepread.nodes.model_input.prompt.model_input`):

* a valid history — a tool call a stopped run left unanswered gets its "not run"
  answer (:mod:`deepread.nodes.model_input.history`), written to the thread;
* the Directory Structure — when the prompt shows a bounded interaction space
  (:mod:`deepread.nodes.model_input.space`) that retrieval or ``open_toc`` widened since, the TOC is
  rendered again;
* evidence notes — past ``notes_budget`` tokens, older observations are sent as compact
  notes (:mod:`deepread.nodes.model_input.notes`); the thread keeps them whole. It records which
  (``notes``), the paragraphs now seen only as notes (``noted_regions``: re-reading them
  shows their text again), and what the call will cost (``prompt_tokens``).

A store that fails while the TOC is re-rendered ends the turn through the graph's error
handler (:mod:`deepread.nodes.failure`).
"""

from __future__ import annotations

from typing import cast

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from deepread.nodes.context import Context
from deepread.nodes.model_input.history import repair
from deepread.nodes.model_input.notes import fit, noted_regions
from deepread.nodes.model_input.prompt import system_prompt
from deepread.nodes.model_input.space import render_space
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState


def make_compact(resources: Resources) -> AgentNode:
    """The ``compact`` node (see the module docstring)."""

    @resources.leasing
    def compact_node(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        context = runtime.context or Context()
        update: AgentState = {}
        toc = state.get("toc", "")
        space = state.get("space") or []
        if state.get("bounded") and space != state.get("toc_space"):
            # Retrieval or open_toc widened the interaction space: re-render the prompt.
            # (A store that fails here ends the turn through the graph's error handler.)
            index = resources.index(context)
            documents = index.toc(context.documents) if context.documents else index.toc()
            text, listed = render_space(documents, space, context.toc_budget)
            update |= {
                "toc": text,
                "toc_sections": [list(key) for key in listed],
                "toc_space": list(space),
            }
            toc = update["toc"]
        messages: list[AnyMessage] = list(state.get("messages", []))
        repaired = repair(messages)
        if repaired is not None:
            # Rewritten whole: the answers go right after their calls, before the turns
            # that followed. The turn now starts where its first message moved to.
            start = state.get("turn_start", 0)
            first = messages[start] if start < len(messages) else None
            update["turn_start"] = next(
                (i for i, m in enumerate(repaired) if m is first), len(repaired)
            )
            # A RemoveMessage is an instruction to the reducer, not a message it keeps.
            update["messages"] = cast(
                list[AnyMessage], [RemoveMessage(id=REMOVE_ALL_MESSAGES), *repaired]
            )
            messages = repaired
        sent, tokens = fit(
            [system_prompt(toc), *messages], state.get("question") or "", context.notes_budget
        )
        notes = {
            m.id: str(n.content)
            for m, n in zip(messages, sent[1:], strict=True)
            if n is not m and m.id
        }
        if notes != (state.get("notes") or {}):
            update["notes"] = notes
        noted = noted_regions(sent)
        if noted != (state.get("noted_regions") or {}):
            update["noted_regions"] = noted
        update["prompt_tokens"] = tokens
        return update

    return compact_node
