"""``deepread``'s entry point: parse, run the command, map its failures to exit codes.

Only deepread's own error classes are mapped (one ``deepread: …`` line each, the README's
exit codes); a ``KeyError`` or ``ValueError`` from anywhere else is a bug, and its
traceback is the report it deserves.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from deepread.cli.arguments import check_arguments, clean_arguments
from deepread.cli.common import EXIT_OK, EXIT_STORE, EXIT_USAGE, fail
from deepread.cli.parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    process = argv is None  # the console script, not a call from Python
    argv = list(sys.argv[1:] if argv is None else argv)
    if process:  # the console script, not a program calling main(): its handlers stay
        from deepread.fatal_signals import report_fatal_signals

        report_fatal_signals()
    parser = build_parser()
    args = parser.parse_args(argv)
    clean_arguments(args)
    check_arguments(parser, args)
    from deepread.interrupts import Interrupted, as_interrupted, interruptible

    try:
        with interruptible():
            return run(args)
    except (Interrupted, KeyboardInterrupt) as exc:  # outside a command's own handling
        interrupted = as_interrupted(exc)
        fail("interrupted")
        return interrupted.exit_code


def run(args: argparse.Namespace) -> int:
    """The command, its expected failures mapped to exit codes with one line each."""
    import errno
    import sqlite3

    from deepread.checkpointers import CheckpointerError
    from deepread.corpus.parsing import ParseError
    from deepread.environment.settings import SettingsError
    from deepread.models.chat import ModelConfigError
    from deepread.nodes.context import ContextError
    from deepread.records.errors import CoordinateError, StoreError, UsageError, WriteConflict
    from deepread.records.locations import check_store_directory, is_url

    try:
        if getattr(args, "store", None) and not is_url(args.store):
            check_store_directory(args.store)  # a file, not a folder: exit 3, nothing written
        return args.func(args)
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (StoreError, WriteConflict) as exc:  # (another process writes that document)
        fail(exc)
        return EXIT_STORE
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        fail(f"no space left on the device: {exc}")
        return EXIT_STORE
    except sqlite3.OperationalError as exc:  # the conversation checkpoints beside the store
        if "full" not in str(exc):
            raise
        fail(f"no space left for the conversation checkpoints beside the store: {exc}")
        return EXIT_STORE
    except (
        UsageError,
        CoordinateError,
        ParseError,
        ContextError,
        SettingsError,
        CheckpointerError,
        ModelConfigError,
    ) as exc:
        fail(exc)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
