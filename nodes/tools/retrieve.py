"""The ``retrieve`` tool (Algorithm 1, lines 7–22), run by its executor node.

Beyond the paper, ``exclude_shown`` asks for the next results page: the best hits among
the paragraphs the conversation has not been shown yet (read-region memory), so a
reader who has read the first hits and their sections can see what else the query
matches without being sent the same paragraphs again as pointers.

The result is the hits' paragraphs under their sections' lines, sections best first
(the order of their best hit), each section once with its paragraphs in document order:
two hits of one section interleaved with another's would pay its line twice and split
a passage. It has no header: the model wrote the query and knows whether it asked for
the next page, and the format is told once in the tool's description
(prompts/retrieve.md). The ranked hits stay in the observation (``hits``).

A page holds the top ``k`` hits and, while it stays within ``Context.page_tokens``,
the next best ones, up to ``2k`` in all: on a syllabus a hit is a sentence or two and
five of them ~370 tokens, while the first results page yields more of the answers per
token than any read (measured: docs/history/benchmarks-2026.md §12); on a filing, where
hits are tables, five already average ~790 tokens and the page stays at ``k``.
"""

from __future__ import annotations

from deepread.nodes.read_memory import coords_of
from deepread.nodes.tools.contract import Outcome, ToolEnv, render
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import RetrieveArgs, check_scope
from deepread.records.documents import Hit, Paragraph
from deepread.text.tokens import count_tokens


def by_section(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """``paragraphs`` grouped by section, sections in order of first appearance (rank),
    each section's paragraphs in document order."""
    order: dict[tuple[int, int], int] = {}
    for p in paragraphs:
        order.setdefault((p.doc_id, p.sec_id), len(order))
    return sorted(paragraphs, key=lambda p: (order[(p.doc_id, p.sec_id)], p.para_idx))


def retrieve(args: RetrieveArgs, env: ToolEnv) -> Outcome:
    """The top-k hits for the query, each widened by the context's window; with
    ``exclude_shown``, the top-k of the paragraphs not shown before."""
    context, index = env.context, env.index
    scope = context.documents
    if args.doc_id is not None:
        check_scope(args.doc_id, scope)
        scope = [args.doc_id] if isinstance(args.doc_id, int) else list(args.doc_id) or scope
    exclude = coords_of(env.shown, scope) if args.exclude_shown else set()
    more = context.k if context.page_tokens > 0 else 0  # the fill-up's candidates
    up, down = context.window  # two numbers: the Context checks them
    result = index.search(
        args.query,
        k=context.k + more,
        window=(up, down),
        doc_id=scope,
        mode=context.retrieval_mode,
        exclude=exclude,
    )
    hits, paragraphs = _within(result.hits, result.paragraphs, env)
    sections = {}
    for hit in hits:
        sec = index.document(hit.doc_id).sections[hit.sec_id]
        sections[f"{hit.doc_id}:{hit.sec_id}"] = {"n_para": sec.n_para, "n_tok": sec.n_tok}
    observation = Observation(hits=hits, sections=sections)
    if not hits:
        text = (
            "No hits among the paragraphs not shown yet: everything it matches "
            "has been shown above."
            if exclude
            else "No hits."
        )
        return Outcome(text=text, observation=observation)
    # Documents a retrieve touches join the interaction space: the next prompt shows
    # their TOCs (nodes/model_input/space.py).
    return Outcome(
        by_section(paragraphs), observation=observation, widens=[p.doc_id for p in paragraphs]
    )


def _within(
    hits: list[Hit], paragraphs: list[Paragraph], env: ToolEnv
) -> tuple[list[Hit], list[Paragraph]]:
    """The best ``k`` hits, then the next ones while the page, as the model will be
    shown it, stays within ``page_tokens``; with the paragraphs of their windows."""
    k, cap = env.context.k, env.context.page_tokens
    up, down = env.context.window
    documents = {d.doc_id: d for d in env.index.documents()} if len(hits) > k else {}

    def page(n: int) -> list[Paragraph]:
        return [
            p
            for p in paragraphs
            if any(
                (h.doc_id, h.sec_id) == (p.doc_id, p.sec_id)
                and h.para_idx - up <= p.para_idx <= h.para_idx + down
                for h in hits[:n]
            )
        ]

    n = min(k, len(hits))
    while n < len(hits):
        text, _ = render(Outcome(by_section(page(n + 1))), documents, env.shown)
        if count_tokens(text) > cap:
            break
        n += 1
    return list(hits[:n]), page(n)
