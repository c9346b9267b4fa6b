"""The ``deepread`` command run in-process as a test runs it: no settings, keys or models
from the environment, and what it printed."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from deepread import cli


def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``DEEPREAD_*`` settings or ``OPENAI_*`` keys from the environment."""
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")):
            monkeypatch.delenv(name)


def run(*argv: str | Path) -> tuple[int, str, str]:
    """``deepread ARGV`` in-process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()
