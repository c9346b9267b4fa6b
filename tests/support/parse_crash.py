"""A parse function for worker processes that dies like a crashing parser on some files;
``ParseAhead(worker="support.parse_crash:parse_or_die")`` has its workers import it."""

from __future__ import annotations

import os
from pathlib import Path

from deepread.corpus.parsing import Structured


def parse_or_die(path: Path) -> Structured:
    """The worker's parse, except that a file named ``crash*`` kills its process."""
    if Path(path).name.startswith("crash"):
        os._exit(70)  # as a segfault in a parsing library would end it: no exception
    from deepread.corpus.parse_worker import parse_in_worker

    return parse_in_worker(path)
