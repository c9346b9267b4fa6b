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
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult

from deepread.stores.terms import terms
from deepread.stores.tokens import count_tokens

NOTICE = ("No LLM was used (extractive mode): the passages below are quoted verbatim from "
          "the documents as the best matches for the question.")
#: ``additional_kwargs`` key marking messages deepread adds itself (not user questions).
NOTICE_KEY = "deepread_notice"
_TOC_LINE = re.compile(r"^\s*\((\d+)\) \[(\d+)\] (.*?) \| paragraphs=(\d+) \| "
                       r"tokens=(\d+) \|", re.MULTILINE)
class ExtractiveChatModel(BaseChatModel):
    """Deterministic retrieve → read → quote policy; needs no network and no key."""

    read_budget: int = 1200  # most tokens one read_section may ask for
    observation_budget: int = 1500  # tool-result tokens per question, retrieve included
    max_sections: int = 3  # sections of the top hits read, like the probe's locate-read
    quotes: int = 3
    quote_chars: int = 700
    offered: tuple[str, ...] = ("retrieve", "read_section")

    @property
    def _llm_type(self) -> str:
        return "deepread-extractive"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ExtractiveChatModel:
        """The policy restricted to the tools on offer (ablation modes offer one)."""
        names = tuple(t["function"]["name"] if isinstance(t, dict) else t.name for t in tools)
        return self.model_copy(update={"offered": names})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        asks = [i for i, m in enumerate(messages)
                if isinstance(m, HumanMessage) and not is_notice(m)]
        start = asks[-1] if asks else 0
        question = str(messages[start].content) if messages else ""
        results = [m for m in messages[start:] if isinstance(m, ToolMessage)]
        step = len(results)
        if messages and is_notice(messages[-1]):  # out of rounds: answer with what we have
            return AIMessage(content=self._answer(question, results))
        if "retrieve" not in self.offered:  # Read-only: pick the section from the TOC
            if step == 0 and "read_section" in self.offered:
                target = self._section_from_toc(question, messages)
                if target:
                    return _call("read_section", target, step)
            return AIMessage(content=self._answer(question, results))
        if step == 0:
            return _call("retrieve", {"query": question}, step)
        artifact = results[0].artifact if isinstance(results[0].artifact, dict) else {}
        if artifact.get("hits") and "read_section" in self.offered:
            target = self._next_read(artifact, messages[start:], results)
            if target:
                return _call("read_section", target, step)
        return AIMessage(content=self._answer(question, results))

    def _next_read(self, artifact: dict[str, Any], turn: list[BaseMessage],
                   results: list[ToolMessage]) -> dict[str, int] | None:
        """The next unread section among the top hits, sized to the budget left."""
        read = {(c["args"].get("doc_id"), c["args"].get("sec_id"))
                for m in turn if isinstance(m, AIMessage) for c in m.tool_calls
                if c["name"] == "read_section"}
        if len(read) >= self.max_sections:
            return None
        left = self.observation_budget - sum(count_tokens(str(m.content)) for m in results)
        # Each observation carries ~40 tokens of frame and headers; below ~100 tokens of
        # room a read would show next to nothing.
        left = min(self.read_budget, left - 40)
        if left < 100:
            return None
        for hit in artifact["hits"]:
            key = (hit["doc_id"], hit["sec_id"])
            meta = artifact.get("sections", {}).get(f"{key[0]}:{key[1]}", {})
            if key in read or int(meta.get("n_para", 0)) == 0:
                continue
            read.add(key)
            return self._read_args(hit, meta, left)
        return None

    def _section_from_toc(self, question: str,
                          messages: list[BaseMessage]) -> dict[str, int] | None:
        """The TOC section whose title shares most words with the question."""
        system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
        wanted = terms(question)
        best: tuple[int, dict[str, int]] | None = None
        for d, sec, title, n_para, n_tok in _TOC_LINE.findall(system):
            if int(n_para) == 0:
                continue
            score = len(wanted & terms(title))
            if best is None or score > best[0]:
                span = int(n_para) if int(n_tok) <= self.read_budget else max(
                    1, int(self.read_budget / (int(n_tok) / int(n_para))))
                best = (score, {"doc_id": int(d), "sec_id": int(sec), "start": 0,
                                "end": span - 1})
        return best[1] if best else None

    @staticmethod
    def _read_args(hit: dict[str, Any], meta: dict[str, Any], budget: int) -> dict[str, int]:
        """The whole section if it fits ``budget`` tokens, else the window around the hit
        that does (a third of it above the hit)."""
        n_para, n_tok = int(meta.get("n_para", 1)), int(meta.get("n_tok", 0))
        if n_tok <= budget:
            start, end = 0, max(0, n_para - 1)
        else:
            span = max(1, int(budget / (n_tok / max(1, n_para))))
            start = max(0, min(hit["para_idx"] - span // 3, n_para - span))
            end = min(n_para - 1, start + span - 1)
        return {"doc_id": hit["doc_id"], "sec_id": hit["sec_id"], "start": start, "end": end}

    def _answer(self, question: str, results: list[ToolMessage]) -> str:
        wanted = terms(question)
        rows: dict[tuple[int, int, int], dict[str, Any]] = {}
        for msg in results:
            art = msg.artifact if isinstance(msg.artifact, dict) else {}
            for row in art.get("paragraphs", []):
                rows.setdefault((row["doc_id"], row["sec_id"], row["para_idx"]), row)
        if not rows:
            return f"{NOTICE}\n\nThe documents returned nothing for this question."
        ranked = sorted(rows.items(), key=lambda kv: -len(wanted & terms(kv[1]["text"])))
        picked: dict[str, tuple[int, int, int]] = {}
        for coord, row in ranked:
            # The same passage in two copies of a document (an HTML page and its PDF
            # print) is quoted once.
            picked.setdefault(" ".join(re.sub(r"<[^>]+>", " ", row["text"]).split()), coord)
            if len(picked) == self.quotes:
                break
        chosen = sorted(picked.values())
        parts = [NOTICE, ""]
        for coord in chosen:
            text = " ".join(re.sub(r"<[^>]+>", " ", rows[coord]["text"]).split())
            if len(text) > self.quote_chars:
                text = text[: self.quote_chars].rsplit(" ", 1)[0] + " …"
            parts.append(f"> {text} [{coord[0]}:{coord[1]}:{coord[2]}]")
            parts.append("")
        return "\n".join(parts).rstrip()


def is_notice(message: BaseMessage) -> bool:
    """Whether ``message`` is deepread's own instruction (e.g. the budget notice)."""
    return bool(message.additional_kwargs.get(NOTICE_KEY))


def _call(name: str, args: dict[str, Any], step: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": f"extractive-{step}-{name}",
                                              "type": "tool_call"}])
