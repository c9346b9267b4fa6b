"""The commonest English words, as the local MiniLM model's vocabulary ranks them.

The WordPiece vocabulary shipped in ``stores/minilm/`` lists BERT's whole words in
descending frequency over its training text (Wikipedia and books): "the" is entry
1,996, "many" 2,116, "course" 2,607, "phone" 3,042, "lab" 6,845; "apron" is not in it
whole. Entries below :data:`COMMON_RANK` (the ~3,000 commonest words, after ~2,000
characters and reserved tokens) are how questions are phrased and generic nouns: the
sufficiency check does not count them as what a document lacks
(:mod:`deepread.nodes.sufficiency.unused_terms`), and the document search does not read a
capitalised one as a name (:mod:`deepread.corpus.library.search`).
"""

from __future__ import annotations

import json
from functools import cache

from deepread.stores.local_model import TOKENIZER_FILE
from deepread.text.terms import stem

#: Vocabulary entries below this are the commonest words. Measured on the SyllabusQA
#: dev questions (bench/abstention.py): counting every unused word (no floor) or only
#: words past 3,000 entries helps less than 5,000 or 8,000, which do about the same.
COMMON_RANK = 5000


@cache
def _ranks() -> dict[str, int]:
    """The MiniLM WordPiece vocabulary: word → entry number (lower is commoner)."""
    with TOKENIZER_FILE.open(encoding="utf-8") as fh:
        return dict(json.load(fh)["model"]["vocab"])


def is_common(word: str) -> bool:
    """Whether ``word`` (lower case) is among the commonest English words."""
    ranks = _ranks()
    rank = min(ranks.get(word, COMMON_RANK), ranks.get(stem(word), COMMON_RANK))
    return rank < COMMON_RANK
