"""The offline extractive policy: DeepRead's locate-then-read as a chat model, no LLM.

:class:`ExtractiveChatModel` plays the policy deterministically through the same graph
and tools as an LLM would. It is the face of two parts that know nothing of messages:
the planner (:mod:`deepread.extractive.planner`: which tool next) and the composer
(:mod:`deepread.extractive.composer`: the quoted answer). At each call it reads the
messages it is sent into a :class:`~deepread.extractive.turn.Turn` — the question,
the turn's tool results as the tools' typed observations, the sections read — asks the
planner for the next step, and makes it the reply: a tool call (its query cut to
``max_query_chars``, its read to ``max_read_paragraphs``) or the composer's answer.

What it chooses among besides the messages comes as data: the sections the turn's
Directory Structure lists (the state's ``toc_sections``, given by :meth:`for_turn`,
which :meth:`Resources.model <deepread.nodes.resources.Resources.model>` calls for each
call), their titles, sizes and what a read of each would show from the index it was
made with, and the documents' identifying titles (an answer quoting several names
each). A call that already failed on its arguments is not sent again: it answers with
what it has. Its answers say what they are in their metadata
(:data:`~deepread.nodes.messages.ANSWER_METADATA`: their label and the budget left),
which the check reads — no node tests for this class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from deepread.corpus.index import Index
from deepread.corpus.library.cards import labelled_title
from deepread.extractive.composer import NOTICE, Composer, unheld_answer
from deepread.extractive.planner import Planner
from deepread.extractive.turn import Answer, Call, Result, TocEntry, Turn, toc_entries
from deepread.models.chat import message_text
from deepread.nodes.context import MAX_QUERY_CHARS, MAX_READ_PARAGRAPHS
from deepread.nodes.follow_ups import named_elsewhere, slots_of
from deepread.nodes.messages import ANSWER_METADATA, conversation_question
from deepread.nodes.model_input.prompt import is_notice
from deepread.nodes.read_plan import Sections
from deepread.nodes.repeats import earlier_failure
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import FIND_DOCUMENTS, READ_SECTION, RETRIEVE
from deepread.records.documents import Document
from deepread.text.follow_ups import Slot
from deepread.text.terms import key_words
from deepread.text.tokens import count_tokens

__all__ = ["NOTICE", "ExtractiveChatModel", "TocEntry", "extractive_policy", "turn_of"]


class ExtractiveChatModel(BaseChatModel):
    """Deterministic retrieve → read → quote policy; needs no network and no key."""

    #: It has no LLM to judge whether an answer is supported: the sufficiency check takes
    #: its own verdict as final instead of asking this model (nodes/resources.py).
    can_judge: bool = False
    #: The planner's budgets (:class:`~deepread.extractive.planner.Planner`).
    read_budget: int = 1200
    observation_budget: int = 1500
    max_sections: int = 8
    #: The composer's supporting quotes (:class:`~deepread.extractive.composer.Composer`):
    #: at most ``quotes`` paragraphs quoted, at most ``quote_chars`` characters of each.
    quotes: int = 3
    quote_chars: int = 700
    offered: tuple[str, ...] = (RETRIEVE, READ_SECTION)
    #: The collection read: the TOC's titles and sizes, the sections' paragraph costs and
    #: the documents' titles come from it at each call; without it (and without ``toc``
    #: and ``sections`` given), reads are sized from a section's mean paragraph size,
    #: hits only.
    index: Any = None
    #: The documents the run is limited to (the context's ``documents``, set by
    #: :meth:`for_turn`); empty: the whole collection.
    scope: tuple[int, ...] = ()
    #: The sections the Directory Structure shows (set by :meth:`for_turn` from the
    #: turn's state); given directly by tests.
    toc: tuple[TocEntry, ...] = ()
    #: The sections' paragraph costs and neighbours (made per call when an index is set).
    sections: Sections | None = None
    #: What one call may ask for (the run's ``Context.max_query_chars`` and
    #: ``max_read_paragraphs``, set by :meth:`within`): a long question's query is
    #: cut to its first words, a read to its first paragraphs, never refused.
    max_query_chars: int = MAX_QUERY_CHARS
    max_read_paragraphs: int = MAX_READ_PARAGRAPHS

    @property
    def _llm_type(self) -> str:
        return "deepread-extractive"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ExtractiveChatModel:
        """The policy restricted to the tools on offer (ablation modes offer one)."""
        names = tuple(t["function"]["name"] if isinstance(t, dict) else t.name for t in tools)
        return self.model_copy(update={"offered": names})

    def within(self, limits: Any) -> ExtractiveChatModel:
        """The policy cutting its calls to the run's ``limits`` (a Context:
        ``max_query_chars``, ``max_read_paragraphs``)."""
        return self.model_copy(
            update={
                "max_query_chars": limits.max_query_chars,
                "max_read_paragraphs": limits.max_read_paragraphs,
            }
        )

    def for_turn(self, context: Any, state: Mapping[str, Any]) -> ExtractiveChatModel:
        """The policy for a call of the turn whose ``state`` is given, in the run of
        ``context``: its calls cut to the context's limits (:meth:`within`), its reads
        chosen among the sections the turn's TOC lists (``toc_sections``, unless a
        ``toc`` was given)."""
        policy = self.within(context)
        limit = tuple(getattr(context, "documents", None) or ())
        if limit != self.scope:
            policy = policy.model_copy(update={"scope": limit})
        if self.index is not None and not self.toc:
            keys = state.get("toc_sections") or []
            policy = policy.model_copy(update={"toc": toc_entries(self.index, keys)})
        return policy

    @property
    def planner(self) -> Planner:
        """The planner with this policy's tools, TOC, read costs and budgets."""
        sections = self.sections
        if sections is None and self.index is not None:
            # What each read would show, made afresh: the collection may have changed
            # since the last call.
            sections = Sections(self.index)
        return Planner(
            self.offered,
            self.toc,
            sections,
            self.read_budget,
            self.observation_budget,
            self.max_sections,
        )

    @property
    def composer(self) -> Composer:
        """The composer with this policy's quotes and the index's document and section
        titles."""
        return Composer(
            quotes=self.quotes,
            quote_chars=self.quote_chars,
            title=self._label,
            section=self._section,
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = turn_of(messages, slots_of(self.index))
        if not turn.results and self.scope and self.index is not None:
            elsewhere = named_elsewhere(self.index, turn.question, self.scope)
            if elsewhere:
                return ChatResult(generations=[ChatGeneration(message=self._outside(elsewhere))])
        planner = self.planner
        step = planner.next(turn)
        reply = self._reply(planner, turn, step)
        if any(earlier_failure(messages, dict(c)) is not None for c in reply.tool_calls):
            # The same call already failed on its arguments (nodes/repeats.py): it would
            # again, so the policy answers with what it has instead of sending it.
            reply = self._reply(planner, turn, Answer())
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _reply(self, planner: Planner, turn: Turn, step: Call | Answer) -> AIMessage:
        """``step`` as the reply: its tool call, cut to what a call may ask for, or the
        answer, which says what it is in its metadata — the label of an answer made
        without an LLM, and the observation budget left (the sufficiency check sizes an
        extra read by it, as the planner sizes its own)."""
        if isinstance(step, Call):
            name = step.tool
            call = {
                "name": name,
                "args": self._cut(name, step.args),
                "id": f"extractive-{len(turn.results)}-{name}",
                "type": "tool_call",
            }
            return AIMessage(content="", tool_calls=[call])
        if step.unheld:
            content = unheld_answer(step.unheld)
        else:
            content = self.composer.answer(turn.question, turn.observations)
        budget_left = planner.budget_left(turn.results)
        return AIMessage(
            content=content,
            response_metadata={ANSWER_METADATA: {"label": NOTICE, "budget_left": budget_left}},
        )

    def _outside(self, elsewhere: dict[str, list[int]]) -> AIMessage:
        """The answer to a question about companies whose documents the run's limit
        leaves out (:func:`~deepread.nodes.follow_ups.named_elsewhere`): one line each,
        naming the library's documents that are theirs."""
        lines = [
            f"The documents this conversation is limited to do not cover {name}: "
            + ", ".join(f"({d}) {self._title(d)}" for d in docs)
            + " — ask again without the limit to read them."
            for name, docs in elsewhere.items()
        ]
        return AIMessage(
            content=f"{NOTICE}\n\n" + "\n".join(lines),
            response_metadata={ANSWER_METADATA: {"label": NOTICE, "budget_left": 0}},
        )

    def _cut(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` of a call to ``name`` cut to what a call may ask for: a query over
        ``max_query_chars`` characters to its key words (:func:`~deepread.text.terms.
        key_words`), a read to ``max_read_paragraphs``."""
        if name in (RETRIEVE, FIND_DOCUMENTS):
            if isinstance(args.get("query"), str):
                args["query"] = key_words(args["query"], self.max_query_chars)
            elif isinstance(args.get("query"), list):
                args["query"] = [key_words(q, self.max_query_chars) for q in args["query"]]
        if name == READ_SECTION:
            args["end"] = min(args["end"], max(args["start"], 0) + self.max_read_paragraphs - 1)
        return args

    def _title(self, doc_id: int) -> str:
        """The identifying title of document ``doc_id`` (Index.document), "" without an
        index or once the document is gone."""
        doc = self._document(doc_id)
        return "" if doc is None else str(doc.title)

    def _label(self, doc_id: int) -> str:
        """Document ``doc_id``'s title as an answer names it: with its file where another
        document shares it (:func:`~deepread.corpus.library.cards.labelled_title`)."""
        doc = self._document(doc_id)
        return "" if doc is None else labelled_title(doc)

    def _section(self, doc_id: int, sec_id: int) -> str:
        """Section ``sec_id``'s title in document ``doc_id``; "" where it is not known."""
        doc = self._document(doc_id)
        try:
            return "" if doc is None else str(doc.section(sec_id).title)
        except KeyError:  # CoordinateError: no such section
            return ""

    def _document(self, doc_id: int) -> Document | None:
        """Document ``doc_id`` (Index.document); None without an index or once it is gone."""
        if self.index is None:
            return None
        try:
            return self.index.document(doc_id)
        except KeyError:  # CoordinateError: removed since the prompt was written
            return None


def turn_of(messages: Sequence[BaseMessage], slots: Sequence[Slot] = ()) -> Turn:
    """The turn a call is made in: from the newest message the user asked (not a
    notice), its question as asked and in its conversation
    (:func:`~deepread.nodes.messages.conversation_question`, with the names ``slots``
    find), its tool results, the sections its read_section calls asked for, and whether
    the last message is the notice that the rounds are used up.

    A follow-up that only names a new period, company or form ("and the year before?")
    is the topic's question with that slot replaced, and that question is the turn's
    own too: it is searched alone, not fused with the follow-up's few words."""
    asks = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage) and not is_notice(m)]
    start = asks[-1] if asks else 0
    own = message_text(messages[start]) if messages else ""
    results = tuple(_result(m) for m in messages[start:] if isinstance(m, ToolMessage))
    reads = tuple(
        (c["args"].get("doc_id"), c["args"].get("sec_id"))
        for m in messages[start:]
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if c["name"] == READ_SECTION
    )
    asked = conversation_question(own, messages[:start], slots)
    return Turn(
        asked.question,
        asked.question if asked.rewritten else own,
        results,
        reads,
        out_of_rounds=bool(messages) and is_notice(messages[-1]),
    )


def _result(message: ToolMessage) -> Result:
    seen = Observation.of(message)
    tokens = count_tokens(message_text(message)) if seen.documents is None else 0
    return Result(message.name or "", seen, tokens)


def extractive_policy(index: Index, limits: Any) -> ExtractiveChatModel:
    """The extractive policy reading ``index``, its calls cut to the run's ``limits``
    (a Context): the default model the graphs give their nodes
    (:class:`~deepread.nodes.resources.Resources`, ``default_model``)."""
    return ExtractiveChatModel(index=index).within(limits)
