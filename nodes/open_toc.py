"""The ``open_toc`` node: shows one document's TOC and adds it to the interaction space.

Offered only when the prompt shows a bounded space (nodes/space.py): the document list
names every document, and this is how the model reaches one whose TOC it has not seen.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from deepread.corpus.toc_text import render_toc
from deepread.nodes.context import Context
from deepread.nodes.executor import error_message
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState, pending_tool_calls
from deepread.nodes.tools import OPEN_TOC, OpenTocArgs, ToolArgumentError, parse_args


def make_open_toc(resources: Resources):
    def open_toc(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        index = resources.index(context)
        messages: list[ToolMessage] = []
        opened: list[int] = []
        for call in pending_tool_calls(state.get("messages", [])):
            if call.get("name") != OPEN_TOC or call.get("invalid"):
                break
            try:
                args = parse_args(OPEN_TOC, call.get("args"))
                assert isinstance(args, OpenTocArgs)
                if context.documents and args.doc_id not in context.documents:
                    raise ValueError(f"document {args.doc_id} is outside this "
                                     "conversation's scope")
                doc = index.collection.document(args.doc_id)
            except (ToolArgumentError, KeyError, ValueError) as exc:
                reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                messages.append(error_message(call, str(reason)))
                continue
            text = render_toc([doc], context.toc_budget).text
            messages.append(ToolMessage(content=text, tool_call_id=call["id"], name=OPEN_TOC,
                                        artifact={"paragraphs": [], "doc_id": doc.doc_id}))
            opened.append(doc.doc_id)
        return {"messages": messages, "space": opened}

    return open_toc
