"""Specific words of a question that its documents never use: evidence of no answer.

A question about something its document never mentions ("Are aprons required in the
labs?" of a syllabus that says nothing of aprons) still sits close, by cosine, to the
paragraphs on the same topic (the lab rules), so a similarity alone lets it through.
That the document never uses the word the question asks about is separate evidence the
answer is not there; the sufficiency check then wants closer support
(``Context.unused_term_support``, :mod:`deepread.nodes.check`).

A question word counts as *unused* when all of these hold:

1. it is **specific**: not among the commonest English words
   (:mod:`deepread.corpus.common_words`). The local MiniLM model's
   WordPiece vocabulary (shipped in ``stores/minilm/``) lists BERT's whole words in
   descending frequency over its training text (Wikipedia and books): "the" is entry
   1,996, "many" 2,116, "course" 2,607, "phone" 3,042, "lab" 6,845, "apron" is not in
   it whole. Entries below :data:`~deepread.corpus.common_words.COMMON_RANK` (the
   ~3,000 commonest words, after ~2,000 characters and reserved tokens) never count:
   how a question is phrased ("how many", "worth", "need", "take", "held") and generic
   nouns ("course", "class", "students") are not what a document is missing. A word is
   as common as the commoner of itself and its crude stem ("exams" → "exam");
2. it is not a word naming a kind of document (:data:`DOCUMENT_KINDS`: "syllabus",
   "filing", "manual" …) — a question calling the document by its kind asks nothing
   the document lacks — nor a word about documents in general (the check's ``META_WORDS``);
3. the document does not use it: not in any paragraph or section title, nor in its
   title or file name, compared by the crude stem of :mod:`deepread.text.terms`;
   a word fusing letters and digits ("FY2022", "ISE4100") is used when each of its
   runs of three or more letters or digits is ("fiscal 2022"); a compound ("cashflow",
   "topline") is used when it splits into two words the document uses, and a word
   that begins one the document uses is its abbreviation ("lab" of "laboratory").

The vocabulary of a document is built once from its paragraphs and kept per content
hash (:func:`document_words`).
"""

from __future__ import annotations

import re

from deepread.corpus.common_words import is_common
from deepread.corpus.index import Index
from deepread.nodes.lru import Lru
from deepread.nodes.sufficiency.support import META_WORDS
from deepread.records.documents import Document
from deepread.text.markup import untagged
from deepread.text.terms import stem, terms

#: Words naming a kind of document: a question may call its document by them.
DOCUMENT_KINDS = frozenset(
    "syllabus syllabi filing filings report reports manual manuals handbook guide "
    "article articles paper papers book booklet brochure policy policies transcript "
    "memo letter contract agreement specification spec readme".split()
)
_RUNS = re.compile(r"[a-z]{3,}|[0-9]{3,}")
#: Documents whose vocabulary is kept (a few syllabi or filings per run).
_KEPT = 32
#: (evaluations answer questions on several threads: the Lru is thread-safe)
_vocabularies: Lru[tuple[str, int, str], frozenset[str]] = Lru(_KEPT)


def words_of(text: str) -> set[str]:
    """The crude stems of ``text``'s words (:func:`deepread.text.terms.terms`)."""
    return {stem(w) for w in terms(untagged(text))}


def _used(word: str, vocabulary: frozenset[str] | set[str]) -> bool:
    if stem(word) in vocabulary:
        return True
    runs = _RUNS.findall(word)
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        # Letters and digits fused: judged by their runs; none long enough → no verdict.
        return all(stem(r) in vocabulary for r in runs) if runs else True
    # An abbreviation of a word the document uses ("lab" of "laboratory"), or a
    # compound of two ("cashflow" = "cash" + "flow").
    return any(used.startswith(word) for used in vocabulary) or any(
        stem(word[:i]) in vocabulary and stem(word[i:]) in vocabulary
        for i in range(3, len(word) - 2)
    )


def unused_terms(question: str, vocabulary: frozenset[str] | set[str]) -> list[str]:
    """The specific words of ``question`` that a document with ``vocabulary`` (crude
    stems, :func:`document_words`) never uses, in order of first appearance."""
    out: list[str] = []
    for match in re.finditer(r"[A-Za-z0-9_]+", question):
        word = match.group(0).lower()
        if word in out or word not in terms(word):  # stop words, 1-2 letters
            continue
        if word in META_WORDS or word in DOCUMENT_KINDS or stem(word) in DOCUMENT_KINDS:
            continue
        if not is_common(word) and not _used(word, vocabulary):
            out.append(word)
    return out


def document_words(index: Index, doc_id: int) -> frozenset[str]:
    """The crude stems of every word of document ``doc_id``: its paragraphs, section
    titles, title and file name; kept for the last few documents asked about."""
    doc = index.document(doc_id)
    key = (index.name, doc_id, doc.content_hash or f"{doc.source}:{doc.n_para}:{doc.n_tok}")
    return _vocabularies.get_or_make(key, lambda: _words_of_document(index, doc))


def _words_of_document(index: Index, doc: Document) -> frozenset[str]:
    words = words_of(f"{doc.title} {re.sub(r'[^A-Za-z0-9]+', ' ', doc.source)}")
    for sec in doc.sections:
        words |= words_of(sec.title)
        if sec.n_para:
            for para in index.read(doc.doc_id, sec.sec_id).paragraphs:
                words |= words_of(para.text)
    return frozenset(words)
