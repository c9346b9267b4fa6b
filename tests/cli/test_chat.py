"""``deepread chat``, driven through its standard input as a script would drive it.

The model is a scripted chat model that streams (tests/scripted.py), reached through the
command's own ``--model`` path (the name is resolved where every model name is,
``deepread.nodes.resources.chat_model``, patched here); the store, the graph, the SQLite
checkpointer and the terminal output are real.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.citations import coordinates
from support.documents import SHAPES_MD
from support.scripted import StreamingScriptedChatModel, ai, read_call
from support.terminal_screen import Screen

import deepread
from deepread import cli

FIVE = (1, 2)  # (doc_id, sec_id) of section "Five" in SHAPES_MD, the only document


class Recorder(io.StringIO):
    """A stdout that keeps each write: streamed tokens arrive as separate writes. ``tty``:
    it says it is a terminal (answers stream to a terminal only)."""

    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self.writes: list[str] = []
        self.tty = tty

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")):
            monkeypatch.delenv(name)
    # The scripted answers cite what they read: the dense check would pass them, but
    # a scripted model must not be asked to judge.
    monkeypatch.setenv("DEEPREAD_CHECK_SUFFICIENCY", "false")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chat")
    (root / "shapes.md").write_text(SHAPES_MD, encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["ingest", str(root / "shapes.md"), "--store", str(root / "store")]) == 0
    return root / "store"


def chat(
    monkeypatch: pytest.MonkeyPatch,
    store: Path,
    lines: str,
    *argv: str,
    model: Any = None,
    tty: bool = False,
) -> tuple[int, Recorder, str]:
    """``deepread chat`` with ``lines`` on stdin: exit code, stdout (a terminal when
    ``tty``), stderr."""
    if model is not None:
        monkeypatch.setattr("deepread.nodes.resources.chat_model", lambda *a, **k: model)
        argv = ("--model", "scripted", *argv)
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    out, err = Recorder(tty), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["chat", "--store", str(store), *argv])
    return code, out, err.getvalue()


def test_an_answer_is_streamed_token_by_token_and_tool_calls_shown_as_they_happen(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = StreamingScriptedChatModel(
        steps=[ai(read_call(FIVE, 0, 4)), ai(content="Charlie is about cherries [1:2:2].")]
    )

    code, out, err = chat(
        monkeypatch, store, "Which paragraph is about cherries?\n", model=model, tty=True
    )

    assert code == 0, err
    assert [w for w in out.writes if w][:5] == [
        "Charlie ",
        "is ",
        "about ",
        "cherries ",
        "[1:2:2].",
    ]
    assert out.getvalue().startswith("Charlie is about cherries [1:2:2].\n")
    assert "[1:2:2] Shapes › Five" in out.getvalue()  # the citation with its titles
    assert "→ read_section(doc_id=1, sec_id=2, start=0, end=4)" in err
    assert "← read_section: 5 paragraphs [1:2:0] [1:2:1] [1:2:2] [1:2:3] …" in err


def test_questions_share_one_thread_and_new_starts_another(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = StreamingScriptedChatModel(
        steps=[
            ai(read_call(FIVE, 0, 4)),
            ai(content="All five [1:2:0]."),
            ai(read_call(FIVE, 2, 2)),
            ai(content="Cherries [1:2:2]."),
            ai(read_call(FIVE, 2, 2)),
            ai(content="Cherries [1:2:2]."),
        ]
    )

    code, _, err = chat(
        monkeypatch, store, "Read Five.\nAnd cherries?\n/new\nAnd cherries?\n", model=model
    )

    assert code == 0, err
    reads = [line for line in err.splitlines() if line.startswith("← read_section")]
    assert reads[1] == "← read_section: 1 paragraphs (1 already read) [1:2:2]"  # same thread
    assert reads[2] == "← read_section: 1 paragraphs [1:2:2]"  # after /new: read afresh
    assert "new conversation (thread " in err


def test_docs_lists_the_documents_and_limits_the_conversation(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = chat(monkeypatch, store, "/docs\n/docs 7\n/docs 1\n/docs all\n")

    assert code == 0, err
    assert out.getvalue().count("* (1) Shapes — ") == 2  # /docs, then /docs 1
    assert "no document 7 in collection 'default'" in err
    assert "the conversation reads documents 1" in err
    assert "all 1 documents in scope" in err


def test_the_end_of_input_leaves_with_the_thread_to_continue(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = chat(monkeypatch, store, "", "--thread", "kept")

    assert code == 0 and out.getvalue() == ""
    assert err.rstrip().endswith("[thread kept — continue with deepread chat --thread kept]")


def test_quit_leaves_before_the_lines_after_it(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = chat(monkeypatch, store, "/quit\nNever asked?\n/bogus\n")

    assert code == 0 and out.getvalue() == ""
    assert "unknown command" not in err


def test_an_unknown_command_is_said_and_not_sent_to_the_model(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = StreamingScriptedChatModel(steps=[])

    code, _, err = chat(monkeypatch, store, "/bogus\n", model=model)

    assert code == 0
    assert "unknown command /bogus; the commands are: /new, /docs, /help, /quit" in err
    assert model.calls == []


def test_json_gives_one_document_per_answer(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = StreamingScriptedChatModel(
        steps=[ai(read_call(FIVE, 2, 2)), ai(content="Cherries [1:2:2].")]
    )

    code, out, err = chat(monkeypatch, store, "Cherries?\n/docs\n", "--json", model=model)

    assert code == 0, err
    answer, docs = (json.loads(line) for line in out.getvalue().splitlines())
    assert answer["answer"] == "Cherries [1:2:2]."
    assert coordinates(answer["citations"]) == [{"doc_id": 1, "sec_id": 2, "para_idx": 2}]
    assert answer["thread_id"]
    assert docs["documents"][0] | {"source": "", "tokens": 0} == {
        "doc_id": 1,
        "title": "Shapes",
        "source": "",
        "sections": 5,
        "paragraphs": 7,
        "tokens": 0,
        "in_scope": True,
    }


def test_a_failed_answer_is_said_and_the_chat_goes_on_exiting_4_at_the_end(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.scripted import ScriptedHTTPError

    model = StreamingScriptedChatModel(
        steps=[ScriptedHTTPError(400, "bad request"), ai(content="Fine now [1:2:2].")]
    )

    code, out, err = chat(monkeypatch, store, "First?\nSecond?\n", model=model)

    assert code == 4
    assert "deepread: the model failed: ScriptedHTTPError" in err
    assert "Fine now [1:2:2]." in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "says", "exit_code"),
    [
        (("--collection", "nope"), "no collection 'nope' in store", 2),
        (("--doc", "9"), "no document 9 in collection 'default'", 2),
        (("--collection", "../x"), "invalid collection name", 2),
    ],
)
def test_bad_inputs_exit_with_the_readmes_codes(
    store: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], says: str, exit_code: int
) -> None:
    code, _, err = chat(monkeypatch, store, "Hello?\n", *argv)

    assert code == exit_code and says in err, err


def test_a_chat_beside_an_index_holding_the_store_answers_through_it(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with deepread.Index.open(store=store, collection="default") as holder:
        code, _, err = chat(monkeypatch, store, "How does json encode NaN?\n")
        assert holder.collection.backend.held()  # the holder kept it throughout

    assert code == 0, err
    assert "in use" not in err and "[thread " in err


def test_ctrl_c_at_the_prompt_asks_again_and_the_chat_goes_on(store: Path) -> None:
    import select
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "deepread.cli", "chat", "--store", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith(("DEEPREAD_", "OPENAI_"))},
    )
    try:
        assert proc.stderr is not None and proc.stdin is not None
        assert "deepread chat — collection 'default'" in proc.stderr.readline()
        assert proc.stdout is not None
        # waiting at the prompt. The kernel may hand a process's signal to any of its
        # threads; Python runs the handler in the main thread, whose read of stdin only
        # a signal to that thread interrupts — so a Ctrl-C that went to another thread is
        # answered at the next one (once: the handler runs once for both). A second
        # press, as a person would, after 5 s without a prompt.
        for _ in range(3):
            proc.send_signal(signal.SIGINT)
            if select.select([proc.stdout], [], [], 5.0)[0]:
                break
        assert proc.stdout.readline() == "\n"  # a fresh prompt
        proc.stdin.write("/docs\n/quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()

    assert proc.returncode == 0, err
    assert "* (1) Shapes — " in out  # the chat went on after the Ctrl-C
    assert "interrupted" not in err


def zebra_model() -> StreamingScriptedChatModel:
    """A draft the sufficiency check finds unsupported, the check's verdict, the answer
    given again."""
    return StreamingScriptedChatModel(
        steps=[
            ai(read_call(FIVE, 0, 0)),
            ai(content="Zebras live here [1:2:0]."),
            ai(content="INSUFFICIENT: nothing about zebras."),  # the check's judge
            ai(content="The documents do not mention zebras."),
        ]
    )


def test_a_replaced_draft_is_not_printed_beside_the_checked_answer(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPREAD_CHECK_SUFFICIENCY")  # the check on, as by default

    code, out, err = chat(monkeypatch, store, "Where do zebras live?\n", model=zebra_model())

    assert code == 0, err
    assert out.getvalue() == "The documents do not mention zebras.\n"  # not a terminal
    steps = err.splitlines()
    # the check's extra read, then the line saying the answer is replaced
    assert steps.index(
        "← read_section: 5 paragraphs (1 already read) [1:2:0] [1:2:1] [1:2:2] [1:2:3] …"
    ) < steps.index("(the evidence check asked for another answer:)")


def test_on_a_terminal_a_replaced_draft_is_erased_where_it_was_written(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPREAD_CHECK_SUFFICIENCY")
    monkeypatch.setenv("COLUMNS", "10")  # the draft wraps: three rows to erase

    code, out, err = chat(
        monkeypatch, store, "Where do zebras live?\n", model=zebra_model(), tty=True
    )

    assert code == 0, err
    assert "Zebras live here [1:2:0]." in out.getvalue()  # it was streamed ...
    # ... and the screen holds the checked answer alone, wrapped at 10 columns
    assert Screen(10).feed(out.getvalue()).text() == ("The docume\nnts do not\n mention z\nebras.")


def test_in_a_terminal_the_draft_and_the_steps_under_it_give_way_to_the_checked_answer(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stdout and stderr on one pseudo-terminal 40 columns wide, as a person runs chat."""
    monkeypatch.delenv("DEEPREAD_CHECK_SUFFICIENCY")
    model = zebra_model()
    monkeypatch.setattr("deepread.nodes.resources.chat_model", lambda *a, **k: model)
    monkeypatch.setattr("sys.stdin", io.StringIO("Where do zebras live?\n"))

    code, shown = in_terminal(["chat", "--store", str(store), "--model", "scripted"], columns=40)

    assert code == 0
    screen = Screen(40).feed(shown).text()
    unwrapped = screen.replace("\n", "")  # (its rows, 40 columns each, end to end)
    assert "Zebras" not in screen, screen
    again = "(the evidence check asked for another answer:)The documents do not mention zebras."
    assert again in unwrapped, screen
    # the check's read, shown under the draft, is erased with it and said again: once
    assert unwrapped.count("5 paragraphs (1 already") == 1, screen


def in_terminal(argv: list[str], columns: int) -> tuple[int, str]:
    """``deepread ARGV`` in-process with stdout and stderr on a pseudo-terminal
    ``columns`` wide: exit code, everything the terminal was sent."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    received = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the slave side closed
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    with open(os.dup(slave), "w", encoding="utf-8", buffering=1) as term:
        with contextlib.redirect_stdout(term), contextlib.redirect_stderr(term):
            code = cli.main(argv)
        term.flush()
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    return code, received.decode("utf-8")
