"""Where the agent graph's work goes next: its routers, beside the graph they route
(:mod:`deepread.graphs.agent`).

Each router's return type names every node it may send to, so its edges read off its
signature, and LangGraph draws them from it (no separate path list to keep in step). The
executor nodes are named for their tools; a test holds :data:`Executor` to the registry
of handlers (:data:`~deepread.nodes.executors.HANDLERS`) and ``invalid_call``.
"""

from __future__ import annotations

import sys
from typing import Literal

from deepread.nodes.executors import offered, refusal
from deepread.nodes.messages import pending_tool_calls
from deepread.nodes.names import AFTER_TOOLS, CHECK, FINALIZE, INVALID_CALL
from deepread.nodes.state import AgentState

#: The nodes a pending tool call can go to: one executor per tool, and ``invalid_call``.
Executor = Literal[
    "retrieve", "read_section", "open_toc", "follow_reference", "find_documents", "invalid_call"
]


def _executor(state: AgentState) -> Executor | None:
    """The executor of the first pending call, None when every call is answered.

    A call past the reply's ``max_tool_calls`` goes to its executor all the same: the
    cap is the run's context, which the executor has (and a router may not: a state
    update routes without a run), and the executor answers it with the refusal."""
    calls = pending_tool_calls(state.get("messages", []), sys.maxsize)
    if not calls:
        return None
    if refusal(calls[0], offered(state)) is not None:
        return INVALID_CALL
    return calls[0]["name"]  # an executor's name: refusal() found its tool on offer


def next_call(state: AgentState) -> Literal[Executor, "compact"]:
    """After a tool call: the next pending call's executor, or ``compact`` once none is
    left (a new round)."""
    return _executor(state) or AFTER_TOOLS


def after_policy(state: AgentState) -> Literal[Executor, "check"]:
    """To the executor of the first pending call; to the check once the model answered."""
    return _executor(state) or CHECK


def after_check(state: AgentState) -> Literal[Executor, "finalize"]:
    """To the extra read the check asked for; else the answer is final."""
    return _executor(state) or FINALIZE
