"""The tool executors: one graph node per tool, each answering one pending call.

The policy's calls are dispatched one at a time, in the order the model made them (the
router :func:`~deepread.graphs.routes.next_call`): the first call no ``ToolMessage`` has
answered goes to the node of its tool — ``retrieve``, ``read_section``, ``open_toc``,
``follow_reference`` — which answers it with exactly one ``ToolMessage`` carrying its id;
then the next call, until none is left. Each call is its own task, so Studio, the
``updates`` stream and ``draw_mermaid()`` show which executor ran. A call no executor
takes (an unknown tool, a tool not on offer this round, arguments that are not JSON) goes
to ``invalid_call``, which answers it with an error the model can act on.

Why one at a time rather than LangGraph ``Send`` tasks in parallel: each result depends
on what the earlier ones showed — the read-region memory turns paragraphs already shown,
this round's earlier calls included, into pointer lines — and a ``Send`` payload would
carry (and checkpoint) the state each task needs once per call.

A call that cannot run — arguments that do not fit the schema, unknown documents or
sections, documents outside the conversation's scope, a store that fails — is answered
with an error the model can act on; a Qdrant server's transient failure is first tried
again (the node's ``retry_policy``) and, if it lasts, ends the turn. Anything else a
handler raises is a fault: it propagates to the graph's error handler
(:mod:`deepread.nodes.failure`), which answers the calls left as "not run" and ends the
turn with ``stop_reason="error"``.

Each call and its result are also written to LangGraph's ``custom`` stream: a
``tool_call`` event before it runs and a ``tool_result`` event with a summary (hits,
range read, pages, paragraphs, error).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.runtime import Runtime

from deepread.nodes.context import Context
from deepread.nodes.messages import pending_tool_calls, turn_messages
from deepread.nodes.read_memory import (
    Regions,
    changed_documents,
    merge_regions,
    region_doc,
    regions_of,
    scoped,
    shown_versions,
    subtract_regions,
    view,
)
from deepread.nodes.repeats import earlier_failure, repeat_reason
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState
from deepread.nodes.tools.contract import Handler, Outcome, ToolEnv, render
from deepread.nodes.tools.find_documents import find_documents
from deepread.nodes.tools.follow_reference import follow_reference
from deepread.nodes.tools.observation import Observation, error_message, result_message
from deepread.nodes.tools.open_toc import open_toc
from deepread.nodes.tools.read_section import read_section
from deepread.nodes.tools.retrieve import retrieve
from deepread.nodes.tools.specs import (
    FIND_DOCUMENTS,
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
from deepread.records.errors import StoreError, TransientStoreError
from deepread.text.hygiene import brief

HANDLERS: dict[str, Handler] = {
    RETRIEVE: retrieve,
    READ_SECTION: read_section,
    OPEN_TOC: open_toc,
    FOLLOW_REFERENCE: follow_reference,
    FIND_DOCUMENTS: find_documents,
}


def refusal(call: dict[str, Any], offered: list[str]) -> str | None:
    """Why ``call`` cannot run at all, or None when its tool is on offer."""
    name = call.get("name")
    if call.get("refused"):  # past the reply's max_tool_calls (pending_tool_calls)
        return str(call["refused"])
    if call.get("invalid"):
        return (
            f"the arguments of {name} were not valid JSON: {brief(call.get('args'))}; "
            "call it again with a JSON object"
        )
    if name not in HANDLERS:
        return f"unknown tool {brief(name)}; the tools are: {', '.join(offered)}"
    if name not in offered:
        return f"{name} is not available now; the tools are: {', '.join(offered)}"
    return None


def offered(state: AgentState) -> list[str]:
    """The tools the last model call was offered (the policy records them)."""
    return list(state.get("offered") or TOOL_NAMES)


def pending(state: AgentState, context: Context | None) -> list[dict[str, Any]]:
    """The calls left to answer, those past the reply's ``max_tool_calls`` marked
    refused (:func:`~deepread.nodes.messages.pending_tool_calls`)."""
    return pending_tool_calls(state.get("messages", []), (context or Context()).max_tool_calls)


def this_round(messages: list[AnyMessage]) -> list[ToolMessage]:
    """The tool messages answering the last AI message's calls so far."""
    out: list[ToolMessage] = []
    for msg in reversed(messages):
        if isinstance(msg, AIMessage):
            break
        if isinstance(msg, ToolMessage):
            out.append(msg)
    return out[::-1]


def shown_memory(state: AgentState, memory: Regions) -> Regions:
    """What the model has been shown, as the next call's pointers see it: the read
    regions of the turn's collection (``memory``, a :func:`~deepread.nodes.read_memory.view`),
    less the paragraphs it now sees only as evidence notes (re-reading them shows their
    text again), plus everything this round's earlier calls showed."""
    regions = subtract_regions(memory, state.get("noted_regions"))
    earlier = [
        p.coord for m in this_round(state.get("messages", [])) for p in Observation.of(m).paragraphs
    ]
    return merge_regions(regions, regions_of(earlier))


def announce(write: Any, call: dict[str, Any]) -> None:
    """The ``custom`` stream event of a call about to run (or be answered unrun)."""
    write(
        {
            "event": "tool_call",
            "id": call.get("id"),
            "name": call.get("name"),
            "args": call.get("args"),
        }
    )


def report(write: Any, call: dict[str, Any], answer: ToolMessage) -> None:
    """The ``custom`` stream event of one answered call."""
    write(
        {
            "event": "tool_result",
            "id": call.get("id"),
            "name": call.get("name"),
            "status": answer.status,
            **Observation.of(answer).summary(),
        }
    )


def shown_to_model(call: dict[str, Any], outcome: Outcome, env: ToolEnv) -> ToolMessage:
    """The answer to ``call``: the outcome's text, or its paragraphs framed with their
    coordinates, those shown before (``env.shown``) as pointers."""
    observation = outcome.observation
    if outcome.text is not None:
        return result_message(call, outcome.text, observation)
    documents = {d.doc_id: d for d in env.index.documents()}
    content, observation.paragraphs = render(outcome, documents, env.shown)
    return result_message(call, content, observation)


def answer_refused(calls: list[dict[str, Any]], write: Any) -> AgentState | None:
    """When the first of ``calls`` (those pending) is past the reply's
    ``max_tool_calls``, the update answering it and every other such call at once —
    they are all at the end of the reply, all answered "not run" — else ``None``.

    One step for all of them: a step each made a reply of 600 calls cost 8.8 s and one
    of 1,000 end the run with LangGraph's recursion limit, outside any node."""
    if not calls or not calls[0].get("refused"):
        return None
    answers: list[AnyMessage] = []
    for call in (c for c in calls if c.get("refused")):
        announce(write, call)
        answer = error_message(call, str(call["refused"]))
        report(write, call, answer)
        answers.append(answer)
    return {"messages": answers}


def make_executor(resources: Resources, tool: str) -> AgentNode:
    """The node of ``tool``: answers the first pending call, which is one of ``tool``'s."""
    handler = HANDLERS[tool]

    @resources.leasing
    def execute(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        context = runtime.context or Context()
        write = runtime.stream_writer  # LangGraph's custom stream (a no-op unless asked)
        calls = pending(state, context)
        refused = answer_refused(calls, write)
        if refused is not None:
            return refused
        call = calls[0]
        announce(write, call)
        # The memory of the collection this turn reads (nodes/read_memory.py: view); what this
        # call shows is written back under the same scope.
        scope = state.get("scope") or resources.scope(context)
        index = resources.index(context)
        # Documents written again since their paragraphs were shown (another process,
        # mid-turn): what was shown of them is not what they hold; left out of the
        # memory this call sees, so they are shown again (nodes/state.py).
        versions = index.versions()
        changed = changed_documents(state, scope, versions)
        memory = view(state.get("read_regions"), scope, without=changed)
        env = ToolEnv(
            index,
            context,
            read_docs=list(dict.fromkeys(region_doc(k) for k in memory)),
            shown=shown_memory(state, memory),
        )
        update: AgentState = {}
        try:
            # The same call already failed on its arguments this turn: it would again.
            if (failed := earlier_failure(turn_messages(state), call)) is not None:
                raise ToolArgumentError(repeat_reason(failed))
            args = parse_args(tool, call.get("args"), ToolLimits.of(context))
            outcome = handler(args, env)
            answer = shown_to_model(call, outcome, env)
        except (ToolArgumentError, KeyError, ValueError) as exc:
            # The call's own error (its arguments, a coordinate that does not exist): the
            # same arguments meet it again (nodes/repeats.py).
            answer = error_message(call, reason(exc), final=not call.get("refused"))
        except TransientStoreError:
            raise  # the node is tried again (its retry_policy), then the turn ends
        except StoreError as exc:
            answer = error_message(call, f"the document store failed: {exc}")
        else:
            update["read_regions"] = scoped(
                regions_of([p.coord for p in outcome.paragraphs]), scope
            )
            shown_docs = {p.coord[0] for p in outcome.paragraphs}
            if shown_docs:
                update["read_versions"] = shown_versions(
                    state, scope, shown_docs, versions, changed
                )
            if state.get("bounded") and outcome.widens:
                update["space"] = outcome.widens
        report(write, call, answer)
        return {"messages": [answer], **update}

    execute.__name__ = tool
    return execute


def invalid_call(state: AgentState, runtime: Runtime[Context]) -> AgentState:
    """The node answering a call no executor takes, with why and what is on offer."""
    calls = pending(state, runtime.context)
    refused = answer_refused(calls, runtime.stream_writer)
    if refused is not None:
        return refused
    call = calls[0]
    announce(runtime.stream_writer, call)
    # An unknown tool or arguments that are not JSON fail the same way again; a tool not
    # on offer this round, or a call past the reply's cap, may run in a later one.
    final = bool(call.get("invalid")) or call.get("name") not in HANDLERS
    answer = error_message(call, refusal(call, offered(state)) or "not run", final=final)
    report(runtime.stream_writer, call, answer)
    return {"messages": [answer]}
