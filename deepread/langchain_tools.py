"""``deepread.tools(idx)``: the DeepRead tools as LangChain tools for any agent.

``retrieve``, ``read_section``, ``toc`` and ``find_documents`` over one
:class:`~deepread.Index`, for a
tool-calling agent that is not deepread's own graph — LangChain v1's
``langchain.agents.create_agent``, LangGraph's ``ToolNode``, an MCP host
(deepread/mcp_server.py). The arguments, descriptions and the way paragraphs are shown
(``[doc_id:sec_id:para_idx]`` coordinates, document text framed as data) are the agent
graph's own (nodes/tools/specs.py, prompts/, nodes/tools/observation.py), run by the
graph's own handlers (nodes/tools/retrieve.py, nodes/tools/read_section.py,
nodes/tools/find_documents.py), so a model prompted for deepread behaves the same here.
``find_documents`` (the documents a question names, matched with their cards) is always
in the list, where the graph offers it only while its scope holds several documents: a
list of tools is made once, and the collection may grow after it.

**Read-region memory, from the conversation itself.** Inside an agent graph (anything
that runs tools through LangGraph's ``ToolNode``, as ``create_agent`` does) each call is
given the graph state's ``messages`` (``InjectedState``, hidden from the model). What
the model has been shown is what the earlier results of these tools in those messages
show — their artifacts record every paragraph, which store and collection it came from,
and the version of each document it was read from (``Index.versions()``), so a document
written again or removed since, its doc_id given to a new file, is shown again in full as
in the graph — so a paragraph shown before comes back as the graph's pointer line
``[3:9:18-52] (shown above)``, ``retrieve(exclude_shown=True)`` gives the next results
page, and the memory is the thread's: it persists with the agent's checkpointer, a new
thread starts empty, and messages an agent trims or summarises away are read again in
full. Calls of one model turn run in parallel in ``ToolNode`` and each sees what the
earlier turns showed. Called outside a graph (``tool.invoke(args)``) a tool has no
conversation and shows everything.

**Budgets, the graph's.** :func:`tools` takes the agent graph's :class:`Context`
(``k``, ``window``, ``documents``, ``page_tokens``, ``toc_budget``, ``max_rounds``,
``retrieval_mode``) or the keyword shortcuts. After ``max_rounds`` model turns with tool
calls since the user's last message, a call is answered with the graph's budget notice
(prompts/budget.md) instead of running: answer now from what was read.

A call that cannot run — wrongly typed arguments, an unknown document or section, a
store failure, a spent budget — comes back as a tool error (``ToolMessage`` with
``status="error"``) whose text says what to do; it never raises into the agent loop.
Each result carries the agent's :class:`~deepread.nodes.tools.observation.Observation` as its
artifact, plus the ``source`` (store and collection) it was read from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.prebuilt import InjectedState
from pydantic import BaseModel, Field, ValidationError

from deepread.corpus.index import Index
from deepread.corpus.toc_text import render_toc
from deepread.nodes.context import Context, problems
from deepread.nodes.read_memory import Regions, merge_regions, regions_of
from deepread.nodes.tools.contract import Outcome, ToolEnv, render
from deepread.nodes.tools.find_documents import find_documents as find_documents_handler
from deepread.nodes.tools.observation import POINTER, Observation
from deepread.nodes.tools.read_section import read_section as read_section_handler
from deepread.nodes.tools.retrieve import retrieve as retrieve_handler
from deepread.nodes.tools.specs import (
    FIND_DOCUMENTS,
    MEMORY_NOTES,
    FindDocumentsArgs,
    MaybeWhole,
    ReadSectionArgs,
    RetrieveArgs,
    SearchArgs,
    check_scope,
    reason,
)
from deepread.prompts import load
from deepread.records.errors import StoreError

#: The conversation a tool call is made in: the agent graph state's messages, given by
#: LangGraph's ToolNode and never shown to the model (None outside a graph).
Conversation = Annotated[list[BaseMessage] | None, InjectedState("messages")]


class _InConversation(BaseModel):
    messages: Conversation = None


class MemoryRetrieveArgs(RetrieveArgs, _InConversation):
    pass


class MemoryReadSectionArgs(ReadSectionArgs, _InConversation):
    pass


class MemoryFindDocumentsArgs(FindDocumentsArgs, _InConversation):
    pass


class TocArgs(BaseModel):
    doc_id: MaybeWhole = Field(
        default=None,
        description="Show this document's sections only "
        "(optional; default: every document in scope).",
    )


class MemoryTocArgs(TocArgs, _InConversation):
    pass


TOC_DESCRIPTION = (
    "Show the table of contents (Directory Structure): one line per section as "
    "'(doc_id) [sec_id] Title | paragraphs=N | tokens=N | children=[…]'. Call it first to "
    "see what the documents hold, then read a section with read_section or search with "
    "retrieve."
)

#: What the system prompt of deepread's own graph says about pointer lines, said here in
#: the tool descriptions because another agent's prompt does not.
POINTER_NOTE = (
    f"A line `[doc_id:sec_id:a-b] {POINTER}` stands for paragraphs a..b that an "
    "earlier result of this conversation showed."
)


def _error_message(exc: ToolException) -> str:
    return f"Error: {exc}"


def _validation_message(exc: ValidationError) -> str:
    # each kind of problem once, a few at most (a list of 3,000 bad queries is one line)
    return f"Error: invalid arguments: {problems(exc)}. Fix them and call the tool again."


def source_of(index: Index) -> dict[str, str]:
    """Where a result was read from, as its artifact records it."""
    return {"store": str(index.store), "collection": index.name}


def shown_in(
    messages: Sequence[BaseMessage] | None, source: dict[str, str], versions: dict[int, str]
) -> Regions:
    """The read regions the results of ``source``'s tools in ``messages`` showed of the
    documents as they are now (``versions``: :meth:`Index.versions`).

    A paragraph counts as shown only when the result recorded the version of its
    document it was read from and that is still the committed one: a document written
    again (a changed file re-ingested) or removed, its doc_id given to a new file, is
    shown again in full, never pointed at — as in the graph (nodes/state.py,
    ``read_versions``). A result without versions (written before they were recorded)
    counts as showing nothing.
    """
    coords: list[tuple[int, int, int]] = []
    for message in messages or []:
        if not isinstance(message, ToolMessage) or not isinstance(message.artifact, dict):
            continue
        if message.artifact.get("source") != source:
            continue  # another collection's (or another tool's) result
        read_from = message.artifact.get("versions")
        if not isinstance(read_from, dict):
            continue
        coords += [
            row.coord
            for row in Observation.of(message).paragraphs
            if (now := versions.get(row.coord[0])) is not None
            and read_from.get(str(row.coord[0])) == now
        ]
    return merge_regions({}, regions_of(coords))


@dataclass(frozen=True)
class Memory:
    """What a call runs with: the regions the conversation showed of the documents as
    they are, and their versions now (what its result records)."""

    regions: Regions
    versions: dict[int, str]


def rounds_in_turn(messages: Sequence[BaseMessage] | None) -> int:
    """Model turns with tool calls since the user's last message (the current one too)."""
    rounds = 0
    for message in reversed(messages or []):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, AIMessage) and message.tool_calls:
            rounds += 1
    return rounds


def tools(
    index: Index,
    *,
    k: int | None = None,
    window: tuple[int, int] | None = None,
    documents: Sequence[int] | None = None,
    toc_budget: int | None = 4000,
    context: Context | None = None,
    memory: bool = True,
) -> list[BaseTool]:
    """``[retrieve, read_section, toc, find_documents]`` over ``index`` as LangChain
    tools.

    ``context``: the agent graph's :class:`Context` — its ``k``, ``window``,
    ``documents``, ``page_tokens``, ``max_rounds``, ``retrieval_mode`` and
    ``toc_budget`` apply as in the graph. Without one: ``k`` hits per retrieve (default
    5, exactly ``k``: the graph's fill-up of short pages is off), each widened by
    ``window`` (up, down) inside its section; ``documents`` limits every tool to those
    doc_ids; ``toc_budget`` caps the TOC in tokens (deeper levels collapse first;
    ``None``: no cap), and the round budget is the graph's default (50).
    ``memory=False``: no read-region memory and no round budget, even inside an agent
    graph (the MCP server's choice: a host may run many conversations through one
    server, which cannot tell them apart).
    """
    if context is None:
        context = _context_of(k, window, documents)
    else:
        if k is not None or window is not None or documents is not None:
            raise ValueError("pass k, window and documents in the context, or without one")
        toc_budget = context.toc_budget
    return _Tools(index, context, toc_budget, memory).as_tools()


def _context_of(
    k: int | None, window: tuple[int, int] | None, documents: Sequence[int] | None
) -> Context:
    """The context of tools made without one: ``k`` hits, each widened by ``window``."""
    k = 5 if k is None else k
    window = (0, 0) if window is None else window
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if len(window) != 2 or min(window) < 0:
        raise ValueError(f"window must be (up, down) with both >= 0, got {window}")
    # A caller who names k gets k hits: the graph's fill-up of short pages
    # (Context.page_tokens) is its own default.
    return Context(
        k=k,
        page_tokens=0,
        window=list(window),
        documents=list(documents) if documents is not None else None,
    )


class _Tools:
    """The tools of one :func:`tools` call: each runs the agent graph's own handler under
    ``context``, with the read-region memory read from the agent state's messages."""

    def __init__(
        self, index: Index, context: Context, toc_budget: int | None, memory: bool
    ) -> None:
        self.index = index
        self.context = context
        self.toc_budget = toc_budget
        self.memory = memory
        self.scope = context.documents
        self.source = source_of(index)
        self.budget = load("budget").replace("{max_rounds}", str(context.max_rounds))

    def shown(self, outcome: Outcome, seen: Memory) -> tuple[str, dict[str, Any]]:
        by_id = {d.doc_id: d for d in self.index.documents()}
        text, outcome.observation.paragraphs = render(outcome, by_id, seen.regions)
        # the version each shown document was read from (taken before the read: a write
        # in between makes the next call show it again, never point at it)
        docs = {row.coord[0] for row in outcome.observation.paragraphs}
        versions = {str(d): seen.versions[d] for d in sorted(docs) if d in seen.versions}
        return text, outcome.observation.artifact() | {"source": self.source, "versions": versions}

    def guarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Run ``fn``; what the model can fix becomes a ToolException (a tool error)."""

        def run(messages: list[BaseMessage] | None = None, **kwargs: Any) -> Any:
            if (
                self.memory
                and messages is not None
                and rounds_in_turn(messages) > self.context.max_rounds
            ):
                raise ToolException(self.budget)
            try:
                versions = self.index.versions() if self.memory else {}
                regions = shown_in(messages, self.source, versions) if self.memory else {}
                return fn(Memory(regions, versions), **kwargs)
            except ToolException:
                raise
            except (KeyError, ValueError) as exc:
                raise ToolException(reason(exc)) from None
            except StoreError as exc:
                raise ToolException(f"the document store failed: {exc}") from None

        return run

    def run(self, handler: Any, args: BaseModel, seen: Memory) -> tuple[str, dict[str, Any]]:
        # The agent graph's own handlers, under a context holding these tools' k, window
        # and scope: the same hits, ranges, headers and scope errors as in the graph.
        env = ToolEnv(index=self.index, context=self.context, shown=seen.regions)
        return self.shown(handler(args, env), seen)

    def retrieve(
        self,
        seen: Memory,
        query: str | list[str],
        doc_id: int | list[int] | None = None,
        exclude_shown: bool = False,
    ) -> tuple[str, dict[str, Any]]:
        return self.run(
            retrieve_handler,
            RetrieveArgs(query=query, doc_id=doc_id, exclude_shown=exclude_shown),
            seen,
        )

    def read_section(
        self, seen: Memory, doc_id: int, sec_id: int, start: int, end: int
    ) -> tuple[str, dict[str, Any]]:
        return self.run(
            read_section_handler,
            ReadSectionArgs(doc_id=doc_id, sec_id=sec_id, start=start, end=end),
            seen,
        )

    def find_documents(self, seen: Memory, query: str) -> tuple[str, dict[str, Any]]:
        return self.run(find_documents_handler, FindDocumentsArgs(query=query), seen)

    def toc(self, seen: Memory, doc_id: int | None = None) -> tuple[str, dict[str, Any]]:
        if doc_id is not None:
            check_scope(doc_id, self.scope)
            docs = self.index.toc(doc_id)
        else:
            docs = self.index.toc(self.scope) if self.scope is not None else self.index.toc()
        if not docs:
            raise ToolException("the collection holds no documents yet; ingest some first")
        return render_toc(docs, self.toc_budget).text, {
            "documents": [d.doc_id for d in docs],
            "source": self.source,
        }

    def specs(self) -> tuple[tuple[str, Callable[..., Any], type[BaseModel], str], ...]:
        """Each tool's name, function, argument schema and description."""
        if self.memory:
            return (
                (
                    "retrieve",
                    self.retrieve,
                    MemoryRetrieveArgs,
                    " ".join([load("retrieve"), load(MEMORY_NOTES["retrieve"]), POINTER_NOTE]),
                ),
                (
                    "read_section",
                    self.read_section,
                    MemoryReadSectionArgs,
                    f"{load('read_section')} {POINTER_NOTE}",
                ),
                ("toc", self.toc, MemoryTocArgs, TOC_DESCRIPTION),
                (
                    FIND_DOCUMENTS,
                    self.find_documents,
                    MemoryFindDocumentsArgs,
                    load(FIND_DOCUMENTS),
                ),
            )
        # nothing to exclude without memory: the search's arguments only
        return (
            ("retrieve", self.retrieve, SearchArgs, load("retrieve")),
            ("read_section", self.read_section, ReadSectionArgs, load("read_section")),
            ("toc", self.toc, TocArgs, TOC_DESCRIPTION),
            (FIND_DOCUMENTS, self.find_documents, FindDocumentsArgs, load(FIND_DOCUMENTS)),
        )

    def as_tools(self) -> list[BaseTool]:
        return [
            StructuredTool.from_function(
                func=self.guarded(fn),
                name=name,
                description=description,
                args_schema=schema,
                response_format="content_and_artifact",
                handle_tool_error=_error_message,
                handle_validation_error=_validation_message,
            )
            for name, fn, schema, description in self.specs()
        ]
