"""The one error type readers raise for a file they cannot turn into a document."""

from __future__ import annotations


class ParseError(ValueError):
    """A file could not be parsed; the message says what is wrong and what to do."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason

    def __reduce__(self) -> tuple:
        # Rebuilt from both fields (the default would pass the message alone), so it
        # survives the trip back from a parsing worker process (corpus/parse_ahead.py).
        return (type(self), (self.path, self.reason))
