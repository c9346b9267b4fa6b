"""The ``read_section`` tool (Algorithm 1, lines 23–27), run by its executor node.

What a model needs to go on reading — the range it got (clipped to the section) and how
many paragraphs the section has — rides on the section's line of the result, ``## (d)
[s] Title (paragraphs 3-9 of 24)``, rather than on a header line of its own. A range
that holds nothing is said in plain words, without a frame.
"""

from __future__ import annotations

from deepread.nodes.tools.contract import Outcome, ToolEnv
from deepread.nodes.tools.observation import Observation, extent
from deepread.nodes.tools.specs import ReadSectionArgs, check_scope


def read_section(args: ReadSectionArgs, env: ToolEnv) -> Outcome:
    """Paragraphs ``start..end`` of a section, clipped to it; the section's line says
    the range read and the section's size."""
    check_scope(args.doc_id, env.context.documents)
    got = env.index.read(args.doc_id, args.sec_id, args.start, args.end)
    n_para = env.index.document(args.doc_id).sections[args.sec_id].n_para
    observation = Observation(range=[got.start, got.end])
    if not got.paragraphs:
        text = (f"Section ({args.doc_id}) [{args.sec_id}] has {n_para} paragraph(s); the "
                f"range {args.start}-{args.end} holds none (valid: 0-{n_para - 1}).")
        if n_para == 0:
            text = (f"Section ({args.doc_id}) [{args.sec_id}] has no direct paragraphs; "
                    "read its children (see the Directory Structure).")
        return Outcome(text=text, observation=observation)
    return Outcome(got.paragraphs, observation=observation,
                   notes={(args.doc_id, args.sec_id): extent(got.start, got.end, n_para)})
