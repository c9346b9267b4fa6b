"""``deepread.tools(idx)``: the DeepRead tools as LangChain tools for any agent.

``retrieve``, ``read_section`` and ``toc`` over one :class:`~deepread.Index`, for a
tool-calling agent that is not deepread's own graph — LangGraph's prebuilt
``create_react_agent``, a LangChain agent, a hand-written ``ToolNode`` loop. The
arguments, descriptions and the way paragraphs are shown (``[doc_id:sec_id:para_idx]``
coordinates, document text framed as data) are the agent graph's own (nodes/tools.py,
prompts/, nodes/observation.py), so a model prompted for deepread behaves the same here.

A call that cannot run — wrongly typed arguments, an unknown document or section, a
store failure — comes back as a tool error (``ToolMessage`` with ``status="error"``)
whose text says what to do; it never raises into the agent loop. Each result also
carries an artifact: the paragraphs' rows (``ToolMessage.artifact``).

These tools keep no read-region memory (they are stateless): a paragraph read twice is
shown twice. Use :func:`deepread.build_graph` for the full agent with that memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from deepread.corpus.index import Index
from deepread.corpus.toc_text import render_toc
from deepread.nodes.observation import format_paragraphs
from deepread.nodes.tools import ReadSectionArgs, RetrieveArgs
from deepread.prompts import load
from deepread.stores.backend import StoreError


class TocArgs(BaseModel):
    doc_id: int | None = Field(default=None,
                               description="Show this document's sections only "
                                           "(optional; default: every document in scope).")


TOC_DESCRIPTION = (
    "Show the table of contents (Directory Structure): one line per section as "
    "'(doc_id) [sec_id] Title | paragraphs=N | tokens=N | children=[…]'. Call it first to "
    "see what the documents hold, then read a section with read_section or search with "
    "retrieve.")


def _error_message(exc: ToolException) -> str:
    return f"Error: {exc}"


def _validation_message(exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                         for e in exc.errors())
    return f"Error: invalid arguments: {problems}. Fix them and call the tool again."


def tools(index: Index, *, k: int = 5, window: tuple[int, int] = (0, 0),
          documents: Sequence[int] | None = None, toc_budget: int | None = 4000,
          ) -> list[BaseTool]:
    """``[retrieve, read_section, toc]`` over ``index`` as LangChain tools.

    ``k`` hits per retrieve, each widened by ``window`` (up, down) inside its section;
    ``documents`` limits every tool to those doc_ids; ``toc_budget`` caps the TOC in
    tokens (deeper levels collapse first; ``None``: no cap).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if len(window) != 2 or min(window) < 0:
        raise ValueError(f"window must be (up, down) with both >= 0, got {window}")
    scope = list(documents) if documents is not None else None

    def in_scope(doc_id: int) -> None:
        if scope is not None and doc_id not in scope:
            raise ToolException(f"document {doc_id} is outside the documents these tools "
                                f"read ({', '.join(map(str, scope))})")

    def shown(paragraphs: list, header: str) -> tuple[str, dict[str, Any]]:
        by_id = {d.doc_id: d for d in index.documents()}
        text, rows = format_paragraphs(paragraphs, by_id, {})
        return f"{header}\n{text}", {"paragraphs": rows}

    def guarded(fn):
        """Run ``fn``; what the model can fix becomes a ToolException (a tool error)."""
        def run(**kwargs: Any) -> Any:
            try:
                return fn(**kwargs)
            except ToolException:
                raise
            except KeyError as exc:
                raise ToolException(str(exc.args[0]) if exc.args else str(exc)) from None
            except ValueError as exc:
                raise ToolException(str(exc)) from None
            except StoreError as exc:
                raise ToolException(f"the document store failed: {exc}") from None
        return run

    def retrieve(query: str | list[str], doc_id: int | None = None):
        if doc_id is not None:
            in_scope(doc_id)
        result = index.search(query, k=k, window=window,
                              doc_id=[doc_id] if doc_id is not None else scope)
        header = (f"{len(result.hits)} hit(s) for {query!r}, best first (coordinates "
                  "[doc_id:sec_id:para_idx]); read a section with read_section.")
        content, artifact = shown(result.paragraphs, header)
        return content, artifact | {"hits": [h.to_dict() for h in result.hits]}

    def read_section(doc_id: int, sec_id: int, start: int, end: int):
        in_scope(doc_id)
        got = index.read(doc_id, sec_id, start, end)
        n_para = index.collection.document(doc_id).sections[sec_id].n_para
        if got.paragraphs:
            header = (f"Section ({doc_id}) [{sec_id}], paragraphs {got.start}..{got.end} "
                      f"of 0..{n_para - 1}:")
        elif n_para == 0:
            header = (f"Section ({doc_id}) [{sec_id}] has no direct paragraphs; read its "
                      "children (see toc).")
        else:
            header = (f"Section ({doc_id}) [{sec_id}] has {n_para} paragraph(s); the range "
                      f"{start}..{end} holds none (valid: 0..{n_para - 1}).")
        content, artifact = shown(got.paragraphs, header)
        return content, artifact | {"range": [got.start, got.end]}

    def toc(doc_id: int | None = None):
        if doc_id is not None:
            in_scope(doc_id)
            docs = index.toc(doc_id)
        else:
            docs = index.toc(scope) if scope is not None else index.toc()
        if not docs:
            raise ToolException("the collection holds no documents yet; ingest some first")
        return render_toc(docs, toc_budget).text, {"documents": [d.doc_id for d in docs]}

    made = []
    for name, fn, schema, description in (
            ("retrieve", retrieve, RetrieveArgs, load("retrieve")),
            ("read_section", read_section, ReadSectionArgs, load("read_section")),
            ("toc", toc, TocArgs, TOC_DESCRIPTION)):
        made.append(StructuredTool.from_function(
            func=guarded(fn), name=name, description=description, args_schema=schema,
            response_format="content_and_artifact", handle_tool_error=_error_message,
            handle_validation_error=_validation_message))
    return made
