"""``deepread.tools(idx)``: the DeepRead tools as LangChain tools for any agent.

``retrieve``, ``read_section`` and ``toc`` over one :class:`~deepread.Index`, for a
tool-calling agent that is not deepread's own graph — LangGraph's prebuilt
``create_react_agent``, a LangChain agent, a hand-written ``ToolNode`` loop. The
arguments, descriptions and the way paragraphs are shown (``[doc_id:sec_id:para_idx]``
coordinates, document text framed as data) are the agent graph's own (nodes/tools/specs.py,
prompts/, nodes/tools/observation.py), so a model prompted for deepread behaves the same here.

A call that cannot run — wrongly typed arguments, an unknown document or section, a
store failure — comes back as a tool error (``ToolMessage`` with ``status="error"``)
whose text says what to do; it never raises into the agent loop. Each result also
carries the agent's :class:`~deepread.nodes.tools.observation.Observation` as its artifact.

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
from deepread.nodes.context import Context, problems
from deepread.nodes.tools.contract import Outcome, ToolEnv, render
from deepread.nodes.tools.read_section import read_section as read_section_handler
from deepread.nodes.tools.retrieve import retrieve as retrieve_handler
from deepread.nodes.tools.specs import (
    ReadSectionArgs,
    RetrieveArgs,
    SearchArgs,
    check_scope,
    reason,
)
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
    # each kind of problem once, a few at most (a list of 3,000 bad queries is one line)
    return f"Error: invalid arguments: {problems(exc)}. Fix them and call the tool again."


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

    def shown(outcome: Outcome) -> tuple[str, dict[str, Any]]:
        by_id = {d.doc_id: d for d in index.documents()}
        text, outcome.observation.paragraphs = render(outcome, by_id, {})
        return text, outcome.observation.artifact()

    def guarded(fn):
        """Run ``fn``; what the model can fix becomes a ToolException (a tool error)."""
        def run(**kwargs: Any) -> Any:
            try:
                return fn(**kwargs)
            except ToolException:
                raise
            except (KeyError, ValueError) as exc:
                raise ToolException(reason(exc)) from None
            except StoreError as exc:
                raise ToolException(f"the document store failed: {exc}") from None
        return run

    # The agent graph's own handlers (nodes/tools/retrieve.py, nodes/tools/read_section.py), under a
    # context holding these tools' k, window and scope: the same hits, ranges, headers
    # and scope errors as inside deepread's graph. A caller who names k gets k hits: the
    # graph's fill-up of short pages (Context.page_tokens) is its own default.
    env = ToolEnv(index=index, context=Context(k=k, page_tokens=0, window=list(window),
                                               documents=scope))

    def run(handler: Any, args: BaseModel) -> tuple[str, dict[str, Any]]:
        return shown(handler(args, env))

    def retrieve(query: str | list[str], doc_id: int | None = None):
        return run(retrieve_handler, RetrieveArgs(query=query, doc_id=doc_id))

    def read_section(doc_id: int, sec_id: int, start: int, end: int):
        return run(read_section_handler,
                   ReadSectionArgs(doc_id=doc_id, sec_id=sec_id, start=start, end=end))

    def toc(doc_id: int | None = None):
        if doc_id is not None:
            check_scope(doc_id, scope)
            docs = index.toc(doc_id)
        else:
            docs = index.toc(scope) if scope is not None else index.toc()
        if not docs:
            raise ToolException("the collection holds no documents yet; ingest some first")
        return render_toc(docs, toc_budget).text, {"documents": [d.doc_id for d in docs]}

    made = []
    for name, fn, schema, description in (
            # Without read-region memory there is nothing to exclude: the search's
            # arguments only.
            ("retrieve", retrieve, SearchArgs, load("retrieve")),
            ("read_section", read_section, ReadSectionArgs, load("read_section")),
            ("toc", toc, TocArgs, TOC_DESCRIPTION)):
        made.append(StructuredTool.from_function(
            func=guarded(fn), name=name, description=description, args_schema=schema,
            response_format="content_and_artifact", handle_tool_error=_error_message,
            handle_validation_error=_validation_message))
    return made
