"""References inside questions and documents — "Table 3", "Figure 2.1", "Section 4.2",
"§4.2", "section Organizing test code", "page 12" — resolved to coordinates.

Long documents point at their own parts (DMAP, ``papers/dmap.txt``: "cross-reference
relations"; its locate agent extracts "Page 7", "Table 3"). A reader follows such a
pointer instead of searching for it. What resolves to what:

* **Numbered sections** — "Section 4.2", "Sec. 4.2", "§4.2", "§ 4.8.3.2", or a bare
  "4.8.3.2" handed to the tool: the section whose title starts with that number
  ("4.2 Foo", "4.2. Foo", "Section 4.2: Foo", "9.3.1. Class Definition Syntax").
* **Named sections** — "section Organizing test code", "chapter Data Structures" (the
  Python documentation's style): the section whose title, without its number, the words
  after "section"/"chapter" begin with (longest title wins; titles of one word under
  four letters are not matched). A mention whose target is in another document set
  (the Python docs' "chapter Data Structures") resolves to nothing.
* **Tables and figures** — "Table 3", "Fig. 2.1": the paragraph whose ``label`` is that
  (parsers that recognise captions set it), else a table/figure/caption/image paragraph
  whose caption or text starts with the label, else a paragraph that starts like a
  caption ("Table 3:", "Table 3.", "Table 3 –").
* **Pages** — "page 12", "p. 12": the paragraphs printed on that page (PDFs), in
  reading order, under the first section that touches it.

Matching is case-insensitive. :func:`mentions` finds reference mentions in free text
with a cheap regex (the policy uses it to decide whether to offer ``follow_reference``).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepread.records.documents import Document, Paragraph
from deepread.text.markup import untagged

_NUM = r"\d{1,3}(?:\.\d{1,3})*"
_SECTION = re.compile(rf"(?:\b(?:sections?|sect?\.)\s*|§§?\s*)({_NUM})\b(?!\.\d)", re.IGNORECASE)
_LABELLED = re.compile(rf"\b(table|tab\.|figure|fig\.)\s*({_NUM}[a-z]?)\b", re.IGNORECASE)
_PAGE = re.compile(r"\b(?:page|p\.)\s*(\d{1,5})\b", re.IGNORECASE)
# "section Organizing test code": the keyword, then a capitalised word.
_NAMED = re.compile(r"\b(?:[Ss]ection|[Cc]hapter)\s+(?=[A-Z])([^\n]{1,120})")
_BARE = re.compile(rf"^\s*({_NUM})\.?\s*$")
_TITLE_NUMBER = re.compile(
    rf"^\s*(?:(?:section|chapter|part)\s+)?({_NUM})\.?(?=\s|:|$)", re.IGNORECASE
)


def _kind(word: str) -> str:
    return "table" if word.lower().startswith("tab") else "figure"


@dataclass(frozen=True, slots=True)
class Mention:
    """A reference as written: its kind ("section", "named", "table", "figure",
    "page"), its key (a number, a label number or a name) and the text matched."""

    kind: str
    key: str
    text: str


@dataclass(slots=True)
class Target:
    """What a reference points at. ``coords`` are the paragraphs to show (empty for a
    section: read it); ``sec_id`` is the section holding them (the first one for a
    page)."""

    mention: Mention
    doc_id: int
    sec_id: int
    title: str
    coords: list[tuple[int, int, int]] = field(default_factory=list)


def mentions(text: str) -> list[Mention]:
    """Reference mentions in ``text``, in order of appearance, each once."""
    found: list[tuple[int, Mention]] = []
    for m in _SECTION.finditer(text):
        found.append((m.start(), Mention("section", m.group(1), m.group(0))))
    for m in _LABELLED.finditer(text):
        found.append((m.start(), Mention(_kind(m.group(1)), m.group(2).lower(), m.group(0))))
    for m in _PAGE.finditer(text):
        found.append((m.start(), Mention("page", m.group(1), m.group(0))))
    for m in _NAMED.finditer(text):
        if not re.match(rf"{_NUM}\b", m.group(1)):  # "Section 4.2" is numbered, above
            found.append((m.start(), Mention("named", m.group(1).strip(), m.group(0))))
    out: list[Mention] = []
    for _, mention in sorted(found, key=lambda x: x[0]):
        if mention not in out:
            out.append(mention)
    return out


def parse_reference(reference: str) -> list[Mention]:
    """What the ``follow_reference`` tool was asked for: mentions in the text, a bare
    section number ("4.2"), or else a section name."""
    bare = _BARE.match(reference)
    if bare:
        return [Mention("section", bare.group(1), reference)]
    found = mentions(reference)
    if found:
        return found
    name = reference.strip().strip("\"'“”‘’")
    return [Mention("named", name, reference)] if name else []


def section_number(title: str) -> str | None:
    """The number a section title starts with ("4.2. Foo" → "4.2"), if any."""
    m = _TITLE_NUMBER.match(title)
    return m.group(1) if m else None


def _norm(text: str) -> str:
    return " ".join(untagged(text).lower().replace("’", "'").split())


def section_name(title: str) -> str:
    """A title without its number and trailing punctuation, normalised for matching."""
    m = _TITLE_NUMBER.match(title)
    rest = title[m.end() :] if m else title
    return _norm(rest).strip(" .:;,-–—¶")


def _label_key(label: str) -> tuple[str, str] | None:
    m = _LABELLED.match(label.strip())
    return (_kind(m.group(1)), m.group(2).lower()) if m else None


def _caption_like(text: str, kind: str, key: str) -> bool:
    """``text`` starts like the caption of ``kind`` ``key`` ("Table 3:", "Fig. 3.")."""
    m = _LABELLED.match(_norm(text))
    if not m or (_kind(m.group(1)), m.group(2).lower()) != (kind, key):
        return False
    rest = _norm(text)[m.end() :].lstrip()
    return rest == "" or rest[0] in ":.–—-|"


class Resolver:
    """Resolves mentions against documents.

    ``paragraphs(doc)`` loads a document's paragraphs in reading order; it is called at
    most once per document (tables, figures and pages need them; sections only need
    titles), so a resolver is cheap to keep per index.
    """

    def __init__(
        self, documents: Sequence[Document], paragraphs: Callable[[Document], list[Paragraph]]
    ) -> None:
        self.documents = list(documents)
        self._load = paragraphs
        self._paragraphs: dict[int, list[Paragraph]] = {}
        self._lock = threading.Lock()

    def paragraphs(self, doc: Document) -> list[Paragraph]:
        with self._lock:
            if doc.doc_id not in self._paragraphs:
                self._paragraphs[doc.doc_id] = self._load(doc)
            return self._paragraphs[doc.doc_id]

    def _scope(self, doc_ids: Iterable[int] | None, prefer: Sequence[int] = ()) -> list[Document]:
        docs = self.documents
        if doc_ids is not None:
            wanted = set(doc_ids)
            docs = [d for d in docs if d.doc_id in wanted]
        first = {d: i for i, d in enumerate(prefer)}
        return sorted(docs, key=lambda d: first.get(d.doc_id, len(first)))

    def resolve(
        self,
        mention: Mention,
        doc_ids: Iterable[int] | None = None,
        prefer: Sequence[int] = (),
        *,
        limit: int = 3,
    ) -> list[Target]:
        """Targets of ``mention`` in the documents ``doc_ids`` (all if None), those of
        the ``prefer`` documents first; at most ``limit``, one per document."""
        out: list[Target] = []
        for doc in self._scope(doc_ids, prefer):
            target = self._in_document(mention, doc)
            if target is not None:
                out.append(target)
                if len(out) >= limit:
                    break
        return out

    def resolves(self, mention: Mention, doc_ids: Iterable[int] | None = None) -> bool:
        """Whether ``mention`` has a target; without loading paragraphs (tables,
        figures and pages are assumed to, sections are checked against titles)."""
        if mention.kind not in ("section", "named"):
            return True
        return any(self._section(mention, doc) is not None for doc in self._scope(doc_ids))

    def _in_document(self, mention: Mention, doc: Document) -> Target | None:
        if mention.kind in ("section", "named"):
            sec_id = self._section(mention, doc)
            if sec_id is None:
                return None
            return Target(mention, doc.doc_id, sec_id, doc.sections[sec_id].title)
        paragraphs = self.paragraphs(doc)
        if mention.kind == "page":
            on_page = [p for p in paragraphs if p.page == int(mention.key)]
            if not on_page:
                return None
            first = on_page[0].sec_id
            return Target(
                mention, doc.doc_id, first, doc.sections[first].title, [p.coord for p in on_page]
            )
        hit = self._labelled(mention.kind, mention.key, paragraphs)
        if hit is None:
            return None
        coords = [hit.coord]
        # A caption printed as its own paragraph right before or after the table (or,
        # when the caption was found, the table or figure next to it).
        partner = ("table", "figure", "image") if hit.kind == "caption" else ("caption",)
        for p in paragraphs:
            if (
                (p.doc_id, p.sec_id) == (hit.doc_id, hit.sec_id)
                and abs(p.para_idx - hit.para_idx) == 1
                and p.kind in partner
            ):
                own = _label_key(getattr(p, "label", None) or _norm(p.text)[:40])
                if own in (None, (mention.kind, mention.key)):
                    coords.append(p.coord)
        return Target(
            mention, doc.doc_id, hit.sec_id, doc.sections[hit.sec_id].title, sorted(coords)
        )

    @staticmethod
    def _section(mention: Mention, doc: Document) -> int | None:
        if mention.kind == "section":
            for sec in doc.sections[1:]:
                if section_number(sec.title) == mention.key:
                    return sec.sec_id
            return None
        wanted = _norm(mention.key)
        best: tuple[int, int] | None = None
        for sec in doc.sections[1:]:
            name = section_name(sec.title)
            if not name or (" " not in name and len(name) < 4):
                continue
            matches = wanted == name or (
                wanted.startswith(name) and not wanted[len(name)].isalnum()
            )
            if matches and (best is None or len(name) > best[0]):
                best = (len(name), sec.sec_id)
        return best[1] if best else None

    @staticmethod
    def _labelled(kind: str, key: str, paragraphs: list[Paragraph]) -> Paragraph | None:
        for p in paragraphs:  # 1. the parser's label
            label = getattr(p, "label", None)
            if label and _label_key(label) == (kind, key):
                return p
        visual = ("table", "figure", "caption", "image")
        for p in paragraphs:  # 2. a table/figure whose caption or text starts with it
            caption = getattr(p, "caption", None) or ""
            if p.kind in visual and (
                _label_key(caption[:40]) == (kind, key)
                or _label_key(_norm(p.text)[:40]) == (kind, key)
            ):
                return p
        for p in paragraphs:  # 3. a paragraph that starts like its caption
            if _caption_like(p.text[:80], kind, key):
                return p
        return None


def collection_paragraphs(index: Any) -> Callable[[Document], list[Paragraph]]:
    """A loader of a document's paragraphs from an :class:`~deepread.corpus.index.Index`."""

    def load(doc: Document) -> list[Paragraph]:
        out: list[Paragraph] = []
        for sec in doc.sections:
            if sec.n_para:
                out += index.collection.paragraphs(doc.doc_id, sec.sec_id, 0, sec.n_para - 1)
        return out

    return load


_RESOLVERS: weakref.WeakKeyDictionary[Any, tuple[tuple[tuple[int, str], ...], Resolver]] = (
    weakref.WeakKeyDictionary()
)
_RESOLVERS_LOCK = threading.Lock()


def resolver_for(index: Any) -> Resolver:
    """The index's resolver, rebuilt when its documents change (kept while the index
    lives)."""
    documents = index.documents()
    key = tuple((d.doc_id, d.content_hash) for d in documents)
    with _RESOLVERS_LOCK:
        cached = _RESOLVERS.get(index)
        if cached is None or cached[0] != key:
            cached = (key, Resolver(documents, collection_paragraphs(index)))
            _RESOLVERS[index] = cached
        return cached[1]
