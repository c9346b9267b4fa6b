"""Prompt texts: the system prompt (paper Fig. 5), tool descriptions, budget notice.

Kept as Markdown files so they can be read and edited without touching code.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    """The text of ``prompts/<name>.md``, without its trailing newline."""
    return (resources.files(__package__) / f"{name}.md").read_text(encoding="utf-8").rstrip("\n")
