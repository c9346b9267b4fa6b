"""Prompt texts: the system prompt (paper Fig. 5), tool descriptions, budget notice.

Kept as Markdown files so they can be read and edited without touching code.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_SLOT = re.compile(r"\{([a-z_]+)\}")


@cache
def load(name: str) -> str:
    """The text of ``prompts/<name>.md``, without its trailing newline."""
    return (resources.files(__package__) / f"{name}.md").read_text(encoding="utf-8").rstrip("\n")


def fill(name: str, **values: str) -> str:
    """``prompts/<name>.md`` with its ``{slot}`` placeholders filled in one pass: a value
    that holds a slot's name (a question asking about "{evidence}", a document quoting
    "{answer}") stays as it is, never filled in turn."""
    return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), load(name))
