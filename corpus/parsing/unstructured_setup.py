"""``unstructured``'s partitioners, made to run offline, fast and quietly.

Three things in unstructured would reach the network or slow parsing down, and it offers
no argument for any of them:

* **A spaCy model download.** unstructured runs spaCy over every text element to tell
  ``NarrativeText`` from plain ``Text``, and when ``en_core_web_sm`` is missing it
  downloads it from GitHub on first use — which fails offline. deepread maps both
  categories to the same paragraph kind, so the tagger's verdict is never used: we hand
  unstructured a blank English pipeline with a rule-based sentencizer instead (its
  module-level ``_get_nlp``). Every element boundary and list/table/code/heading decision
  comes from markup and regexes and is kept; the devset HTML pages parse 3.7× faster
  (1.5 s against 5.7 s; model load 0.2 s against 2.5 s).
* **A library-load analytics ping** (``import unstructured`` runs ``nvidia-smi`` and sends
  an HTTP request) that only the environment variables ``DO_NOT_TRACK`` /
  ``SCARF_NO_ANALYTICS`` switch off. We set them *only around that one import* and put
  back exactly what was there before, so the host program's environment is unchanged
  afterwards (another thread reading the environment during that import could see them;
  the import happens once per process).
* **A per-call telemetry event and a commercial notice**, added by the outermost
  decorator of each public partitioner (``unstructured.telemetry``). deepread calls the
  function that decorator wraps (``__wrapped__``) instead, so neither runs for our calls,
  with no environment variable and no change to unstructured for anyone else.

(``HF_HUB_OFFLINE`` used to be set here too; nothing deepread runs uses the Hugging Face
hub — the tokenizer is read from a file — so it is simply no longer touched.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import import_module
from typing import Any

from deepread.environment.quiet_import import import_quietly

_OPT_OUT = {"DO_NOT_TRACK": "1", "SCARF_NO_ANALYTICS": "true"}

#: deepread's names for the partitioners it uses: (module, function).
_PARTITIONERS = {
    "html": ("unstructured.partition.html", "partition_html"),
    "docx": ("unstructured.partition.docx", "partition_docx"),
    "text": ("unstructured.partition.text", "partition_text"),
}


@lru_cache(maxsize=1)
def prepare_unstructured() -> None:
    """Import unstructured without its ping and plug the blank spaCy pipeline in."""
    import_quietly("unstructured", _OPT_OUT)
    import spacy
    import unstructured.nlp.tokenize as tokenize

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    bounded = _BoundedTokens(nlp)
    # unstructured resolves the pipeline through this module-level function on every
    # call, so replacing it is enough to keep its download path from ever running.
    # (Typed as its cached loader of a spaCy Language; what it returns is only called on
    # text, which _BoundedTokens does as the Language would.)
    tokenize._get_nlp = lambda: bounded  # type: ignore[assignment]


#: Longest run without whitespace handed to spaCy's tokenizer (see ``_BoundedTokens``).
MAX_TOKEN_CHARS = 200
_LONG_RUN = re.compile(rf"\S{{{MAX_TOKEN_CHARS}}}")


class _BoundedTokens:
    """The spaCy pipeline, fed text whose whitespace-free runs are cut every 200 chars.

    spaCy's tokenizer strips a token's trailing punctuation one character at a time,
    searching the whole remaining token each time: a paragraph of 6,000 brackets or
    closing parentheses took 4.5 s, four times as many 39 s. unstructured uses the
    pipeline only for its text-type heuristics (sentence and capital counts), whose
    verdict deepread does not use (see the module docstring), and never rebuilds element
    text from it; cutting runs no word is as long as keeps that work linear.
    """

    def __init__(self, nlp: Any) -> None:
        self._nlp = nlp
        # unstructured cuts longer texts to this; the spaces added must still fit.
        self.max_length = nlp.max_length - nlp.max_length // MAX_TOKEN_CHARS - 1

    def __call__(self, text: str) -> Any:
        return self._nlp(_LONG_RUN.sub(lambda m: m.group(0) + " ", text))


def _without_telemetry(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function inside unstructured's telemetry decorator, when that is the outermost."""
    from unstructured import telemetry

    inner = getattr(fn, "__wrapped__", None)
    code = getattr(fn, "__code__", None)
    if inner is not None and code is not None and code.co_filename == telemetry.__file__:
        return inner
    return fn  # a version without the decorator: nothing to skip


@cache
def partitioner(kind: str) -> Callable[..., Any]:
    """unstructured's ``partition_<kind>``, ready offline and without telemetry."""
    prepare_unstructured()
    module, name = _PARTITIONERS[kind]
    return _without_telemetry(getattr(import_module(module), name))
