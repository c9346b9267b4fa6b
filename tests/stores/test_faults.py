"""Faults: a Qdrant server that is down, hangs or errors; a process killed mid-ingest;
two processes on one embedded store; a model endpoint that rate-limits, errors, times
out, returns garbage or empty replies. Each ends in a clear error or a recovery, never
a traceback, a hang or a partial document.

Fake servers are tiny ``http.server`` threads on 127.0.0.1; the model path is driven
both with the scripted model (tests/scripted.py) and through the real OpenAI client
(:func:`deepread.models.chat.chat_model`) against a fake endpoint. Rows of
docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.citations import coordinates
from support.hold_store import stopped_holder
from support.scripted import ScriptedChatModel, ai, call
from support.sent_requests import sent_requests
from support.stores import HashEmbeddings, assert_whole

from deepread import Index
from deepread.graphs.agent import build_graph
from deepread.models.chat import chat_model
from deepread.nodes.context import Context
from deepread.nodes.read_memory import index_scope, region_key
from deepread.records.errors import StoreError
from deepread.stores.edge import HANDOVER_S
from deepread.stores.server import ServerBackend

API_KEY = "qdrant-SECRET-key-0123456789"
OPENAI_KEY = "sk-test-SECRET-abcdef0123456789"

# -- fake HTTP servers ---------------------------------------------------------------------

Reply = tuple[int, bytes] | None  # None: never answer
#: What a fake server answers: ``replies(n, handler)`` gives the n-th (0-based) reply.
Replies = Callable[[int, BaseHTTPRequestHandler], Reply]


class FakeServer:
    """An HTTP server thread on 127.0.0.1 answering each request from ``replies``.

    ``replies(n, handler)`` gives the n-th (0-based) reply; ``None`` holds the
    connection open without answering until the server stops.
    """

    def __init__(self, replies: Replies) -> None:
        self.requests: list[dict[str, Any]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                del args

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                n = len(server.requests)
                server.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization", "")}
                )
                reply = replies(n, self)
                if reply is None:
                    server.stop.wait(10)
                    return
                status, payload = reply
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def serve() -> Iterator[Callable[[Replies], FakeServer]]:
    servers: list[FakeServer] = []

    def start(replies: Replies) -> FakeServer:
        servers.append(FakeServer(replies))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def store_error(url: str, timeout: float = 1.0) -> str:
    """The StoreError message of ``exists()`` against ``url``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "api key is used with an insecure connection"
        engine = ServerBackend(url, "deepread_docs", api_key=API_KEY, timeout=timeout)
        try:
            with pytest.raises(StoreError) as caught:
                engine.exists()
        finally:
            engine.close()
    return str(caught.value)


def answers_late(server: Callable[[], FakeServer], after_s: float, reply: Reply) -> Replies:
    """Replies that come only ``after_s`` seconds after each request (none once the
    server stops). Which timeout a client applied then shows in what it gets — the
    timeout's error, or this late reply — with no bound on the wall clock, which a
    loaded machine stretches."""

    def late(n: int, handler: BaseHTTPRequestHandler) -> Reply:
        del n, handler
        return None if server().stop.wait(after_s) else reply

    return late


# -- Qdrant server faults ---------------------------------------------------------------------


def test_a_qdrant_server_that_does_not_answer_in_time_times_out_with_a_clear_error(
    serve,
) -> None:
    # It answers only after 3 s: later than the 1 s timeout the backend is given, sooner
    # than httpx's default 5 s (a timeout not passed on) or the backend's default 30 s.
    server = serve(answers_late(lambda: server, 3.0, (200, b'{"result": {"exists": true}}')))

    message = store_error(server.url, timeout=1.0)

    assert message == f"cannot reach the Qdrant server at {server.url}: no answer within 1 s"
    assert len(server.requests) == 1  # not retried: the caller decides that


def test_a_qdrant_server_answering_500_is_a_store_error_without_the_api_key(serve) -> None:
    def echo_key(n: int, handler: BaseHTTPRequestHandler) -> Reply:
        return 500, json.dumps(
            {"status": {"error": "boom, key was " + str(handler.headers.get("api-key"))}}
        ).encode()

    server = serve(echo_key)

    message = store_error(server.url)

    assert len(server.requests) == 1  # not retried here: the graph's nodes retry a 5xx
    assert message.startswith(f"the Qdrant server at {server.url} answered HTTP 500: ")
    assert "boom, key was ***" in message
    assert API_KEY not in message


def test_a_qdrant_server_refusing_the_key_says_to_check_qdrant_api_key(serve) -> None:
    server = serve(lambda n, h: (403, b'{"status": {"error": "forbidden"}}'))

    message = store_error(server.url)

    assert message == (
        f"the Qdrant server at {server.url} refused the request (HTTP 403): check QDRANT_API_KEY"
    )


def test_opening_an_index_on_a_down_server_fails_at_open_with_a_store_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("QDRANT_API_KEY", API_KEY)
    sent = sent_requests(monkeypatch)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(StoreError) as caught:
            Index.open(store=url, collection="docs", embeddings=HashEmbeddings())

    # Counted, not timed: one refused request, not a retry loop that waits the refusals out.
    assert sent == [f"{url}/collections/deepread_docs/exists"]
    assert str(caught.value) == f"cannot reach the Qdrant server at {url}: connection refused"


# -- a killed ingest, re-run -------------------------------------------------------------------

_DIE_DURING_INGEST = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[3])
    import deepread
    from support.stores import HashEmbeddings

    idx = deepread.Index.open(store=sys.argv[1], collection="docs",
                              embeddings=HashEmbeddings(), reranker="none")
    backend, real, calls = idx.collection.backend, idx.collection.backend.upsert, [0]

    def upsert(points):
        calls[0] += 1
        if calls[0] == 3:  # paragraph batches: a.md, big.md's first; die at its second
            os._exit(1)
        real(points)

    backend.upsert = upsert
    idx.ingest([sys.argv[2]])
    print("not killed")
""")


def test_a_rerun_after_a_kill_mid_ingest_completes_with_no_duplicates(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSmall file stored before the kill.\n")
    (folder / "big.md").write_text(
        "# Big\n\n" + "\n\n".join(f"Paragraph {i} about narwhals." for i in range(600)) + "\n"
    )
    store = tmp_path / "store"
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            _DIE_DURING_INGEST,
            str(store),
            str(folder),
            str(Path(__file__).parents[1]),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert killed.returncode == 1, killed.stdout + killed.stderr

    with Index.open(store=store, collection="docs", embeddings=HashEmbeddings()) as idx:
        report = idx.ingest_report(folder)

        assert [Path(d.source).name for d in report.skipped] == ["a.md"]
        assert [Path(d.source).name for d in report.documents] == ["big.md"]
        assert [d.doc_id for d in idx.documents()] == [1, 2]
        assert idx.collection.count_paragraphs() == 1 + 600
        assert_whole(idx)


# -- two processes on one embedded store --------------------------------------------------------


def test_the_cli_beside_a_holder_that_does_not_answer_waits_then_exits_3_naming_it(
    tmp_path: Path,
) -> None:
    """A holder stopped with Ctrl-Z keeps the engine and answers nobody: the command
    waits (``DEEPREAD_STORE_WAIT``, and at least the hand-over's few seconds), then
    gives up with exit 3 naming it."""
    store = tmp_path / "store"
    (tmp_path / "a.md").write_text("# A\n\nHeld open by the test.\n")
    with Index.open(store=store, collection="docs") as idx:  # (the holder's model)
        idx.ingest([tmp_path / "a.md"])

    with stopped_holder(store, "docs") as pid:
        started = time.monotonic()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "deepread.cli",
                "search",
                "held",
                "--store",
                str(store),
                "--collection",
                "docs",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=os.environ | {"DEEPREAD_STORE_WAIT": "1"},
        )
        waited = time.monotonic() - started

    path = store / "collections" / "docs"
    assert done.returncode == 3, done.stdout + done.stderr
    gave_up = done.stderr.splitlines()[-1]
    assert gave_up.startswith(f"deepread: the store {path} is in use by another deepread process")
    assert f"hold_store.py (pid {pid}), which did not answer or let go of it within" in gave_up
    assert "DEEPREAD_STORE_WAIT" in gave_up
    assert waited >= HANDOVER_S
    assert "Traceback" not in done.stderr


# -- model faults, scripted ---------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DEEPREAD_MODEL", "DEEPREAD_STORE", "DEEPREAD_MODEL_RETRIES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def walrus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("faults")
    (root / "walrus.md").write_text("# Walrus\n\nThe walrus sleeps on the ice.\n\nIt eats clams.\n")
    idx = Index.open(
        store=root / "store", collection="docs", embeddings=HashEmbeddings(), reranker="none"
    )
    idx.ingest([root / "walrus.md"])
    yield idx
    assert_whole(idx)
    idx.close()


def thread(n: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": n}}


def timeout_error() -> openai.APITimeoutError:
    return openai.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1/v1"))


def test_a_model_timeout_is_retried_and_the_run_recovers(walrus: Index) -> None:
    model = ScriptedChatModel(steps=[timeout_error(), timeout_error(), ai(content="Recovered.")])
    graph = build_graph(index=walrus, model=model)

    out = graph.invoke({"question": "q?"}, context=Context(model_retries=3))

    assert out["stop_reason"] == "answered"
    assert out["answer"] == "Recovered."
    assert len(model.calls) == 3


def test_timeouts_past_the_retries_stop_with_an_error_keeping_the_tool_results(
    walrus: Index,
) -> None:
    model = ScriptedChatModel(
        steps=[
            ai(call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 1})),
            timeout_error(),
            timeout_error(),
        ]
    )
    graph = build_graph(index=walrus, model=model, checkpointer=InMemorySaver())

    out = graph.invoke({"question": "q?"}, thread(), context=Context(model_retries=1))

    assert out["stop_reason"] == "error"
    assert out["error"] == "the model failed: APITimeoutError: Request timed out."
    state = graph.get_state(thread()).values
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
    ]
    assert state["read_regions"] == {region_key(1, 1, index_scope(walrus)): [[0, 1]]}


def test_an_empty_model_reply_stops_with_an_error_and_a_message(walrus: Index) -> None:
    graph = build_graph(
        index=walrus, model=ScriptedChatModel(steps=[ai(content="")]), checkpointer=InMemorySaver()
    )

    out = graph.invoke({"question": "q?"}, thread(), context=Context())

    assert out["stop_reason"] == "error"
    assert out["error"] == "the model returned an empty reply"
    assert isinstance(graph.get_state(thread()).values["messages"][-1], AIMessage)


def test_an_unknown_tool_then_a_malformed_call_are_answered_and_the_run_recovers(
    walrus: Index,
) -> None:
    bad_json = {
        "name": "read_section",
        "args": "{oops",
        "id": "bad",
        "error": "not JSON",
        "type": "invalid_tool_call",
    }
    model = ScriptedChatModel(
        steps=[
            ai(call("delete_everything", {})),
            AIMessage(content="", invalid_tool_calls=[bad_json]),
            ai(content="Done anyway."),
        ]
    )
    graph = build_graph(index=walrus, model=model, checkpointer=InMemorySaver())

    out = graph.invoke({"question": "q?"}, thread(), context=Context())

    assert out["stop_reason"] == "answered"
    errors = [
        m.content
        for m in graph.get_state(thread()).values["messages"]
        if isinstance(m, ToolMessage)
    ]
    assert errors[0].startswith("Error: unknown tool 'delete_everything'; the tools are: ")
    assert errors[1].startswith("Error: the arguments of read_section were not valid JSON")


# -- model faults through the real OpenAI client ---------------------------------------------------


def completion(message: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", **message},
                    "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }
    ).encode()


RETRIEVE_CALL = {
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "retrieve", "arguments": json.dumps({"query": "walrus"})},
        }
    ],
}


@pytest.fixture()
def endpoint(monkeypatch: pytest.MonkeyPatch, serve) -> Callable[..., FakeServer]:
    """A fake OpenAI endpoint set as OPENAI_BASE_URL, with OPENAI_API_KEY set."""

    def start(replies: Replies) -> FakeServer:
        server = serve(replies)
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        return server

    return start


def test_a_real_client_gets_429_then_a_tool_call_and_answers(walrus: Index, endpoint) -> None:
    script = [
        (429, b'{"error": {"message": "slow down"}}'),
        (200, completion(RETRIEVE_CALL)),
        (200, completion({"content": "It sleeps on the ice [1:1:0]."})),
    ]
    server = endpoint(lambda n, h: script[n])
    graph = build_graph(index=walrus, model=chat_model("gpt-4o-mini", timeout=5))

    out = graph.invoke({"question": "Where does the walrus sleep?"}, context=Context())

    assert out["stop_reason"] == "answered"
    assert coordinates(out["citations"]) == [{"doc_id": 1, "sec_id": 1, "para_idx": 0}]
    assert len(server.requests) == 3
    assert server.requests[0]["path"] == "/v1/chat/completions"


def test_a_real_client_facing_500_forever_stops_with_an_error_without_the_key(
    walrus: Index, endpoint
) -> None:
    def echo_auth(n: int, handler: BaseHTTPRequestHandler) -> Reply:
        detail = f"upstream failed for {handler.headers.get('Authorization')}"
        return 500, json.dumps({"error": {"message": detail}}).encode()

    server = endpoint(echo_auth)
    # The OpenAI client retries by itself (honouring Retry-After): 2 retries, 3 requests.
    graph = build_graph(
        index=walrus,
        model=chat_model("gpt-4o-mini", timeout=5, retries=2),
        checkpointer=InMemorySaver(),
    )

    out = graph.invoke({"question": "q?"}, thread(), context=Context())

    assert len(server.requests) == 3
    assert server.requests[0]["auth"] == f"Bearer {OPENAI_KEY}"  # the key really was sent
    assert out["stop_reason"] == "error"
    assert out["error"].startswith("the model failed: OpenAIAPIError: HTTP 500: Error code: 500 - ")
    assert "upstream failed for Bearer ***" in out["error"]
    assert OPENAI_KEY not in json.dumps(graph.get_state(thread()).values, default=str)


def test_a_real_client_given_garbage_json_stops_with_a_clear_error(walrus: Index, endpoint) -> None:
    server = endpoint(lambda n, h: (200, b"{this is not json"))
    graph = build_graph(index=walrus, model=chat_model("gpt-4o-mini", timeout=5))

    out = graph.invoke({"question": "q?"}, context=Context(model_retries=2))

    assert len(server.requests) == 1  # not retried: a broken reply is not transient
    assert out["stop_reason"] == "error"
    assert out["error"].startswith(
        "the model failed: the model endpoint's reply is not valid JSON (JSONDecodeError: "
    )


def test_a_real_client_facing_a_silent_endpoint_times_out_and_stops(
    walrus: Index, endpoint
) -> None:
    # It answers only after 3 s: later than the client's 0.5 s timeout (the OpenAI
    # client's own default is 600 s). A client that waited would get the late answer.
    late = completion({"content": "A late answer."})
    server = endpoint(answers_late(lambda: server, 3.0, (200, late)))
    graph = build_graph(index=walrus, model=chat_model("gpt-4o-mini", timeout=0.5, retries=1))

    out = graph.invoke({"question": "q?"}, context=Context())

    assert len(server.requests) == 2
    assert out["stop_reason"] == "error"
    assert out["error"] == "the model failed: OpenAITimeoutError: Request timed out."
