"""The ``read_section`` tool (Algorithm 1, lines 23–27), run by the ``tools`` node."""

from __future__ import annotations

from deepread.nodes.observation import Observation
from deepread.nodes.tool_call import Outcome, ToolEnv
from deepread.nodes.tool_specs import ReadSectionArgs, check_scope


def read_section(args: ReadSectionArgs, env: ToolEnv) -> Outcome:
    """Paragraphs ``start..end`` of a section, clipped to it; the header says the range."""
    check_scope(args.doc_id, env.context.documents)
    got = env.index.read(args.doc_id, args.sec_id, args.start, args.end)
    n_para = env.index.collection.document(args.doc_id).sections[args.sec_id].n_para
    if not got.paragraphs:
        header = (f"Section ({args.doc_id}) [{args.sec_id}] has {n_para} paragraph(s); the "
                  f"range {args.start}..{args.end} holds none (valid: 0..{n_para - 1}).")
        if n_para == 0:
            header = (f"Section ({args.doc_id}) [{args.sec_id}] has no direct paragraphs; "
                      "read its children (see the Directory Structure).")
    else:
        header = (f"Section ({args.doc_id}) [{args.sec_id}], paragraphs "
                  f"{got.start}..{got.end} of 0..{n_para - 1}:")
    return Outcome(got.paragraphs, header,
                   observation=Observation(range=[got.start, got.end]))
