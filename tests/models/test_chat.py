"""Model plumbing (models/chat.py): names read as LangChain reads them, retries in one
layer, a total deadline per response.

The deadline is tested against a real local HTTP server that drips one byte every two
seconds — the HTTP client's per-read timeout (three seconds) never fires — through
``langchain-openai``'s real client, as the agent and the CLI build it from the context.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import Field
from support.local_http import LocalServer, QuietHandler
from support.scripted import ScriptedChatModel, ScriptedHTTPError, ai

import deepread
from deepread import cli
from deepread.graphs.agent import build_graph
from deepread.models.chat import (
    DeadlineExceeded,
    ModelConfigError,
    chat_model,
    invoke_with_retry,
    message_text,
    retries_itself,
    split_model_name,
)
from deepread.nodes.context import Context

DRIP_S = 2.0


class SelfRetryingModel(ScriptedChatModel):
    """A scripted model whose (pretend) client retries by itself, as ChatOpenAI's does."""

    max_retries: int | None = Field(default=2)


class Drip(QuietHandler):
    """An OpenAI-like endpoint that answers 200, then sends one byte every DRIP_S."""

    def do_POST(self) -> None:
        self.server.owner.requests.append(self.body())
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            while not self.server.owner.stop.wait(DRIP_S):
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:  # the client gave up and closed the connection
            self.server.owner.closed.append(time.monotonic())


@pytest.fixture()
def drip(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    server = LocalServer(Drip)
    for name in list(os.environ):
        if name.startswith("OPENAI_") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-drip")
    yield server
    server.close()


@pytest.fixture(scope="module")
def walrus_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("walrus")
    (root / "walrus.md").write_text("# Walrus\n\nThe walrus sleeps on the ice.\n", encoding="utf-8")
    with deepread.Index.open(store=root / "store", collection="default") as idx:
        idx.ingest([root / "walrus.md"])
    return root / "store"


def ask_walrus(store: Path) -> list[str]:
    """The command line asking the walrus store's question of a hosted model."""
    return ["ask", "Where does the walrus sleep?", "--store", str(store), "--model", "gpt-4o-mini"]


def test_a_model_without_its_own_retries_is_retried_with_backoff():
    model = ScriptedChatModel(
        steps=[ScriptedHTTPError(503), ScriptedHTTPError(429), ai(content="ok")]
    )

    reply = invoke_with_retry(model, [HumanMessage(content="q")], retries=2)

    assert reply.content == "ok" and len(model.calls) == 3


def test_a_model_whose_client_retries_is_not_retried_again():
    model = SelfRetryingModel(steps=[ScriptedHTTPError(503), ai(content="ok")])

    assert retries_itself(model) and retries_itself(model.bind_tools([]))
    with pytest.raises(ScriptedHTTPError):
        invoke_with_retry(model, [HumanMessage(content="q")], retries=3)
    assert len(model.calls) == 1


def test_a_model_with_retries_switched_off_is_retried_here():
    model = SelfRetryingModel(steps=[ScriptedHTTPError(503), ai(content="ok")], max_retries=0)

    assert invoke_with_retry(model, [HumanMessage(content="q")], retries=1).content == "ok"


def test_a_deadline_is_not_retried():
    # The reply waits for the test, not for a time: on a loaded machine a reply due in
    # 1 s could come before a 0.2 s deadline was seen to pass, and the call succeed.
    release = threading.Event()
    slow = ScriptedChatModel(steps=[lambda messages: release.wait(60) and ai(content="late")])

    try:
        with pytest.raises(DeadlineExceeded):
            invoke_with_retry(slow, [HumanMessage(content="q")], retries=3, timeout=0.2)
    finally:
        release.set()  # the abandoned call's thread ends
    assert len(slow.calls) == 1


def test_message_text_joins_text_blocks_and_leaves_out_the_others():
    reply = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "hmm"},
            {"type": "text", "text": "It sleeps "},
            "on the ice.",
        ]
    )

    assert message_text(reply) == "It sleeps on the ice."
    assert message_text(AIMessage(content="plain")) == "plain"


def test_a_slow_drip_cannot_extend_the_model_deadline(drip, walrus_store, monkeypatch):
    monkeypatch.setenv("DEEPREAD_MODEL_TIMEOUT", "3")
    context = Context(model="gpt-4o-mini")
    with deepread.Index.open(store=walrus_store, collection="default") as idx:
        graph = build_graph(index=idx)
        started = time.monotonic()

        out = graph.invoke({"question": "Where does the walrus sleep?"}, context=context)
        elapsed = time.monotonic() - started

    assert context.model_timeout == 3.0
    assert out["stop_reason"] == "error"
    assert "DeadlineExceeded" in out["error"] and "model_timeout" in out["error"]
    # Each read got a byte within the client's 3 s read timeout: without the deadline the
    # reply would take 100,000 bytes x 2 s. (A loose bound: the machine may be loaded.)
    assert 3.0 <= elapsed < 30, elapsed
    assert len(drip.requests) == 1  # a deadline is not retried


def test_the_deadline_closes_the_request_instead_of_leaving_it_reading(drip):
    model = chat_model("gpt-4o-mini", timeout=3.0, retries=0)
    started = time.monotonic()

    with pytest.raises(DeadlineExceeded):
        invoke_with_retry(model, [HumanMessage(content="q")], retries=0, timeout=2.0)

    # The endpoint sees its client go away once its next byte finds the socket closed
    # (a byte every 2 s); a call merely abandoned would keep reading for 100,000 bytes.
    waited = time.monotonic()
    while not drip.closed and time.monotonic() - waited < 20:
        time.sleep(0.1)
    assert drip.closed and drip.closed[0] - started < 20


def test_ask_past_the_model_deadline_exits_4_at_once_whatever_the_model_sends(drip, walrus_store):
    # A deadline above the drip's 2 s, so that no read of the client times out by itself.
    env = {**os.environ, "DEEPREAD_MODEL_TIMEOUT": "5", "DO_NOT_TRACK": "1"}

    # Before the deadline ended the call, the process lived on while a worker thread kept
    # reading the drip (100,000 bytes, one every 2 s): run() would time out here.
    done = subprocess.run(
        [sys.executable, "-m", "deepread.cli", *ask_walrus(walrus_store)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 4, done.stderr
    assert "model_timeout" in done.stderr


def test_the_cli_exits_4_when_the_model_deadline_passes(drip, walrus_store, monkeypatch, capsys):
    monkeypatch.setenv("DEEPREAD_MODEL_TIMEOUT", "2")

    code = cli.main(ask_walrus(walrus_store))

    assert code == 4
    assert "model_timeout" in capsys.readouterr().err


# -- model names, read the way LangChain's init_chat_model reads them ----------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gpt-4o-mini", ("", "gpt-4o-mini")),
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("ollama:llama3.1:8b", ("ollama", "llama3.1:8b")),
        ("llama3.1:8b", ("", "llama3.1:8b")),
        ("qwen2.5:7b-instruct", ("", "qwen2.5:7b-instruct")),
        ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
    ],
)
def test_a_name_splits_into_provider_and_model_only_at_a_known_provider(name, expected):
    assert split_model_name(name) == expected


@pytest.fixture()
def local_endpoint(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    return "http://127.0.0.1:11434/v1"


@pytest.mark.parametrize("name", ["llama3.1:8b", "ollama:llama3.1:8b", "openai:llama3.1:8b"])
def test_ollama_style_names_go_to_the_openai_compatible_endpoint(local_endpoint, name):
    model = chat_model(name)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "llama3.1:8b"
    assert model.openai_api_base == local_endpoint


def test_an_ollama_name_without_an_endpoint_says_what_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError, match="OPENAI_BASE_URL to Ollama's"):
        chat_model("ollama:llama3.1:8b")


def test_another_provider_without_langchain_says_what_to_install(local_endpoint, monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain", None)  # as if not installed

    with pytest.raises(ModelConfigError, match=r"provider 'anthropic'.*pip install langchain"):
        chat_model("anthropic:claude-sonnet-4-5")


def test_another_provider_without_its_package_says_which_to_install(local_endpoint):
    pytest.importorskip("langchain")  # the dev install has it (create_agent tests)
    if importlib.util.find_spec("langchain_anthropic") is not None:
        pytest.skip("langchain-anthropic is installed here")

    with pytest.raises(
        ModelConfigError, match=r"provider 'anthropic'.*pip install langchain-anthropic"
    ):
        chat_model("anthropic:claude-sonnet-4-5")


def test_an_openai_model_without_a_key_or_endpoint_says_what_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError, match="needs OPENAI_API_KEY"):
        chat_model("openai:gpt-4o-mini")


# -- a reply longer than a thread's messages may be ------------------------------------------


class Huge(QuietHandler):
    """An OpenAI-like endpoint whose every reply is 1,000,001 characters of text, streamed
    (one chunk) when the request asks for a stream."""

    def do_POST(self) -> None:
        import json

        text = "x" * 1_000_001
        body = json.loads(self.body())
        self.server.owner.requests.append(body)
        if body.get("stream"):
            chunk = {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}],
            }
            end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            data = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(end)}\n\ndata: [DONE]\n\n"
            content_type = "text/event-stream"
        else:
            data = json.dumps(
                {
                    "id": "c1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "gpt-4o-mini",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                }
            )
            content_type = "application/json"
        payload = data.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def test_ask_whose_model_replies_a_megabyte_exits_4_naming_the_cap(walrus_store, monkeypatch):
    server = LocalServer(Huge)
    try:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("OPENAI_") and not name.lower().endswith("_proxy")
        }
        env |= {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test-huge"}
        done = subprocess.run(
            [sys.executable, "-m", "deepread.cli", *ask_walrus(walrus_store), "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.close()

    assert done.returncode == 4, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "1000001 characters, over the 1000000 a message may hold" in done.stderr
    assert len(server.requests) == 1  # a failed reply is not asked again
