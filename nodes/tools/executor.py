"""The ``tools`` node: runs every pending tool call of the last AI message, in order.

In the spirit of LangGraph's prebuilt ``ToolNode``: a registry of handlers by tool
name (:data:`HANDLERS`), each call answered by exactly one ``ToolMessage`` carrying its
id, and a call that cannot run answered with an error the model can act on — calls to
unknown tools or tools not on offer this round, arguments that are not JSON or do not
fit the schema, unknown documents or sections, documents outside the conversation's
scope, a store that fails. Unlike ``ToolNode`` it runs the calls one after another,
because each result depends on what the earlier ones showed: the read-region memory
turns paragraphs already shown into pointers, and the node records what it showed.

Anything else a handler raises is a fault, not a bad call: the calls not yet answered
are answered as "not run" (so the thread's history stays one a model API accepts) and
the turn ends with ``stop_reason="error"`` naming the fault.

Each call and its result are also written to LangGraph's ``custom`` stream: a
``tool_call`` event before it runs and a ``tool_result`` event with a summary (hits,
range read, pages, paragraphs, error).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from deepread.nodes.context import Context
from deepread.nodes.resources import Resources
from deepread.nodes.state import (
    AgentState,
    Regions,
    merge_regions,
    pending_tool_calls,
    regions_of,
    scoped,
    subtract_regions,
    view,
)
from deepread.nodes.tools.contract import Handler, Outcome, ToolEnv, render
from deepread.nodes.tools.follow_reference import follow_reference
from deepread.nodes.tools.observation import Observation, error_message, result_message
from deepread.nodes.tools.open_toc import open_toc
from deepread.nodes.tools.read_section import read_section
from deepread.nodes.tools.retrieve import retrieve
from deepread.nodes.tools.specs import (
    FOLLOW_REFERENCE,
    OPEN_TOC,
    READ_SECTION,
    RETRIEVE,
    TOOL_NAMES,
    ToolArgumentError,
    ToolLimits,
    parse_args,
    reason,
)
from deepread.stores.backend import StoreError
from deepread.text.hygiene import brief

HANDLERS: dict[str, Handler] = {RETRIEVE: retrieve, READ_SECTION: read_section,
                                OPEN_TOC: open_toc, FOLLOW_REFERENCE: follow_reference}


def refusal(call: dict[str, Any], offered: list[str]) -> str | None:
    """Why ``call`` cannot run at all, or None when its tool is on offer."""
    name = call.get("name")
    if call.get("refused"):
        return str(call["refused"])
    if call.get("invalid"):
        return (f"the arguments of {name} were not valid JSON: {brief(call.get('args'))}; "
                "call it again with a JSON object")
    if name not in HANDLERS:
        return f"unknown tool {brief(name)}; the tools are: {', '.join(offered)}"
    if name not in offered:
        return f"{name} is not available now; the tools are: {', '.join(offered)}"
    return None


def report(write: Any, call: dict[str, Any], answer: ToolMessage) -> None:
    """The ``custom`` stream event of one answered call."""
    write({"event": "tool_result", "id": call.get("id"), "name": call.get("name"),
           "status": answer.status, **Observation.of(answer).summary()})


def shown_to_model(call: dict[str, Any], outcome: Outcome, env: ToolEnv,
                   regions: Regions) -> ToolMessage:
    """The answer to ``call``: the outcome's text, or its paragraphs framed with their
    coordinates, those in ``regions`` (shown before) as pointers."""
    observation = outcome.observation
    if outcome.text is not None:
        return result_message(call, outcome.text, observation)
    documents = {d.doc_id: d for d in env.index.documents()}
    content, observation.paragraphs = render(outcome, documents, regions)
    return result_message(call, content, observation)


def make_tools(resources: Resources):
    """The ``tools`` node, answering the pending calls with :data:`HANDLERS`."""

    @resources.leasing
    def tools(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        write = runtime.stream_writer  # LangGraph's custom stream (a no-op unless asked)
        offered = list(state.get("offered") or TOOL_NAMES)
        # The memory of the collection this turn reads (nodes/state.py: view). Paragraphs
        # the model now sees only as evidence notes (nodes/model_input/notes.py) count as unread:
        # re-reading them shows their text again.
        scope = state.get("scope") or resources.scope(context)
        memory = view(state.get("read_regions"), scope)
        regions: Regions = subtract_regions(memory, state.get("noted_regions"))
        read_docs = list(dict.fromkeys(int(k.split(":")[0]) for k in memory))
        shown: Regions = {}
        widened: list[int] = []
        answers: list[ToolMessage] = []
        calls = pending_tool_calls(state.get("messages", []), context.max_tool_calls)
        env: ToolEnv | None = None
        for position, call in enumerate(calls):
            write({"event": "tool_call", "id": call.get("id"), "name": call.get("name"),
                   "args": call.get("args")})
            try:
                why = refusal(call, offered)
                if why is not None:
                    raise ToolArgumentError(why)
                args = parse_args(call["name"], call.get("args"), ToolLimits.of(context))
                env = env or ToolEnv(resources.index(context), context, read_docs)
                env.shown = merge_regions(regions, shown)
                outcome = HANDLERS[call["name"]](args, env)
                answer = shown_to_model(call, outcome, env, env.shown)
            except (ToolArgumentError, KeyError, ValueError) as exc:
                answers.append(error_message(call, reason(exc)))
            except StoreError as exc:
                answers.append(error_message(call, f"the document store failed: {exc}"))
            except Exception as exc:  # a fault, not a bad call: end the turn, say why
                fault = f"the {call.get('name')} tool failed: {type(exc).__name__}: {exc}"
                answers.append(error_message(call, fault))
                report(write, call, answers[-1])
                for later in calls[position + 1:]:
                    answers.append(error_message(later, "not run: an earlier call of this "
                                                        "round failed"))
                    report(write, later, answers[-1])
                return {"messages": answers, "read_regions": scoped(shown, scope),
                        "stop_reason": "error",
                        "error": fault}
            else:
                shown = merge_regions(shown, regions_of([p.coord for p in outcome.paragraphs]))
                widened += outcome.widens
                answers.append(answer)
            report(write, call, answers[-1])
        update: dict[str, Any] = {"messages": answers, "read_regions": scoped(shown, scope)}
        if state.get("bounded") and widened:
            update["space"] = widened
        return update

    return tools
