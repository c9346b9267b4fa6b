"""``deepread``'s entry point: parse, run the command, map its failures to exit codes.

Only deepread's own error classes are mapped (one ``deepread: …`` line each, the README's
exit codes); a ``KeyError`` or ``ValueError`` from anywhere else is a bug, and its
traceback is the report it deserves.
"""

from __future__ import annotations

import argparse
import contextlib
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

    args.ends_process = process  # a reading command may leave its index to the exit
    try:
        with interruptible():
            code = run(args)
    except (Interrupted, KeyboardInterrupt) as exc:  # outside a command's own handling
        interrupted = as_interrupted(exc)
        fail("interrupted")
        code = interrupted.exit_code
    left_open = getattr(args, "left_open", None)
    if left_open is not None:
        # The command only read and left its index open (common.reading_index): end
        # here, without the interpreter's teardown closing the engine (~0.25 s) — but
        # not under another process's call that this one is answering.
        try:
            left_open.leave()
        except Exception as exc:  # the command's work is done: say so, and end as planned
            fail(f"handing the store over to the processes it served failed: {exc}")
        for stream in (sys.stdout, sys.stderr):
            # a reader that went away (`| head`) ends it quietly, as run() treats it
            with contextlib.suppress(BrokenPipeError):
                stream.flush()
        os._exit(code)
    return code


#: deepread's expected failures (module, class) mapped to exit 2: a usage error, a bad
#: coordinate or setting. Named, not imported: a module a command never loaded cannot
#: have raised its error, and importing them all (the chat-model and checkpointer
#: modules among them) cost every command ~1 s before it started.
USAGE_ERRORS = (
    ("deepread.records.errors", "UsageError"),
    ("deepread.records.errors", "CoordinateError"),
    ("deepread.corpus.parsing.errors", "ParseError"),
    ("deepread.nodes.context", "ContextError"),
    ("deepread.environment.settings", "SettingsError"),
    ("deepread.checkpointers", "CheckpointerError"),
    ("deepread.models.chat", "ModelConfigError"),
)
#: … and to exit 3: the store cannot be used, or another process writes that document.
STORE_ERRORS = (
    ("deepread.records.errors", "StoreError"),
    ("deepread.records.errors", "WriteConflict"),
)


def loaded(names: tuple[tuple[str, str], ...]) -> tuple[type[BaseException], ...]:
    """The classes ``names`` lists whose modules this process has imported."""
    found = (getattr(sys.modules.get(module), name, None) for module, name in names)
    return tuple(c for c in found if isinstance(c, type) and issubclass(c, BaseException))


def run(args: argparse.Namespace) -> int:
    """The command, its expected failures mapped to exit codes with one line each."""
    import errno
    import sqlite3

    try:
        if getattr(args, "store", None):
            from deepread.records.locations import check_store_directory, is_url

            if not is_url(args.store):
                check_store_directory(args.store)  # a file, not a folder: exit 3, nothing written
        return args.func(args)
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
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
    except Exception as exc:
        if isinstance(exc, loaded(STORE_ERRORS)):
            fail(exc)
            return EXIT_STORE
        if isinstance(exc, loaded(USAGE_ERRORS)):
            fail(exc)
            return EXIT_USAGE
        raise


if __name__ == "__main__":
    sys.exit(main())
