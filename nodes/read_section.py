"""The ``read_section`` node: executes ReadSection calls (Algorithm 1, lines 23–27)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.executor import Outcome, run_calls
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState
from deepread.nodes.tools import ReadSectionArgs


def read_section_call(args: ReadSectionArgs, index: Index, context: Context) -> Outcome:
    if context.documents and args.doc_id not in context.documents:
        raise ValueError(f"document {args.doc_id} is outside this conversation's scope "
                         f"(documents {', '.join(map(str, context.documents))})")
    got = index.read(args.doc_id, args.sec_id, args.start, args.end)
    n_para = index.collection.document(args.doc_id).sections[args.sec_id].n_para
    if not got.paragraphs:
        header = (f"Section ({args.doc_id}) [{args.sec_id}] has {n_para} paragraph(s); the "
                  f"range {args.start}..{args.end} holds none (valid: 0..{n_para - 1}).")
        if n_para == 0:
            header = (f"Section ({args.doc_id}) [{args.sec_id}] has no direct paragraphs; "
                      "read its children (see the Directory Structure).")
    else:
        header = (f"Section ({args.doc_id}) [{args.sec_id}], paragraphs "
                  f"{got.start}..{got.end} of 0..{n_para - 1}:")
    return Outcome(got.paragraphs, {"range": [got.start, got.end]}, header)


def make_read_section(resources: Resources):
    def read_section(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        return run_calls(state, "read_section", read_section_call, resources.index(context),
                         context)

    return read_section
