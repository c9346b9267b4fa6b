"""The offline extractive policy: DeepRead's locate-then-read without an LLM.

It is a chat model that plays the policy deterministically through the same graph and
tools as an LLM would: (1) ``retrieve`` the question; (2) ``read_section`` the sections of
the top hits in rank order (at most three), each whole if it fits what is left of a
1,500-token observation budget, else the window around the hit that does; (3) answer by
quoting the shown paragraphs that best match the question, each cited. The answer says
plainly that no LLM was used. Offered only ``retrieve``
(Search-o1 mode) it answers after step 1; offered only ``read_section`` (Read-only
mode) it reads the TOC section whose title best matches the question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from deepread.corpus.models import message_text
from deepread.nodes.observation import Observation
from deepread.nodes.prompt import is_notice
from deepread.nodes.tool_specs import READ_SECTION, RETRIEVE, read_window
from deepread.stores.terms import terms
from deepread.stores.tokens import count_tokens

NOTICE = ("No LLM was used (extractive mode): the passages below are quoted verbatim from "
          "the documents as the best matches for the question.")
_TAGS = re.compile(r"<[^>]+>")


class TocEntry(NamedTuple):
    """A section the Directory Structure shows (what a Read-only choice is made from)."""

    doc_id: int
    sec_id: int
    title: str
    n_para: int
    n_tok: int


class ExtractiveChatModel(BaseChatModel):
    """Deterministic retrieve → read → quote policy; needs no network and no key."""

    read_budget: int = 1200  # most tokens one read_section may ask for
    observation_budget: int = 1500  # tool-result tokens per question, retrieve included
    max_sections: int = 3  # sections of the top hits read, like the probe's locate-read
    quotes: int = 3
    quote_chars: int = 700
    offered: tuple[str, ...] = (RETRIEVE, READ_SECTION)
    toc: tuple[TocEntry, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "deepread-extractive"

    def bind_tools(self, tools: Any, *, toc: Sequence[TocEntry] = (),
                   **kwargs: Any) -> ExtractiveChatModel:
        """The policy restricted to the tools on offer (ablation modes offer one), with
        the sections the Directory Structure shows (the policy node passes them)."""
        names = tuple(t["function"]["name"] if isinstance(t, dict) else t.name for t in tools)
        return self.model_copy(update={"offered": names, "toc": tuple(toc)})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        asks = [i for i, m in enumerate(messages)
                if isinstance(m, HumanMessage) and not is_notice(m)]
        start = asks[-1] if asks else 0
        question = message_text(messages[start]) if messages else ""
        results = [m for m in messages[start:] if isinstance(m, ToolMessage)]
        step = len(results)
        if messages and is_notice(messages[-1]):  # out of rounds: answer with what we have
            return AIMessage(content=self._answer(question, results))
        if RETRIEVE not in self.offered:  # Read-only: pick the section from the TOC
            if step == 0 and READ_SECTION in self.offered:
                target = self._section_from_toc(question)
                if target:
                    return _call(READ_SECTION, target, step)
            return AIMessage(content=self._answer(question, results))
        if step == 0:
            return _call(RETRIEVE, {"query": question}, step)
        located = Observation.of(results[0])
        if located.hits and READ_SECTION in self.offered:
            target = self._next_read(located, messages[start:], results)
            if target:
                return _call(READ_SECTION, target, step)
        return AIMessage(content=self._answer(question, results))

    def _next_read(self, located: Observation, turn: list[BaseMessage],
                   results: list[ToolMessage]) -> dict[str, int] | None:
        """The next unread section among the top hits, sized to the budget left."""
        read = {(c["args"].get("doc_id"), c["args"].get("sec_id"))
                for m in turn if isinstance(m, AIMessage) for c in m.tool_calls
                if c["name"] == READ_SECTION}
        if len(read) >= self.max_sections:
            return None
        left = self.observation_budget - sum(count_tokens(message_text(m)) for m in results)
        # Each observation carries ~40 tokens of frame and headers; below ~100 tokens of
        # room a read would show next to nothing.
        left = min(self.read_budget, left - 40)
        if left < 100:
            return None
        for hit in located.hits or []:
            key = (hit.doc_id, hit.sec_id)
            meta = (located.sections or {}).get(f"{key[0]}:{key[1]}", {})
            if key in read or int(meta.get("n_para", 0)) == 0:
                continue
            read.add(key)
            start, end = read_window(int(meta.get("n_para", 1)), int(meta.get("n_tok", 0)),
                                     hit.para_idx, left)
            return {"doc_id": hit.doc_id, "sec_id": hit.sec_id, "start": start, "end": end}
        return None

    def _section_from_toc(self, question: str) -> dict[str, int] | None:
        """The TOC section whose title shares most words with the question."""
        wanted = terms(question)
        best: tuple[int, dict[str, int]] | None = None
        for entry in self.toc:
            if entry.n_para == 0:
                continue
            score = len(wanted & terms(entry.title))
            if best is None or score > best[0]:
                _, end = read_window(entry.n_para, entry.n_tok, 0, self.read_budget)
                best = (score, {"doc_id": entry.doc_id, "sec_id": entry.sec_id, "start": 0,
                                "end": end})
        return best[1] if best else None

    def _answer(self, question: str, results: list[ToolMessage]) -> str:
        wanted = terms(question)
        texts: dict[tuple[int, int, int], str] = {}
        for msg in results:
            for row in Observation.of(msg).paragraphs:
                texts.setdefault(row.coord, row.text)
        if not texts:
            return f"{NOTICE}\n\nThe documents returned nothing for this question."
        ranked = sorted(texts.items(), key=lambda kv: -len(wanted & terms(kv[1])))
        picked: dict[str, tuple[int, int, int]] = {}
        for coord, row_text in ranked:
            # The same passage in two copies of a document (an HTML page and its PDF
            # print) is quoted once.
            picked.setdefault(" ".join(_TAGS.sub(" ", row_text).split()), coord)
            if len(picked) == self.quotes:
                break
        chosen = sorted(picked.values())
        parts = [NOTICE, ""]
        for coord in chosen:
            text = " ".join(_TAGS.sub(" ", texts[coord]).split())
            if len(text) > self.quote_chars:
                text = text[: self.quote_chars].rsplit(" ", 1)[0] + " …"
            parts.append(f"> {text} [{coord[0]}:{coord[1]}:{coord[2]}]")
            parts.append("")
        return "\n".join(parts).rstrip()


def _call(name: str, args: dict[str, Any], step: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": f"extractive-{step}-{name}",
                                              "type": "tool_call"}])
