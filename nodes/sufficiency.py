"""Sufficiency and abstention: is the answer supported by what it cites?

DMAP's reflective generation (``papers/dmap.txt`` §3.3.2) asks an evaluator whether the
answer is complete and, if not, reads neighbouring or parent elements and answers
again; SLEUTH and DMAP's generators answer "not answerable" when the evidence does not
hold. This module holds the pieces; the ``check`` node (:mod:`deepread.nodes.check`)
runs them between the policy's answer and ``finalize``:

1. **Check.** Lexically: every passage the answer quotes (``> …`` lines, "…" quotes of
   20+ characters) is verbatim in a cited paragraph (always so for the extractive
   policy), and the cited paragraphs contain at least ``sufficiency_threshold`` of the
   question's content words. With an LLM policy an answer that passes is accepted
   (no extra call); one that fails goes to a short judge prompt
   (``prompts/sufficiency.md``) that replies SUPPORTED or INSUFFICIENT.
2. **One bounded extra step.** If not supported: read the section around the first
   cited paragraph (its parent when that section was read whole already), within
   1,200 tokens (:func:`extra_read`), through the ``tools`` node (framing, read-region
   memory), and have the policy answer again without tools.
3. **Abstain.** If the new answer is still unsupported, the answer says the documents
   do not contain the evidence (:func:`abstention`) and ``stop_reason`` is
   ``"no_evidence"``.

Not checked (``sufficiency`` says why): answers that cite no paragraph the model was
shown ("uncited": nothing to check against — the system prompt asks for citations, and
evaluations can count such answers), answers that already abstain, turns that ended on
the round budget or an error ("unchecked"), and ``check_sufficiency=False`` ("off").
A judge or re-answer call that fails keeps the answer as it was ("unchecked").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage

from deepread.corpus.index import Index
from deepread.corpus.models import invoke_with_retry, message_text
from deepread.nodes.extractive import NOTICE
from deepread.nodes.state import Regions, was_read
from deepread.nodes.tool_specs import read_window
from deepread.prompts import load
from deepread.stores.terms import stem, terms

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
          retries: int, timeout: float | None = None
          ) -> tuple[Verdict | None, dict[str, int]]:
    """The LLM judge's verdict (None when its reply says neither word) and its usage."""
    listing = "\n".join(f"[{d}:{s}:{p}] {' '.join(text.split())}"
                        for (d, s, p), text in evidence.items())
    prompt = (load("sufficiency").replace("{question}", question)
              .replace("{answer}", answer).replace("{evidence}", listing))
    reply = invoke_with_retry(model, [HumanMessage(content=prompt)], retries, timeout)
    usage = dict(reply.usage_metadata or {})
    text = message_text(reply)
    head = text.strip().upper()
    if head.startswith("INSUFFICIENT") or ("INSUFFICIENT" in head and "SUPPORTED" not in head):
        reason = text.strip()[len("INSUFFICIENT"):].strip(" .:-\n") or "the judge found gaps"
        return Verdict(False, "judge", 0.0, reason), usage
    if "SUPPORTED" in head:
        return Verdict(True, "judge", 1.0, ""), usage
    return None, usage


def evidence(index: Index, coords: list[tuple[int, int, int]]
             ) -> dict[tuple[int, int, int], str]:
    """The text of (at most 12 of) the cited paragraphs."""
    out: dict[tuple[int, int, int], str] = {}
    for d, s, p in coords[:12]:
        got = index.read(d, s, p, p).paragraphs
        if got:
            out[(d, s, p)] = got[0].text
    return out


def extra_read(index: Index, regions: Regions, coord: tuple[int, int, int]
               ) -> dict[str, int] | None:
    """read_section arguments for the section around ``coord`` (or its parent, when
    that section was read whole already); None when there is nothing left to read."""
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
    if sec.n_tok > EXTRA_READ_BUDGET and (
            para >= sec.n_para or was_read(regions, doc.doc_id, sec_id, para)):
        para = unread[0]
    start, end = read_window(sec.n_para, sec.n_tok, para, EXTRA_READ_BUDGET)
    return {"doc_id": doc.doc_id, "sec_id": sec_id, "start": start, "end": end}


def abstention(index: Index, coords: list[tuple[int, int, int]], extractive: bool) -> str:
    """The answer that abstains, naming the sections of the closest passages read."""
    text = f"{NOTICE}\n\n{ABSTENTION}" if extractive else ABSTENTION
    titles: list[str] = []
    for d, s, _ in coords[:3]:
        title = " ".join(index.collection.document(d).sections[s].title.split())
        if title and title not in titles:
            titles.append(title)
    if titles:
        text += " The closest passages read were in: " + "; ".join(titles) + "."
    return text
