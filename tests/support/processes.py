"""Real ``deepread`` processes for tests of several processes on one store.

:class:`Running` starts a command with its standard streams as pipes and reads its
output lines in threads, so a test waits for a given line (a chat's greeting, a
holder's "held") with a time bound instead of sleeping; :func:`deepread` runs a command
to its end.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

QUIET = {
    "DO_NOT_TRACK": "1",
    "LANGSMITH_TRACING": "false",
    "HF_HUB_OFFLINE": "1",
    "ORT_DISABLE_TELEMETRY": "1",
    "SCARF_NO_ANALYTICS": "true",
    "UNSTRUCTURED_DISABLE_NOTICE": "1",
}


def deepread_command() -> list[str]:
    """The installed ``deepread`` console script (``python -m deepread.cli`` if absent)."""
    script = Path(sys.executable).with_name("deepread")
    return [str(script)] if script.exists() else [sys.executable, "-m", "deepread.cli"]


def environment(**extra: str) -> dict[str, str]:
    """This environment without deepread's own settings, quiet, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPREAD_")}
    return env | QUIET | extra


def deepread(
    *argv: str | Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*deepread_command(), *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )


class Running:
    """A process whose stdout and stderr lines are read as they come."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.err_seen: list[str] = []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _read(stream: IO[str] | None, lines: queue.Queue[str]) -> None:
        assert stream is not None
        for line in stream:
            lines.put(line.rstrip("\n"))

    def line(self, which: str = "out", timeout: float = 120) -> str:
        """The next line of stdout (``"out"``) or stderr (``"err"``)."""
        lines = self.out if which == "out" else self.err
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no {which} line within {timeout} s; stderr so far: {self.err_seen}"
            ) from None
        if which == "err":
            self.err_seen.append(line)
        return line

    def wait_for(self, text: str, which: str = "err", timeout: float = 120) -> str:
        """The first line (from now) holding ``text``."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.line(which, max(0.1, deadline - time.monotonic()))
            if text in line:
                return line

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def finish(self, timeout: float = 120) -> int:
        """Close its stdin (end of input) and wait for its exit code."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
