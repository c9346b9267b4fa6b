"""The ``policy`` node: the chat model decides — call tools, or answer (Algorithm 1, l. 4).

It also dispatches: while the last model turn still has unanswered tool calls it does
not call the model again; it answers calls to unknown tools or with malformed
arguments itself (every call gets exactly one answer) and lets the router send the
rest to their executors. Transient model errors (429, 5xx, timeouts, connection
errors) are retried with exponential backoff; anything else, or retries used up, ends
the turn with ``stop_reason="error"``. After ``max_rounds`` the model is asked once to
answer without tools.

What it sends is bounded: past ``notes_budget`` tokens, older observations go out as
evidence notes (:mod:`deepread.nodes.notes`). What it offers is the paper's two tools,
plus ``open_toc`` for a bounded space and ``follow_reference`` when the turn mentions a
reference (:func:`references_on_offer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import uuid4

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.corpus.models import describe, invoke_with_retry
from deepread.corpus.references import mentions, resolver_for
from deepread.nodes.context import Context
from deepread.nodes.executor import error_message
from deepread.nodes.extractive import NOTICE_KEY
from deepread.nodes.notes import compact, noted_regions
from deepread.nodes.space import render_space
from deepread.nodes.state import AgentState, pending_tool_calls, turn_messages
from deepread.nodes.tools import FOLLOW_REFERENCE, OPEN_TOC, TOOL_NAMES, tool_schemas
from deepread.prompts import load
from deepread.stores.backend import StoreError

if TYPE_CHECKING:
    from deepread.nodes.resources import Resources

def with_call_ids(reply: AIMessage) -> AIMessage:
    """Give every tool call an id: each must be answered by one ToolMessage naming it."""
    if all(c.get("id") for c in [*reply.tool_calls, *reply.invalid_tool_calls]):
        return reply
    return reply.model_copy(update={
        "tool_calls": [c if c.get("id") else {**c, "id": f"call_{uuid4().hex[:16]}"}
                       for c in reply.tool_calls],
        "invalid_tool_calls": [c if c.get("id") else {**c, "id": f"call_{uuid4().hex[:16]}"}
                               for c in reply.invalid_tool_calls]})


def _answer_unroutable(state: AgentState, tools: tuple[str, ...]) -> list[Any]:
    """Error answers for leading pending calls no executor can take."""
    out = []
    for call in pending_tool_calls(state.get("messages", [])):
        if call.get("invalid"):
            out.append(error_message(call, f"the arguments of {call.get('name')} were not "
                                     f"valid JSON: {call.get('args')!r}; call it again with "
                                     "a JSON object"))
        elif call.get("name") not in tools:
            out.append(error_message(call, f"unknown tool {call.get('name')!r}; the tools "
                                     f"are: {', '.join(tools)}"))
        else:
            break
    return out


def offered_tools(state: AgentState, tools: tuple[str, ...]) -> tuple[str, ...]:
    """The tools on offer this round: ``open_toc`` joins when the space is bounded,
    ``follow_reference`` when the turn mentions a reference (:func:`references_on_offer`)."""
    out = (*tools, OPEN_TOC) if state.get("bounded") and OPEN_TOC not in tools else tools
    if state.get("references") and FOLLOW_REFERENCE not in out:
        out = (*out, FOLLOW_REFERENCE)
    return out


def references_on_offer(state: AgentState, tools: tuple[str, ...], context: Context,
                        index: Index) -> bool:
    """Whether to offer ``follow_reference``: the question or a tool result of this turn
    mentions "Table 3", "Section 4.2", "section <Title>", "page 12"… (a cheap regex) and
    a section mention matches a section title in scope. Otherwise the model sees the
    paper's two tools only. Ablation modes without ``read_section`` never get it."""
    if not context.follow_references or "read_section" not in tools:
        return False
    texts = [state.get("question") or ""]
    texts += [str(m.content) for m in turn_messages(state)
              if isinstance(m, ToolMessage) and m.status != "error"]
    found = [m for text in texts for m in mentions(text)]
    if not found:
        return False
    resolver = resolver_for(index)
    return any(resolver.resolves(m, context.documents) for m in found)


def make_policy(resources: Resources, tools: tuple[str, ...] = TOOL_NAMES):
    """The policy node, offering the model ``tools`` (a subset for ablation modes)."""

    def policy(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        offered = offered_tools(state, tools)
        if pending_tool_calls(state.get("messages", [])):
            return {"messages": _answer_unroutable(state, offered)}
        context = runtime.context or Context()
        rounds = state.get("rounds", 0)
        update: dict[str, Any] = {"rounds": rounds + 1}
        try:
            refs = references_on_offer(state, tools, context, resources.index(context))
        except (KeyError, ValueError, StoreError):
            refs = False
        if refs != bool(state.get("references")):
            update["references"] = refs
        offered = offered_tools({**state, "references": refs}, tools)
        toc = state.get("toc", "")
        space = state.get("space") or []
        if state.get("bounded") and space != state.get("toc_space"):
            # Retrieval or open_toc widened the interaction space: re-render the prompt.
            index = resources.index(context)
            documents = index.toc(context.documents) if context.documents else index.toc()
            toc = render_space(documents, space, context.toc_budget)
            update |= {"toc": toc, "toc_space": list(space)}
        system = SystemMessage(content=load("system").replace("{toc}", toc))
        history: list[BaseMessage] = [system, *state.get("messages", [])]
        if context.notes_budget:
            # Evidence notes (nodes/notes.py): older observations go out as compact
            # notes once the conversation outgrows the budget; the state keeps them whole.
            history = compact(history, state.get("question") or "", context.notes_budget)
            noted = noted_regions(history)
            if noted != (state.get("noted_regions") or {}):
                update["noted_regions"] = noted
        try:
            model: BaseChatModel = resources.model(context)
            if rounds >= context.max_rounds:
                notice = HumanMessage(
                    content=load("budget").replace("{max_rounds}", str(context.max_rounds)),
                    additional_kwargs={NOTICE_KEY: "budget"})
                reply = invoke_with_retry(model, [*history, notice], context.model_retries)
                # No tools are on offer now: drop any call so none is left unanswered.
                reply = AIMessage(content=reply.content, id=reply.id,
                                  usage_metadata=reply.usage_metadata,
                                  response_metadata=reply.response_metadata)
                update["stop_reason"] = "budget"
            else:
                bound = model.bind_tools(tool_schemas(offered))
                reply = invoke_with_retry(bound, history, context.model_retries)
        except Exception as exc:  # any failure ends the turn cleanly, state kept
            update |= {"stop_reason": "error", "error": f"the model failed: {describe(exc)}"}
            return update
        update["messages"] = [with_call_ids(reply)]
        return update

    return policy
