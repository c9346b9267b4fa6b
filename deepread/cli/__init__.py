"""The ``deepread`` command line, one module per command.

``ingest``, ``docs``, ``toc``, ``search``, ``read``, ``ask``, ``chat``, ``collections``,
``rm``, ``eval``, ``synth``, ``mcp`` and ``completion``. Every command that reads a store takes
``--store PATH|URL`` (default ``DEEPREAD_STORE`` / ``QDRANT_URL`` / the per-user data
directory), ``--collection NAME`` (default ``default``) and ``--json`` for
machine-readable output. Exit codes: 0 success, 1 some input failed (the rest was done),
2 bad usage or coordinates, 3 the store cannot be used, 4 the model failed; 130 / 143
interrupted by SIGINT / SIGTERM.

Where things are: :mod:`~deepread.cli.main` (entry point, failures → exit codes),
:mod:`~deepread.cli.parser` (the parser, built from each command module's
``register``), :mod:`~deepread.cli.arguments` (argument hygiene and ranges),
:mod:`~deepread.cli.common` (output, the store, the index), then the commands.
"""

from deepread.cli.main import main

__all__ = ["main"]
