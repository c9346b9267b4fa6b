"""What a failed node leaves: the agent graph's error handler and its retry policy.

:func:`on_error` is the agent graph's default LangGraph ``error_handler``: when a node
raises (after its ``retry_policy``, if any, gave up), the handler ends the turn in
``finalize`` with ``stop_reason="error"`` and one line saying what failed — the model
(``policy``), a tool (an executor), the store or a bad request (``toc``, ``compact``).
A failed turn leaves a thread a model API accepts: every tool call still pending is
answered (the failed call with the fault, the others as "not run"). A ``toc`` that
failed still starts its turn (question, turn start, fresh outputs), so ``finalize``
reports this turn, not the one before.

Nodes therefore catch only what they turn into something else — a bad tool call into an
error message the model can act on, a judge outage into an unchecked answer — and the
routers say only where the work goes.

:data:`STORE_RETRY` is the retry policy of the nodes that read the store: a Qdrant
server's 5xx, timeout or dropped connection (:class:`TransientStoreError`) is tried
again. Model errors are retried inside the model call instead
(:func:`deepread.models.chat.invoke_with_retry`): the retries and the total deadline of
a response are per-run settings (``Context.model_retries``, ``model_timeout``), which a
node policy fixed when the graph is built cannot follow, and the client's own retries
honour the server's ``Retry-After``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.errors import NodeError
from langgraph.types import Command, RetryPolicy

from deepread.models.chat import describe
from deepread.nodes.executors import HANDLERS
from deepread.nodes.messages import pending_tool_calls
from deepread.nodes.names import FINALIZE, INVALID_CALL, POLICY, TOC
from deepread.nodes.state import AgentState
from deepread.nodes.toc import QuestionTooLong, fresh_turn, refused_turn
from deepread.nodes.tools.observation import error_message
from deepread.nodes.tools.specs import reason
from deepread.records.errors import StoreError, TransientStoreError

#: Retry of the nodes that read the store (toc, compact, the executors): three attempts,
#: 0.5 s then 1 s apart (with jitter), on transient failures of a Qdrant server only.
STORE_RETRY = RetryPolicy(
    initial_interval=0.5, backoff_factor=2.0, max_attempts=3, retry_on=TransientStoreError
)


def what_failed(node: str, error: BaseException) -> str:
    """One line for the turn's ``error``: which part failed, and why."""
    if node == TOC and isinstance(error, (KeyError, ValueError, StoreError)):
        # At the start of a turn: a bad collection, scope or question, a store in use or
        # gone; the message says which.
        return reason(error)
    if isinstance(error, StoreError):
        return f"the document store failed: {error}"
    if node == POLICY:
        return f"the model failed: {describe(error)}"
    if node in HANDLERS or node == INVALID_CALL:
        return f"the {node} tool failed: {type(error).__name__}: {error}"
    if isinstance(error, (KeyError, ValueError)):
        return reason(error)
    return f"the {node} step failed: {type(error).__name__}: {error}"


def unanswered(state: AgentState, fault: str) -> list[ToolMessage]:
    """Answers to the calls still pending: the first with ``fault`` when a tool failed on
    it, the rest as not run."""
    calls = pending_tool_calls(state.get("messages", []))
    return [
        error_message(call, fault if i == 0 else "not run: an earlier call of this round failed")
        for i, call in enumerate(calls)
    ]


def on_error(state: AgentState, error: NodeError) -> Command:
    """The error handler of the agent's nodes (see the module docstring). A failure of
    ``finalize`` itself fails the run: the handler would only send it back there."""
    if error.node == FINALIZE:
        raise error.error
    line = what_failed(error.node, error.error)
    update: dict[str, Any] = {"stop_reason": "error", "error": line}
    if error.node == TOC:
        # A refused question stays out of the thread; any other failed start keeps it.
        start = refused_turn if isinstance(error.error, QuestionTooLong) else fresh_turn
        update = start(state) | update
    else:
        update["messages"] = unanswered(state, line)
    return Command(goto=FINALIZE, update=update)
