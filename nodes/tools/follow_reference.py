"""The ``follow_reference`` tool: shows what "Table 3", "Section 4.2", "page 12" point at.

Offered only when the question or an observation mentions such a reference
(:func:`deepread.nodes.tools.specs.offered_tools`); resolution is
:mod:`deepread.corpus.references`. Run by its executor node like the others
(coordinates, framing, read-region memory).
A section shows its first direct paragraphs within :data:`SECTION_BUDGET` tokens (its
subsections are listed when it has none); a table or figure shows its paragraph (and
a separate caption paragraph next to it); a page shows its paragraphs within the budget.
"""

from __future__ import annotations

from typing import Any

from deepread.corpus.index import Index
from deepread.corpus.references import Target, parse_reference, resolver_for
from deepread.nodes.tools.contract import Outcome, ToolEnv
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import FollowReferenceArgs, check_scope
from deepread.records.documents import Paragraph
from deepread.text.hygiene import brief
from deepread.text.markup import shown_text
from deepread.text.tokens import count_tokens

#: Tokens of paragraph text one followed reference shows at most (at least one paragraph).
SECTION_BUDGET = 1200


def _within(paragraphs: list[Paragraph], budget: int) -> list[Paragraph]:
    out: list[Paragraph] = []
    spent = 0
    for p in paragraphs:
        cost = count_tokens(shown_text(p.text, p.kind))
        if out and spent + cost > budget:
            break
        out.append(p)
        spent += cost
    return out


def _show(target: Target, index: Index, budget: int) -> tuple[list[Paragraph], str]:
    doc = index.document(target.doc_id)
    sec = doc.sections[target.sec_id]
    where = f"({target.doc_id}) [{target.sec_id}] {' '.join(sec.title.split())}"
    said = target.mention.text.strip()
    if target.coords:  # a table, figure or page: the paragraphs themselves
        by_sec: dict[int, list[int]] = {}
        for _, s, p in target.coords:
            by_sec.setdefault(s, []).append(p)
        got: list[Paragraph] = []
        for s, idxs in by_sec.items():
            got += [
                p
                for p in index.read(target.doc_id, s, min(idxs), max(idxs)).paragraphs
                if p.para_idx in idxs
            ]
        shown = _within(got, budget)
        more = len(got) - len(shown)
        tail = f" ({more} more paragraph(s) on it; read them with read_section)" if more else ""
        return shown, f"{said!r} → {target.mention.kind} in section {where}{tail}."
    if sec.n_para == 0:
        children = (
            ", ".join(f"[{c}] {' '.join(doc.sections[c].title.split())}" for c in sec.children[:20])
            or "none"
        )
        return [], (
            f"{said!r} → section {where}; it has no direct paragraphs. Its "
            f"subsections: {children}. Read them with read_section."
        )
    shown = _within(index.read(target.doc_id, target.sec_id, 0, sec.n_para - 1).paragraphs, budget)
    last = shown[-1].para_idx if shown else -1
    rest = (
        f" Paragraphs 0..{last} of 0..{sec.n_para - 1} shown; continue with "
        f"read_section({target.doc_id}, {target.sec_id}, {last + 1}, …)."
        if last < sec.n_para - 1
        else ""
    )
    return shown, f"{said!r} → section {where}.{rest}"


def follow_reference(args: FollowReferenceArgs, env: ToolEnv) -> Outcome:
    """What the reference points at: at most three targets within :data:`SECTION_BUDGET`
    (documents the conversation has read come first when it is ambiguous)."""
    index = env.index
    scope = env.context.documents
    if args.doc_id is not None:
        check_scope(args.doc_id, scope)
        index.document(args.doc_id)  # KeyError: no such document
        scope = [args.doc_id]
    wanted = parse_reference(args.reference)
    if not wanted:
        raise ValueError("the reference is empty; pass e.g. 'Table 3' or 'Section 4.2'")
    resolver = resolver_for(index)
    targets: list[Target] = []
    for mention in wanted:
        targets += resolver.resolve(mention, scope, env.read_docs, limit=2)
        if len(targets) >= 3:
            break
    if not targets:
        raise ValueError(
            f"no target found for {brief(args.reference)}: no section numbered or "
            "named so, no table/figure labelled so, no such page. Search for "
            "it with retrieve instead"
        )
    paragraphs: list[Paragraph] = []
    headers: list[str] = []
    budget = SECTION_BUDGET
    for target in targets[:3]:
        shown, header = _show(target, index, budget)
        budget = max(0, budget - sum(count_tokens(shown_text(p.text, p.kind)) for p in shown))
        paragraphs += [p for p in shown if p.coord not in {q.coord for q in paragraphs}]
        headers.append(header)
    found: list[dict[str, Any]] = [
        {
            "kind": t.mention.kind,
            "reference": t.mention.text,
            "doc_id": t.doc_id,
            "sec_id": t.sec_id,
            "coords": [list(c) for c in t.coords],
        }
        for t in targets[:3]
    ]
    return Outcome(paragraphs, "\n".join(headers), observation=Observation(targets=found))
