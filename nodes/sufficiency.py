"""Sufficiency and abstention: is the answer supported by what it cites?

DMAP's reflective generation (``papers/dmap.txt`` §3.3.2) asks an evaluator whether the
answer is complete and, if not, reads neighbouring or parent elements and answers
again; SLEUTH and DMAP's generators answer "not answerable" when the evidence does not
hold. Here, before ``finalize`` returns an answer that cites paragraphs it was shown:

1. **Check.** Lexically: every passage the answer quotes (``> …`` lines, "…" quotes of
   20+ characters) is verbatim in a cited paragraph (always so for the extractive
   policy), and the cited paragraphs contain at least ``sufficiency_threshold`` of the
   question's content words. With an LLM policy an answer that passes is accepted
   (no extra call); one that fails goes to a short judge prompt
   (``prompts/sufficiency.md``) that replies SUPPORTED or INSUFFICIENT.
2. **One bounded extra step.** If not supported: read the section around the first
   cited paragraph (its parent when that section was read whole already), within
   1,200 tokens, through the same executor as ``read_section`` (framing, read-region
   memory), and ask the model to answer again without tools.
3. **Abstain.** If the new answer is still unsupported, the answer says the documents
   do not contain the evidence and ``stop_reason`` is ``"no_evidence"``.

Not checked (``sufficiency`` says why): answers that cite no paragraph the model was
shown ("uncited": nothing to check against — the system prompt asks for citations, and
evaluations can count such answers), answers that already abstain, turns that ended on
the round budget or an error ("unchecked"), and ``check_sufficiency=False`` ("off").
A judge or re-answer call that fails keeps the answer as it was ("unchecked").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from deepread.corpus.models import invoke_with_retry
from deepread.nodes.context import Context
from deepread.nodes.executor import run_calls
from deepread.nodes.extractive import NOTICE, NOTICE_KEY, ExtractiveChatModel
from deepread.nodes.finalize import parse_citations
from deepread.nodes.notes import compact
from deepread.nodes.read_section import read_section_call
from deepread.nodes.state import AgentState, merge_regions, turn_messages, was_read
from deepread.prompts import load
from deepread.stores.terms import stem, terms

if TYPE_CHECKING:
    from deepread.corpus.index import Index
    from deepread.nodes.resources import Resources

#: Tokens of the section read in the extra step.
EXTRA_READ_BUDGET = 1200
ABSTENTION = ("The documents do not contain enough evidence to answer this question: "
              "the passages found do not support an answer.")
_ABSTAINS = re.compile(
    r"\b(?:do(?:es)? not (?:contain|mention|say|state|provide|include|cover|specify)|"
    r"(?:is|are) not (?:mentioned|stated|covered|specified|found)|"
    r"no (?:information|evidence|mention)|could(?:n't| not) find|cannot (?:find|answer|"
    r"determine)|unable to (?:find|answer|determine)|not answerable|returned nothing)\b",
    re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")
# Citation marks only: brackets holding a full d:s:p coordinate ("[1:]" is code).
_CITES = re.compile(r"\[\s*\d+\s*:\s*\d+\s*:\s*\d+[\d\s:,;\-–]*\]")
_QUOTED = re.compile(r"[\"“]([^\"”]{20,})[\"”]")


@dataclass(slots=True)
class Verdict:
    supported: bool
    method: str  # "lexical" | "judge"
    coverage: float
    reason: str


def _flat(text: str) -> str:
    text = _TAGS.sub(" ", text).replace("’", "'").replace("‘", "'")
    return " ".join(text.replace("“", '"').replace("”", '"').split()).lower()


def abstains(answer: str) -> bool:
    """Whether the answer says the documents do not hold the answer."""
    return bool(_ABSTAINS.search(answer))


def quoted_passages(answer: str) -> list[str]:
    """Passages the answer presents as quotes: ``> …`` lines and long "…" quotes."""
    out: list[str] = []
    for line in answer.splitlines():
        if line.lstrip().startswith(">"):
            text = _CITES.sub(" ", line.lstrip()[1:]).strip()
            if text:
                out.append(text)
    out += [m.group(1) for m in _QUOTED.finditer(answer)]
    return out


#: Words about the documents rather than their subject ("which section lists…").
_META = frozenset(
    "section sections paragraph paragraphs document documents doc docs list lists listed "
    "table tables figure figures page pages chapter text describe describes described "
    "explain explains mention mentions mentioned say says said according give gives name "
    "names named".split())


def content_words(text: str) -> set[str]:
    return {stem(w) for w in terms(text) if w not in _META}


def lexical_check(question: str, answer: str, evidence: list[str],
                  threshold: float, context: str = "") -> Verdict:
    """Quotes verbatim in the ``evidence`` paragraphs, and the question's words covered
    by them (with ``context``: the titles of their sections, which frame them)."""
    pool = [_flat(t) for t in evidence]
    for quote in quoted_passages(answer):
        pieces = [p.strip(" .") for p in _flat(quote).split("…")]
        if any(p and not any(p in t for t in pool) for p in pieces):
            return Verdict(False, "lexical", 0.0, f"the quote {quote[:60]!r} is not in "
                                                  "the cited paragraphs")
    wanted = content_words(question)
    if not wanted:
        return Verdict(True, "lexical", 1.0, "the question has no content words")
    have = content_words(" ".join([*evidence, context]))
    coverage = len(wanted & have) / len(wanted)
    missing = sorted(wanted - have)
    if coverage >= threshold:
        return Verdict(True, "lexical", coverage, "")
    return Verdict(False, "lexical", coverage,
                   f"the cited paragraphs do not mention {', '.join(missing[:6])}")


def judge(model: Any, question: str, answer: str, evidence: dict[tuple[int, int, int], str],
          retries: int) -> tuple[Verdict | None, dict[str, int]]:
    """The LLM judge's verdict (None when its reply says neither word) and its usage."""
    listing = "\n".join(f"[{d}:{s}:{p}] {' '.join(text.split())}"
                        for (d, s, p), text in evidence.items())
    prompt = (load("sufficiency").replace("{question}", question)
              .replace("{answer}", answer).replace("{evidence}", listing))
    reply = invoke_with_retry(model, [HumanMessage(content=prompt)], retries)
    usage = dict(reply.usage_metadata or {})
    text = reply.content if isinstance(reply.content, str) else str(reply.content)
    head = text.strip().upper()
    if head.startswith("INSUFFICIENT") or ("INSUFFICIENT" in head and "SUPPORTED" not in head):
        reason = text.strip()[len("INSUFFICIENT"):].strip(" .:-\n") or "the judge found gaps"
        return Verdict(False, "judge", 0.0, reason), usage
    if "SUPPORTED" in head:
        return Verdict(True, "judge", 1.0, ""), usage
    return None, usage


def _text(message: AIMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(part.get("text", "") if isinstance(part, dict) else str(part)
                   for part in message.content)


def _final_answer(messages: list[BaseMessage]) -> AIMessage | None:
    replies = [m for m in messages if isinstance(m, AIMessage)]
    if replies and not replies[-1].tool_calls:
        return replies[-1]
    return None


def _evidence(index: Index, coords: list[tuple[int, int, int]]) -> dict[tuple[int, int, int],
                                                                       str]:
    out: dict[tuple[int, int, int], str] = {}
    for d, s, p in coords[:12]:
        got = index.read(d, s, p, p).paragraphs
        if got:
            out[(d, s, p)] = got[0].text
    return out


def _extra_read(index: Index, state: AgentState, coord: tuple[int, int, int]
                ) -> dict[str, int] | None:
    """read_section arguments for the section around ``coord`` (or its parent)."""
    regions = state.get("read_regions") or {}
    doc = index.collection.document(coord[0])
    sec_id, para = coord[1], coord[2]
    while True:
        sec = doc.sections[sec_id]
        unread = [i for i in range(sec.n_para) if not was_read(regions, doc.doc_id, sec_id, i)]
        if unread:
            break
        if sec.parent is None:
            return None
        sec_id, para = sec.parent, 0
    if sec.n_tok <= EXTRA_READ_BUDGET:
        start, end = 0, max(0, sec.n_para - 1)
    else:
        span = max(1, int(EXTRA_READ_BUDGET / (sec.n_tok / max(1, sec.n_para))))
        if para >= sec.n_para or was_read(regions, doc.doc_id, sec_id, para):
            para = unread[0]
        start = max(0, min(para - span // 3, sec.n_para - span))
        end = min(sec.n_para - 1, start + span - 1)
    return {"doc_id": doc.doc_id, "sec_id": sec_id, "start": start, "end": end}


class Checker:
    """Runs the check (and the extra step) for one finished turn."""

    def __init__(self, state: AgentState, resources: Resources, context: Context,
                 can_read: bool = True) -> None:
        self.state = state
        self.resources = resources
        self.context = context
        # The extra read is a read_section call: a mode that does not offer the tool
        # (the Search-o1 ablation) must not get one behind its back.
        self.can_read = can_read
        self.usage: dict[str, int] = {}

    def _verify(self, model: Any, index: Index, answer: str,
                kept: list[tuple[int, int, int]]) -> Verdict | None:
        question = self.state.get("question") or ""
        evidence = _evidence(index, kept)
        titles = " ".join({index.collection.document(d).sections[s].title
                           for d, s, _ in evidence})
        verdict = lexical_check(question, answer, list(evidence.values()),
                                self.context.sufficiency_threshold, titles)
        if verdict.supported or isinstance(model, ExtractiveChatModel):
            return verdict
        got, usage = judge(model, question, answer, evidence, self.context.model_retries)
        for key, value in usage.items():
            if isinstance(value, int):
                self.usage[key] = self.usage.get(key, 0) + value
        return got

    def run(self) -> dict[str, Any]:
        state, context = self.state, self.context
        if not context.check_sufficiency:
            return {"sufficiency": "off"}
        last = _final_answer(turn_messages(state))
        if last is None or state.get("stop_reason") in ("error", "budget"):
            return {"sufficiency": "unchecked"}
        answer = _text(last)
        if not answer.strip() or abstains(answer):
            return {"sufficiency": "unchecked"}
        regions = state.get("read_regions") or {}
        kept = [c for c in parse_citations(answer) if was_read(regions, *c)]
        if not kept:
            return {"sufficiency": "uncited"}
        index = self.resources.index(context)
        model = self.resources.model(context)
        try:
            verdict = self._verify(model, index, answer, kept)
        except Exception:  # a judge outage must not turn into an abstention
            return {"sufficiency": "unchecked"}
        if verdict is None or verdict.supported:
            return {"sufficiency": "supported" if verdict else "unchecked"}
        return self._extra_step(model, index, kept, verdict)

    def _extra_step(self, model: Any, index: Index, kept: list[tuple[int, int, int]],
                    verdict: Verdict) -> dict[str, Any]:
        state, context = self.state, self.context
        cited = list(kept)
        args = _extra_read(index, state, kept[0]) if self.can_read else None
        new: list[BaseMessage] = []
        regions = state.get("read_regions") or {}
        if args is not None:
            call = {"name": "read_section", "args": args, "type": "tool_call",
                    "id": f"check_{uuid4().hex[:12]}"}
            request = AIMessage(content="", tool_calls=[call],
                                additional_kwargs={NOTICE_KEY: "sufficiency"})
            read = run_calls({**state, "messages": [*state.get("messages", []), request]},
                             "read_section", read_section_call, index, context)
            regions = merge_regions(regions, read["read_regions"])
            notice = HumanMessage(
                content=load("sufficiency_retry").replace("{reason}", verdict.reason),
                additional_kwargs={NOTICE_KEY: "sufficiency"})
            new = [request, *read["messages"], notice]
            system = SystemMessage(content=load("system").replace("{toc}",
                                                                  state.get("toc", "")))
            history = [system, *state.get("messages", []), *new]
            if context.notes_budget:
                history = compact(history, state.get("question") or "", context.notes_budget)
            try:
                reply = invoke_with_retry(model, history, context.model_retries)
            except Exception:  # keep the first answer rather than fail the turn
                return {"sufficiency": "unchecked"}
            reply = AIMessage(content=reply.content, id=reply.id,
                              usage_metadata=reply.usage_metadata,
                              response_metadata=reply.response_metadata)
            answer = _text(reply)
            new.append(reply)
            kept = [c for c in parse_citations(answer) if was_read(regions, *c)]
            if abstains(answer):
                return {"messages": new, "read_regions": read["read_regions"],
                        "stop_reason": "no_evidence", "sufficiency": "insufficient"}
            again = None
            if kept:
                try:
                    again = self._verify(model, index, answer, kept)
                except Exception:
                    again = None
                if again is None or again.supported:
                    return {"messages": new, "read_regions": read["read_regions"],
                            "sufficiency": "supported" if again else "unchecked"}
        text = ABSTENTION
        if isinstance(model, ExtractiveChatModel):
            text = f"{NOTICE}\n\n{ABSTENTION}"
        titles = []
        for d, s, _ in (kept or cited)[:3]:
            title = " ".join(index.collection.document(d).sections[s].title.split())
            if title and title not in titles:
                titles.append(title)
        if titles:
            text += " The closest passages read were in: " + "; ".join(titles) + "."
        new.append(AIMessage(content=text, additional_kwargs={NOTICE_KEY: "no_evidence"}))
        update: dict[str, Any] = {"messages": new, "stop_reason": "no_evidence",
                                  "sufficiency": "insufficient"}
        if args is not None:
            update["read_regions"] = read["read_regions"]
        return update


def check(state: AgentState, resources: Resources, context: Context, can_read: bool = True
          ) -> tuple[dict[str, Any], dict[str, int]]:
    """The state update of the check, and the judge's token usage."""
    checker = Checker(state, resources, context, can_read)
    return checker.run(), checker.usage

