"""Conversations in PostgreSQL: two processes continue one thread through one database.

A real PostgreSQL (Debian's package) is started by the fixture in a temporary directory —
``initdb`` then ``pg_ctl start`` on a free loopback port, as the ``nobody`` user when the
tests run as root (PostgreSQL refuses to run as root). ``.ci/run`` installs the package;
where it is not installed the tests skip and say so.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.documents import SHAPES_MD

from deepread import cli

pytestmark = pytest.mark.slow


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip(
            "PostgreSQL is not installed (Debian: apt-get install postgresql; "
            ".ci/run does this): no server to test the postgres checkpointer on"
        )
    # not pytest's tmp_path: its folders are private to the user running the tests
    base = Path(tempfile.mkdtemp(prefix="deepread-pg-"))
    user: str | None = None
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        user = "nobody"
        shutil.chown(base, user)
    data, port = base / "data", _free_port()

    def run(*cmd: str) -> None:
        done = subprocess.run(cmd, user=user, capture_output=True, text=True, timeout=120, cwd=base)
        if done.returncode:
            pytest.fail(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")

    run(initdb, "-D", str(data), "-U", "deepread", "--auth=trust", "-E", "UTF8", "--no-sync")
    run(
        pg_ctl,
        "-D",
        str(data),
        "-l",
        str(base / "server.log"),
        "-w",
        "-t",
        "60",
        "-o",
        f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
        "start",
    )
    try:
        yield f"postgresql://deepread@127.0.0.1:{port}/postgres"
    finally:
        run(pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def shapes_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pg-store")
    (folder / "shapes.md").write_text(SHAPES_MD, encoding="utf-8")
    assert (
        cli.main(
            [
                "ingest",
                str(folder / "shapes.md"),
                "--store",
                str(folder / "store"),
                "--collection",
                "shapes",
            ]
        )
        == 0
    )
    return folder / "store"


def ask(
    store: Path, question: str, thread: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``deepread ask`` in a process of its own, as a second worker would run it."""
    exe = Path(sys.executable).with_name("deepread")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEEPREAD_")}
    return subprocess.run(
        [
            str(exe),
            "ask",
            question,
            "--store",
            str(store),
            "--collection",
            "shapes",
            "--thread",
            thread,
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=clean | (env or {}),
    )


def thread_messages(url: str, thread: str) -> list:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        checkpoint = saver.get({"configurable": {"thread_id": thread}})
    assert checkpoint is not None, f"no checkpoint of thread {thread} in the database"
    return checkpoint["channel_values"]["messages"]


def test_two_processes_continue_one_thread_through_the_same_database(
    postgres_url: str, shapes_store: Path
) -> None:
    first = ask(
        shapes_store, "Which paragraph is about bananas?", "shared", "--checkpointer", postgres_url
    )
    assert first.returncode == 0, first.stderr
    turn1 = thread_messages(postgres_url, "shared")

    second = ask(
        shapes_store,
        "Which paragraph is about bananas?",
        "shared",
        env={"DEEPREAD_CHECKPOINTER": postgres_url},
    )

    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["stop_reason"] == "answered"
    messages = thread_messages(postgres_url, "shared")
    questions = [m.content for m in messages if m.type == "human"]
    assert questions[:1] == ["Which paragraph is about bananas?"]
    assert questions.count("Which paragraph is about bananas?") == 2
    # the second process saw what the first had read: repeats came back as pointers
    later = messages[len(turn1) :]
    assert any(m.type == "tool" and "(shown above)" in m.content for m in later)
    # nothing went to the SQLite default
    assert not (shapes_store / "checkpoints.sqlite").exists()


def ask_here(store: Path, *args: str) -> int:
    """``deepread ask`` in this process (for the cases that need no second process)."""
    return cli.main(
        [
            "ask",
            "Which paragraph is about figs?",
            "--store",
            str(store),
            "--collection",
            "shapes",
            "--thread",
            "t",
            *args,
        ]
    )


def test_an_unreachable_postgres_checkpointer_is_a_usage_error_without_the_password(
    shapes_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://deepread:s3cret@127.0.0.1:{_free_port()}/postgres"

    code = ask_here(shapes_store, "--checkpointer", url)

    err = capsys.readouterr().err
    assert code == 2
    assert "cannot connect to the checkpointer database" in err
    assert "s3cret" not in err and "deepread:***@" in err


def test_an_unknown_checkpointer_scheme_is_a_usage_error(
    shapes_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = ask_here(shapes_store, "--checkpointer", "redis://127.0.0.1:1/0")

    assert code == 2 and "unknown checkpointer" in capsys.readouterr().err
