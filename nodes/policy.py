"""The ``policy`` node: the chat model decides — call tools, or answer (Algorithm 1, l. 4).

It sends what the ``compact`` node prepared (:func:`deepread.nodes.model_input.prompt.model_input`)
and offers the paper's two tools, plus ``open_toc`` for a bounded space and
``follow_reference`` when the turn mentions a reference (:func:`references_on_offer`);
what it offered is recorded for the tool executors, which run the calls. After
``max_rounds`` the model is asked once to answer without tools. When the sufficiency
check asked for another answer (``retry_reason``), the model answers again, without
tools, after the check's extra read.

Transient model errors are retried and every response has a total deadline
(:func:`deepread.models.chat.invoke_with_retry`); any other failure, or retries used up,
raises, and the graph's error handler (:mod:`deepread.nodes.failure`) ends the turn with
``stop_reason="error"`` — except for the second answer the check asked for, whose
failure keeps the first answer. Every model, the offline policy included, is bound and
asked the same way.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.corpus.references import mentions, resolver_for
from deepread.models.chat import invoke_with_retry, message_text
from deepread.nodes.context import Context
from deepread.nodes.messages import MessageError, oversize, turn_messages
from deepread.nodes.model_input.prompt import model_input, notice
from deepread.nodes.repeats import REPEATS_BEFORE_ANSWER, repeated_failures
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState
from deepread.nodes.tools.specs import READ_SECTION, TOOL_NAMES, offered_tools, tool_schemas
from deepread.prompts import fill, load
from deepread.records.errors import StoreError


def with_call_ids(reply: AIMessage) -> AIMessage:
    """Give every tool call an id: each must be answered by one ToolMessage naming it."""
    if all(c.get("id") for c in [*reply.tool_calls, *reply.invalid_tool_calls]):
        return reply
    return reply.model_copy(
        update={
            "tool_calls": [
                c if c.get("id") else {**c, "id": f"call_{uuid4().hex[:16]}"}
                for c in reply.tool_calls
            ],
            "invalid_tool_calls": [
                c if c.get("id") else {**c, "id": f"call_{uuid4().hex[:16]}"}
                for c in reply.invalid_tool_calls
            ],
        }
    )


def without_tool_calls(reply: AIMessage) -> AIMessage:
    """The reply with any tool call dropped (no tools were on offer: none may dangle)."""
    return AIMessage(
        content=reply.content,
        id=reply.id,
        usage_metadata=reply.usage_metadata,
        response_metadata=reply.response_metadata,
    )


def references_on_offer(
    state: AgentState, tools: tuple[str, ...], context: Context, index: Index
) -> bool:
    """Whether to offer ``follow_reference``: the question or a tool result of this turn
    mentions "Table 3", "Section 4.2", "section <Title>", "page 12"… (a cheap regex) and
    a section mention matches a section title in scope. Otherwise the model sees the
    paper's two tools only. Ablation modes without ``read_section`` never get it."""
    if not context.follow_references or READ_SECTION not in tools:
        return False
    texts = [state.get("question") or ""]
    texts += [
        message_text(m)
        for m in turn_messages(state)
        if isinstance(m, ToolMessage) and m.status != "error"
    ]
    found = [m for text in texts for m in mentions(text)]
    if not found:
        return False
    resolver = resolver_for(index)
    return any(resolver.resolves(m, context.documents) for m in found)


def fitting(reply: AIMessage) -> AIMessage:
    """``reply`` when a thread may hold it; else a :class:`MessageError` saying why.

    The ``messages`` reducer refuses a message over ``DEEPREAD_MAX_MESSAGE_CHARS``, but
    it runs outside any node: a reply it refused would end the run with a traceback
    instead of the turn with ``stop_reason="error"``. Checked here, an over-long reply
    (text or tool-call arguments) is a failed model call like any other.
    """
    too_long = oversize(reply)
    if too_long:
        raise MessageError(f"the model's reply is {too_long}")
    return reply


def make_policy(resources: Resources, tools: tuple[str, ...] = TOOL_NAMES) -> AgentNode:
    """The policy node, offering the model ``tools`` (a subset for ablation modes)."""

    def ask(model: Any, messages: list[BaseMessage], context: Context) -> AIMessage:
        return fitting(
            invoke_with_retry(model, messages, context.model_retries, context.model_timeout)
        )

    def answer_again(state: AgentState, context: Context) -> AgentState:
        """The second answer the sufficiency check asked for, without tools."""
        nudge = notice(
            "sufficiency",
            load("sufficiency_retry").replace("{reason}", state.get("retry_reason") or ""),
        )
        try:
            reply = ask(resources.model(context, state), [*model_input(state), nudge], context)
        except Exception:  # keep the first answer rather than fail the turn (check sees it)
            return {"retry_reason": ""}
        return {"retry_reason": "", "messages": [nudge, without_tool_calls(reply)]}

    @resources.leasing
    def policy(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        context = runtime.context or Context()
        if state.get("retry_reason"):
            return answer_again(state, context)
        rounds = state.get("rounds", 0)
        update: AgentState = {"rounds": rounds + 1}
        try:
            refs = references_on_offer(state, tools, context, resources.index(context))
        except (KeyError, ValueError, StoreError):
            refs = False  # a reference that cannot be resolved is simply not on offer
        if refs != bool(state.get("references")):
            update["references"] = refs
        offered = list(offered_tools({**state, "references": refs}, tools))
        if offered != state.get("offered"):
            update["offered"] = offered
        history = model_input(state)
        # A model that fails (retries used up, the deadline passed) raises: the graph's
        # error handler ends the turn (deepread.nodes.failure).
        model: BaseChatModel = resources.model(context, state)
        if rounds >= context.max_rounds:
            budget = notice(
                "budget", load("budget").replace("{max_rounds}", str(context.max_rounds))
            )
            # The notice goes with this one call only; no tools are on offer now.
            reply = without_tool_calls(ask(model, [*history, budget], context))
            update["stop_reason"] = "budget"
        elif (repeats := repeated_failures(turn_messages(state))) >= REPEATS_BEFORE_ANSWER:
            # A policy that keeps sending a call that fails on its arguments answers with
            # what it has rather than spend its rounds on one failure (nodes/repeats.py).
            stop = notice("repeats", fill("repeats", repeats=str(repeats + 1)))
            reply = without_tool_calls(ask(model, [*history, stop], context))
        else:
            reply = ask(model.bind_tools(tool_schemas(tuple(offered))), history, context)
        update["messages"] = [with_call_ids(reply)]
        return update

    return policy
