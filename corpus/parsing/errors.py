"""The one error type readers raise for a file they cannot turn into a document."""

from __future__ import annotations


class ParseError(ValueError):
    """A file could not be parsed; the message says what is wrong and what to do."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason
