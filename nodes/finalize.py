"""The ``finalize`` node: the turn's answer, its checked citations, usage and tool calls.

The answer is the turn's last AI message that calls no tool (the policy's, the second
one the sufficiency check asked for, or the check's abstention), its text kept as written:
the system prompt asks for the answer first, so the first line stays first. Its citations
are the ``[doc_id:sec_id:para_idx]`` marks the model was shown
(:mod:`deepread.nodes.citations`), in the order they first appear in the answer — the
first citation is the first sentence's;
any other mark is dropped and counted, and so are the marks past the
:data:`~deepread.nodes.citations.MAX_CITATIONS` paragraphs an answer is read to
(``citations_past_cap`` says how many of those there were). The answer message in
``messages`` gets them in its ``response_metadata["citations"]``, so a chat view has
them with the answer.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from deepread.models.chat import message_text
from deepread.nodes.citations import cited_in, shown
from deepread.nodes.context import Context
from deepread.nodes.messages import final_answer, turn_messages
from deepread.nodes.read_memory import view
from deepread.nodes.state import AgentState, Citation

_USAGE: tuple[Literal["input_tokens", "output_tokens", "total_tokens"], ...] = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
)


def finalize(state: AgentState, runtime: Runtime[Context]) -> AgentState:
    context = runtime.context or Context()
    messages = turn_messages(state)
    replies = [m for m in messages if isinstance(m, AIMessage)]
    last = final_answer(messages)
    answer = message_text(last) if last is not None else ""
    regions = view(state.get("read_regions"), state.get("scope") or "")
    cited = cited_in(answer)
    kept = shown(cited, regions)
    usage: dict[str, int] = {
        key: int((state.get("check_usage") or {}).get(key, 0)) for key in _USAGE
    }
    for reply in replies:
        if reply.usage_metadata:
            for key in _USAGE:
                usage[key] += int(reply.usage_metadata.get(key, 0))
    calls = [{"name": c["name"], "args": c["args"]} for r in replies for c in r.tool_calls]
    stop = state.get("stop_reason") or ("answered" if answer else "error")
    error = state.get("error")
    if stop == "error" and not error:
        error = "the model returned an empty reply"
    sufficiency = state.get("sufficiency") or ("unchecked" if context.check_sufficiency else "off")
    citations = [Citation(doc_id=d, sec_id=s, para_idx=p) for d, s, p in kept]
    update: AgentState = {
        "question": "",  # consumed: a later chat-message turn brings its own
        "answer": answer,
        "citations": citations,
        # the marks past the cap were not checked: dropped too, and said apart
        "dropped_citations": len(cited.coords) - len(kept) + cited.past_cap,
        "citations_past_cap": cited.past_cap,
        "stop_reason": stop,
        "error": error,
        "usage": usage,
        "tool_calls": calls,
        "sufficiency": sufficiency,
    }
    if last is not None and last.id:
        # The answer in the chat carries its citations (same id: replaced in place).
        update["messages"] = [
            last.model_copy(
                update={
                    "response_metadata": {
                        **last.response_metadata,
                        "citations": [dict(c) for c in citations],
                    }
                }
            )
        ]
    return update
