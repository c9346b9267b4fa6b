"""Start a real ``langgraph dev`` server for a test module, and stop it.

One process (in-memory runtime, no reload, no browser, no network: analytics, version
check and tracing are switched off) serves a ``langgraph.json`` from a temporary working
directory, so its ``.langgraph_api`` state lands there, with a fresh embedded store named
by ``DEEPREAD_STORE``. The server process is the only opener of that store; tests reach
it only through ``langgraph_sdk``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 90
#: Settings of the test runner's environment that must not reach the server.
DROPPED = (
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGGRAPH_CLOUD_LICENSE_KEY",
    "LANGSMITH_CONTROL_PLANE_API_KEY",
    "OPENAI_API_KEY",
    "QDRANT_URL",
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _langgraph_bin() -> str:
    exe = Path(sys.executable).with_name("langgraph")
    if not exe.exists():
        pytest.fail(
            f"langgraph CLI not found next to {sys.executable}; "
            "install deepread[dev] (langgraph-cli[inmem])"
        )
    return str(exe)


def _log_tail(path: Path, n: int = 4000) -> str:
    return path.read_text(encoding="utf-8", errors="replace")[-n:]


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def langgraph_dev(
    workdir: Path,
    env: dict[str, str] | None = None,
    *,
    config: str = "langgraph.json",
    options: tuple[str, ...] = (),
) -> Iterator[str]:
    """The URL of a ``langgraph dev`` serving ``config`` (a file in the repository), with
    ``env`` added to its environment and ``options`` to its command line."""
    log_path = workdir / "server.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    full_env = {
        k: v for k, v in os.environ.items() if k not in DROPPED and not k.startswith("DEEPREAD_")
    }
    full_env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",  # exactly "1"
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        DO_NOT_TRACK="1",
        PYTHONUNBUFFERED="1",
        DEEPREAD_STORE=str(workdir / "store"),
    )
    full_env.update(env or {})
    cmd = [
        _langgraph_bin(),
        "dev",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
        "--config",
        str(REPO_ROOT / config),
        *options,
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=workdir,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while True:
                if proc.poll() is not None:
                    pytest.fail(
                        f"langgraph dev exited with {proc.returncode}:\n{_log_tail(log_path)}"
                    )
                try:
                    with urllib.request.urlopen(f"{url}/ok", timeout=1) as resp:
                        if resp.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"langgraph dev not ready after {STARTUP_TIMEOUT_S} s:\n"
                        f"{_log_tail(log_path)}"
                    )
                time.sleep(0.1)
            # the server silently moves to another port when ours was taken meanwhile
            if f"127.0.0.1:{port}" not in log_path.read_text(errors="replace"):
                pytest.fail(f"langgraph dev did not bind port {port}:\n{_log_tail(log_path)}")
            yield url
        finally:
            _stop(proc)
