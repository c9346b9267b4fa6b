"""Argument hygiene: a terminal-safe parser, undecodable bytes, integer ranges.

Arguments that are not valid UTF-8 are decoded from their bytes
(:func:`deepread.text.hygiene.decode_argument`), except those naming files, which keep
the bytes the system gave; integer options outside their range and an empty
``--store`` are usage errors (exit 2) before any work.
"""

from __future__ import annotations

import argparse
from typing import Any

from deepread.terminal import terminal_text

#: Integer options and the least value each accepts (argparse's ``dest`` → flag, min).
MINIMUMS: dict[str, tuple[str, int]] = {
    "k": ("--k", 1),
    "window": ("--window", 0),
    "budget": ("--budget", 1),
    "describe_max_sections": ("--describe-max-sections", 0),
    "describe_max_tokens": ("--describe-max-tokens", 0),
    "doc_id": ("DOC", 0),
    "sec_id": ("SEC", 0),
    "start": ("START", 0),
    "end": ("END", 0),
    "workers": ("--workers", 1),
    "limit": ("--limit", 1),
    "sample": ("--sample", 1),
    "max_rounds": ("--max-rounds", 1),
    "n": ("--n", 1),
    "docs": ("--docs", 1),
    "seed": ("--seed", 0),
    "doc_ids": ("DOC", 0),
    "doc": ("--doc", 0),
}
#: The largest value of every integer option: what the Index takes
#: (``deepread.corpus.index.MAX_WHOLE``, not imported: the face stays light until a
#: command runs). Past it the engine could not convert the number and the command
#: said the store "could not be used" (exit 3).
MAXIMUM = 2**63 - 1
#: Arguments that name files: kept as the bytes the system gave (a file name need not
#: be valid UTF-8); every other text argument is decoded and cleaned.
PATH_ARGUMENTS = frozenset({"paths", "store", "out", "dataset", "checkpointer", "show"})


def doc_ids(text: str) -> list[int]:
    """One ``--doc`` value: a doc_id or a comma-separated list of them (``4``, ``4,7``)."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a doc_id or doc_ids separated by commas (4 or 4,7), not {text!r}"
        ) from None


def add_doc_option(p: argparse.ArgumentParser) -> None:
    """``--doc``: one value per flag, each an id or a comma-separated list, gathered.

    Not ``nargs="+"``: that swallowed the positional after it (``ask --doc 4 "What does
    sort_keys do?"`` took the question as a second doc_id, "invalid int value")."""
    p.add_argument(
        "--doc",
        type=doc_ids,
        action="extend",
        metavar="ID",
        help="only these doc_ids: --doc 4, --doc 4,7 or --doc 4 --doc 7",
    )


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors (which quote the arguments) terminal-safe."""

    def _print_message(self, message: str, file: Any = None) -> None:
        super()._print_message(terminal_text(message) if message else message, file)


def clean_arguments(args: argparse.Namespace) -> None:
    """Decode arguments that were not valid UTF-8; file names keep their bytes."""
    from deepread.text.hygiene import decode_argument

    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS:
            continue
        if isinstance(value, str):
            setattr(args, name, decode_argument(value))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            setattr(args, name, [decode_argument(v) for v in value])


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Ranges of integer options and an empty ``--store``: exit 2 before any work."""
    for name, (flag, least) in MINIMUMS.items():
        value = getattr(args, name, None)
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, int) and v < least:
                parser.error(f"{flag} must be at least {least} (got {v})")
            if isinstance(v, int) and v > MAXIMUM:
                parser.error(f"{flag} must be at most {MAXIMUM} (got {v})")
    store = getattr(args, "store", None)
    if store is not None and not store.strip():
        parser.error("--store is empty; pass a store directory or a Qdrant URL")
