"""Text cut short for showing: at a word, marked with " …".

Quotes in answers, excerpts in abstentions, the flat baselines' quotes and the heading
lines carried into a paragraph all show at most so many characters of a longer text, and
each cut it the same way; the cut lives here, below every layer that shows text.
"""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    """``text`` when it holds at most ``limit`` characters; else its first ``limit``
    cut back to the last whole word, followed by " …"."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"
