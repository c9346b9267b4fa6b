"""The ``read_section`` tool (Algorithm 1, lines 23–27), run by its executor node.

What a model needs to go on reading — the range it got (clipped to the section) and how
many paragraphs the section has — rides on the section's line of the result, ``## (d)
[s] Title (paragraphs 3-9 of 24)``, rather than on a header line of its own. A range
that holds nothing is said in plain words, without a frame; one that holds more than
``Context.max_read_paragraphs`` is refused before anything is read, saying how to read
the section in parts.
"""

from __future__ import annotations

from deepread.nodes.tools.contract import Outcome, ToolEnv
from deepread.nodes.tools.observation import Observation, extent
from deepread.nodes.tools.specs import ReadSectionArgs, check_scope


def check_range(args: ReadSectionArgs, n_para: int, cap: int) -> None:
    """``ValueError`` (a tool error the model can act on) when the range, clipped to the
    section, holds more than ``cap`` paragraphs (``Context.max_read_paragraphs``)."""
    first, last = max(args.start, 0), min(args.end, n_para - 1)
    if last - first + 1 > cap:
        raise ValueError(
            f"read_section returns at most {cap} paragraphs per call; section "
            f"({args.doc_id}) [{args.sec_id}] has {n_para} and {args.start}-{args.end} asks "
            f"for {last - first + 1}: read it in parts, e.g. read_section({args.doc_id}, "
            f"{args.sec_id}, {first}, {first + cap - 1})"
        )


def read_section(args: ReadSectionArgs, env: ToolEnv) -> Outcome:
    """Paragraphs ``start..end`` of a section, clipped to it; the section's line says
    the range read and the section's size."""
    check_scope(args.doc_id, env.context.documents)
    n_para = env.index.document(args.doc_id).section(args.sec_id).n_para
    check_range(args, n_para, env.context.max_read_paragraphs)
    got = env.index.read(args.doc_id, args.sec_id, args.start, args.end)
    observation = Observation(range=[got.start, got.end])
    if not got.paragraphs:
        text = (
            f"Section ({args.doc_id}) [{args.sec_id}] has {n_para} paragraph(s); the "
            f"range {args.start}-{args.end} holds none (valid: 0-{n_para - 1})."
        )
        if n_para == 0:
            text = (
                f"Section ({args.doc_id}) [{args.sec_id}] has no direct paragraphs; "
                "read its children (see the Directory Structure)."
            )
        return Outcome(text=text, observation=observation)
    return Outcome(
        got.paragraphs,
        observation=observation,
        notes={(args.doc_id, args.sec_id): extent(got.start, got.end, n_para)},
    )
