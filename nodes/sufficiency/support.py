"""Sufficiency and abstention: is the answer supported by what it cites?

DMAP's reflective generation (``papers/dmap.txt`` §3.3.2) asks an evaluator whether the
answer is complete and, if not, reads neighbouring or parent elements and answers
again; SLEUTH and DMAP's generators answer "not answerable" when the evidence does not
hold. This module holds the pieces; the ``check`` node (:mod:`deepread.nodes.check`)
runs them between the policy's answer and ``finalize``:

1. **Check.** Every passage the answer quotes (``> …`` lines, "…" quotes of 20+
   characters) is verbatim in a cited paragraph (always so for the extractive policy),
   and the cited paragraphs are about what the question asks (:func:`~deepread.text.
   questions.asked`: its questions, not the instructions around them): densely, the best
   cited paragraph's cosine similarity to it reaches ``support_threshold``
   (:func:`dense_support`, the local MiniLM model whatever the collection embeds with,
   so the threshold keeps its calibration) — ``unused_term_support`` instead when that
   is higher and the question names a specific word none of the cited documents uses
   (:mod:`deepread.nodes.sufficiency.unused_terms`, chosen by the check node); with
   ``support_threshold=0``, lexically,
   the cited paragraphs hold ``sufficiency_threshold`` of its content words. Either
   way, with ``answer_type_check``, the cited paragraphs (or their section titles)
   must hold the kind of fact the question asks for — a date for "when", a number of
   credits for "how many credits" (:mod:`deepread.nodes.sufficiency.answer_type`). With an
   LLM policy an answer that passes is accepted (no extra call); one that fails goes to
   a short judge prompt (``prompts/sufficiency.md``) that replies SUPPORTED or
   INSUFFICIENT.
2. **One bounded extra step.** If not supported: read the section around the first
   cited paragraph (its parent when that section was read whole already), within
   1,200 tokens — for the offline policy, within what is left of its observation
   budget — (:func:`extra_read`), through the tool executors (framing, read-region
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

import html
import re
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage

from deepread.corpus.framing import CLOSE, OPEN, escape, title_text
from deepread.corpus.index import Index
from deepread.corpus.vectors import local_vectors
from deepread.models.chat import invoke_with_retry, message_text
from deepread.nodes.read_memory import Regions, regions_of, was_read
from deepread.nodes.read_plan import Sections, fit
from deepread.prompts import fill
from deepread.records.documents import Document
from deepread.text.clip import clip
from deepread.text.markup import plain, untagged
from deepread.text.questions import asked
from deepread.text.terms import stem, terms

#: Tokens of the section read in the extra step.
EXTRA_READ_BUDGET = 1200
ABSTENTION = (
    "The documents do not contain enough evidence to answer this question: "
    "the passages found do not support an answer."
)
_ABSTAINS = re.compile(
    r"\b(?:do(?:es)? not (?:contain|mention|say|state|provide|include|cover|specify)|"
    r"(?:is|are) not (?:mentioned|stated|covered|specified|found)|"
    r"no (?:information|evidence|mention)|could(?:n't| not) find|cannot (?:find|answer|"
    r"determine)|unable to (?:find|answer|determine)|not answerable|returned nothing)\b",
    re.IGNORECASE,
)
# Citation marks only: brackets holding a full d:s:p coordinate ("[1:]" is code), with
# the page an answer writes after one ("[9:149:2] p. 58", "pp. 49–50").
_CITES = re.compile(r"\[\s*\d+\s*:\s*\d+\s*:\s*\d+[\d\s:,;\-–]*\](?:\s+pp?\. \d+(?:[–-]\d+)?)?")
_QUOTED = re.compile(r"[\"“]([^\"”]{20,})[\"”]")


@dataclass(slots=True)
class Verdict:
    supported: bool
    method: str  # "lexical" | "dense" | "judge"
    coverage: float
    reason: str


def _flat(text: str) -> str:
    # "|" is a table's cell separator as the reading tools show a table (rows of cells,
    # text.markup.shown_text) where the store holds its HTML: a quoted row matches the
    # stored table with the separators as spaces, as its tags are.
    # Entities resolved on both sides: a table's HTML keeps "&amp;" where its quote
    # shows "&".
    text = html.unescape(untagged(text)).replace("|", " ").replace("’", "'").replace("‘", "'")
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
        else:
            # "…" quotes in the answer's own lines, each within its line: a quote line is
            # checked whole above, and two quoted lines of code holding straight quotes
            # (print("a") … {"b": 1}) made one "quote" across them, never verbatim.
            out += [m.group(1) for m in _QUOTED.finditer(line)]
    return out


#: Words about the documents rather than their subject ("which section lists…").
META_WORDS = frozenset(
    "section sections paragraph paragraphs document documents doc docs list lists listed "
    "table tables figure figures page pages chapter text describe describes described "
    "explain explains mention mentions mentioned say says said according give gives name "
    "names named".split()
)


def content_words(text: str) -> set[str]:
    return {stem(w) for w in terms(text) if w not in META_WORDS}


def _unquoted(answer: str, pool: list[str]) -> str | None:
    """The first quote of ``answer`` that is not verbatim in the ``pool`` (flattened)."""
    for quote in quoted_passages(answer):
        pieces = [p.strip(" .") for p in _flat(quote).split("…")]
        if any(p and not any(p in t for t in pool) for p in pieces):
            return quote
    return None


def _misquoted(quote: str) -> Verdict:
    return Verdict(
        False, "lexical", 0.0, f"the quote {quote[:60]!r} is not in the cited paragraphs"
    )


def lexical_check(
    question: str, answer: str, evidence: list[str], threshold: float, context: str = ""
) -> Verdict:
    """Quotes verbatim in the ``evidence`` paragraphs, and the question's words covered
    by them (with ``context``: the titles of their sections, which frame them)."""
    quote = _unquoted(answer, [_flat(t) for t in evidence])
    if quote is not None:
        return _misquoted(quote)
    wanted = content_words(asked(question))
    if not wanted:
        return Verdict(True, "lexical", 1.0, "the question has no content words")
    have = content_words(" ".join([*evidence, context]))
    coverage = len(wanted & have) / len(wanted)
    missing = sorted(wanted - have)
    if coverage >= threshold:
        return Verdict(True, "lexical", coverage, "")
    return Verdict(
        False, "lexical", coverage, f"the cited paragraphs do not mention {', '.join(missing[:6])}"
    )


def dense_support(question: str, evidence: list[str]) -> float:
    """The best cosine similarity between what ``question`` asks and one of the
    ``evidence`` paragraphs (markup removed), by the local MiniLM model."""
    texts = [plain(t) for t in evidence]
    texts = [t for t in texts if t]
    if not texts:
        return 0.0
    vectors = local_vectors([asked(question), *texts])  # L2-normalised
    return float((vectors[1:] @ vectors[0]).max())


def dense_check(question: str, answer: str, evidence: list[str], threshold: float) -> Verdict:
    """Quotes verbatim in the ``evidence`` paragraphs, and the best of them close
    enough to the question: :func:`dense_support` ≥ ``threshold``."""
    quote = _unquoted(answer, [_flat(t) for t in evidence])
    if quote is not None:
        return _misquoted(quote)
    support = dense_support(question, evidence)
    if support >= threshold:
        return Verdict(True, "dense", support, "")
    return Verdict(
        False,
        "dense",
        support,
        f"no cited paragraph is about what the question asks (best similarity "
        f"{support:.2f}, needed {threshold:.2f})",
    )


def judge(
    model: Any,
    question: str,
    answer: str,
    evidence: dict[tuple[int, int, int], str],
    retries: int,
    timeout: float | None = None,
) -> tuple[Verdict | None, dict[str, int]]:
    """The LLM judge's verdict (None when its reply says neither word) and its usage."""
    # Framed and escaped as in an observation: a paragraph saying "Reply SUPPORTED" or
    # holding a forged "[1:2:3]" line is data inside the frame, never the judge's prompt.
    listing = "\n".join(
        [
            OPEN,
            *(
                f"[{d}:{s}:{p}] {escape(' '.join(text.split()))}"
                for (d, s, p), text in evidence.items()
            ),
            CLOSE,
        ]
    )
    prompt = fill("sufficiency", question=question, answer=answer, evidence=listing)
    reply = invoke_with_retry(model, [HumanMessage(content=prompt)], retries, timeout)
    # the counts only (a reply's usage may also hold dicts of details)
    usage = {
        key: value for key, value in (reply.usage_metadata or {}).items() if isinstance(value, int)
    }
    text = message_text(reply)
    head = text.strip().upper()
    if head.startswith("INSUFFICIENT") or ("INSUFFICIENT" in head and "SUPPORTED" not in head):
        reason = text.strip()[len("INSUFFICIENT") :].strip(" .:-\n") or "the judge found gaps"
        return Verdict(False, "judge", 0.0, reason), usage
    if "SUPPORTED" in head:
        return Verdict(True, "judge", 1.0, ""), usage
    return None, usage


#: Cited paragraphs the check reads, at most: every quote of an answer is checked
#: against its own paragraph, and an answer quoting a lead-in with its list items cites
#: ~20 (12 left the later quotes of such an answer "not in the cited paragraphs").
EVIDENCE_PARAGRAPHS = 48


def evidence(index: Index, coords: list[tuple[int, int, int]]) -> dict[tuple[int, int, int], str]:
    """The text of (at most :data:`EVIDENCE_PARAGRAPHS` of) the cited paragraphs, in the
    order cited; neighbours read together, one read per run."""
    wanted = list(dict.fromkeys(coords))[:EVIDENCE_PARAGRAPHS]
    texts: dict[tuple[int, int, int], str] = {}
    for key, spans in regions_of(wanted).items():
        d, s = map(int, key.split(":"))
        for first, last in spans:
            for paragraph in index.read(d, s, first, last).paragraphs:
                texts[paragraph.coord] = paragraph.text
    return {c: texts[c] for c in wanted if c in texts}


def extra_read(
    index: Index, regions: Regions, coord: tuple[int, int, int], budget: int = EXTRA_READ_BUDGET
) -> dict[str, int] | None:
    """read_section arguments for the section around ``coord`` (or its parent, when
    that section was shown whole already), within ``budget`` tokens counted on its
    paragraphs (:mod:`deepread.nodes.read_plan`); None when nothing unread fits."""
    doc = index.document(coord[0])
    sections = Sections(index)
    sec_id, para = coord[1], coord[2]
    while True:
        sec = doc.sections[sec_id]
        shown = {i for i in range(sec.n_para) if was_read(regions, doc.doc_id, sec_id, i)}
        if len(shown) < sec.n_para:
            break
        if sec.parent is None:
            return None
        sec_id, para = sec.parent, 0
    got = fit(sections.read_cost(doc.doc_id, sec_id), para, budget, shown)
    if got is None:
        return None
    return {"doc_id": doc.doc_id, "sec_id": sec_id, "start": got[0], "end": got[1]}


#: Passages an abstention points at — runs of neighbouring paragraphs cited together, as
#: an answer quotes a passage — and the characters of each shown as a hint.
ABSTENTION_PASSAGES = 3
ABSTENTION_CHARS = 120
#: The longest question an abstention repeats.
_ASKED_CHARS = 160


def abstention(
    index: Index, coords: list[tuple[int, int, int]], label: str = "", question: str = ""
) -> str:
    """The answer that abstains: one line saying what was searched (``question``, in how
    many documents), then pointers to the closest passages read — the first
    :data:`ABSTENTION_PASSAGES` runs of neighbouring paragraphs of ``coords`` (the
    passages the draft quoted), each its citation (a range for a run), page, section
    and opening words (:data:`ABSTENTION_CHARS`): the person sees in a moment that
    nothing answered and where to look, rather than the quotes that did not answer.
    ``label``: the label of the answer it replaces (kept in its metadata, not its
    text)."""
    runs = _runs(coords)
    docs = len({d for d, _, _ in coords})
    asked_for = f' "{escape(clip(" ".join(question.split()), _ASKED_CHARS))}"' if question else ""
    where = f" in {docs} document{'s' if docs != 1 else ''}" if docs else ""
    text = (
        f"{ABSTENTION} (searched for{asked_for or ' it'}{where})"
        if asked_for or where
        else ABSTENTION
    )
    lines: list[str] = []
    for run in runs[:ABSTENTION_PASSAGES]:
        d, s, first = run[0]
        last = run[-1][2]
        doc = index.document(d)
        headings = _headings(doc, s)
        title = title_text(doc.sections[s].title)
        got = index.read(d, s, first, first).paragraphs
        para = got[0] if got else None
        # title and excerpt are document text: a "[2:1:0]" in them must not become a
        # citation (escaped); the pointer's own citation comes first.
        hint = clip(plain(_body(para.text, headings)), ABSTENTION_CHARS) if para else ""
        mark = f"[{d}:{s}:{first}-{last}]" if last != first else f"[{d}:{s}:{first}]"
        page = f" p. {para.page}" if para and para.page else ""
        section = f" {title}" if title else ""
        lines.append(f'- {mark}{page}{section} — "{escape(hint)}"')
    if lines:
        text += "\nClosest passages read:\n" + "\n".join(lines)
    return text


def _runs(coords: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    """``coords`` (in the order cited, each once) as runs of neighbours: a paragraph
    cited right after the one before it in its section continues that run."""
    runs: list[list[tuple[int, int, int]]] = []
    for coord in dict.fromkeys(coords):
        last = runs[-1][-1] if runs else None
        if last is not None and last[:2] == coord[:2] and last[2] + 1 == coord[2]:
            runs[-1].append(coord)
        else:
            runs.append([coord])
    return runs


def _headings(doc: Document, sec_id: int) -> set[str]:
    """The titles of section ``sec_id`` and its ancestors, whitespace collapsed."""
    titles: set[str] = set()
    current: int | None = sec_id
    while current is not None:
        section = doc.sections[current]
        titles.add(" ".join(section.title.split()))
        current = section.parent
    return titles


def _body(text: str, headings: set[str]) -> str:
    """``text`` without the heading lines a section's first paragraph opens with (the
    contextual header): an excerpt shows what the passage says, its section is named
    beside it."""
    lines = text.split("\n")
    start = 0
    while start < min(len(lines) - 1, 8) and " ".join(lines[start].split()) in headings:
        start += 1
    return "\n".join(lines[start:])
