"""The ``deepread`` parser: the shared options, then one subcommand per command module.

Every subcommand is registered here, so every one is in ``deepread --help`` and in the
shell completion scripts, which are generated from this parser
(:mod:`deepread.cli.completion`). Building it imports no heavy dependency.
"""

from __future__ import annotations

import argparse

from deepread.cli import (
    ask,
    chat,
    collections,
    completion,
    documents,
    evaluation,
    ingest,
    mcp,
    reading,
    serve,
    show,
)
from deepread.cli.arguments import Parser

DESCRIPTION = "Locate, then read: question answering over long structured documents (DeepRead)."


class VersionAction(argparse.Action):
    """``--version``: the installed distribution's version, read only when asked."""

    def __init__(
        self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object
    ) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="print deepread's version and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        import sys

        import deepread

        sys.stdout.write(f"deepread {deepread.__version__}\n")  # stdout, as argparse's own
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    location = Parser(add_help=False)
    location.add_argument(
        "--store",
        default=None,
        help="store directory or Qdrant URL (default: $DEEPREAD_STORE, "
        "$QDRANT_URL, or the per-user data directory)",
    )
    location.add_argument(
        "--embeddings",
        default=None,
        help="'local' (default, offline) or 'openai:<model>'; default $DEEPREAD_EMBEDDINGS",
    )
    output = Parser(add_help=False)
    output.add_argument("--json", action="store_true", help="machine-readable output")
    common = Parser(add_help=False, parents=[location, output])
    common.add_argument("--collection", default="default", help="collection name")

    parser = Parser(prog="deepread", description=DESCRIPTION)
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ingest.register(sub, common)
    documents.register(sub, common)
    reading.register(sub, common)
    ask.register(sub, common)
    chat.register(sub, common)
    show.register(sub, common)
    serve.register(sub, common)
    collections.register(sub, common, Parser(add_help=False, parents=[location, output]))
    evaluation.register(sub, common)
    mcp.register(sub, location)
    completion.register(sub, parser)
    return parser
