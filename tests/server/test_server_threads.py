"""A thread served by a real ``langgraph dev`` server: streams a client sees, and a run
cancelled between the model's tool call and the tool that does not poison the thread.

The model is a small OpenAI-compatible HTTP server (stdlib ``http.server``) reached by
``langchain-openai``'s real client through ``OPENAI_BASE_URL``. Like the real APIs it
answers HTTP 400 to a history in which a tool call has no tool message, and a request
with ``stream: true`` as server-sent events, word by word (what the client sends when a
run is streamed in ``messages`` mode). Marked slow: it starts a server process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from support.langgraph_server import langgraph_dev
from support.local_http import LocalServer, QuietHandler
from support.scripted import tool_turns

from deepread.nodes.model_input.history import NOT_RUN

pytestmark = pytest.mark.slow

COLLECTION = "threads"
DOC = """# Walruses

## Sleep

The walrus sleeps on the sea ice and in the water.

A walrus can sleep while floating, held up by air sacs in its throat.

## Food

Walruses eat clams and other molluscs from the sea floor.
"""
#: Queries of the slow retrieve: long enough a tool run to cancel in the middle of.
SLOW_QUERIES = 400
_COORD = re.compile(r"\[(\d+):(\d+):(\d+)\]")


class FakeOpenAI(QuietHandler):
    """Chat completions: a retrieve call for a question, an answer citing the first
    paragraph of a tool result; HTTP 400 for a history a real API would refuse."""

    def do_POST(self) -> None:
        request = json.loads(self.body())
        messages = request["messages"]
        owner = self.server.owner
        owner.requests.append(messages)
        problem = tool_turns(
            [
                (m["role"], [c["id"] for c in m.get("tool_calls") or []], m.get("tool_call_id"))
                for m in messages
            ]
        )
        if problem:
            owner.refused.append(problem)
            self.reply(
                400,
                {
                    "error": {
                        "message": problem,
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": None,
                    }
                },
            )
            return
        last = messages[-1]
        if last["role"] == "tool":
            found = _COORD.search(last["content"] or "")
            cited = f" [{found.group(1)}:{found.group(2)}:{found.group(3)}]" if found else ""
            message: dict[str, Any] = {"content": f"The walrus sleeps on the ice{cited}."}
        else:
            question = str(last.get("content") or "")
            query: Any = (
                [f"walrus {i} {question}" for i in range(SLOW_QUERIES)]
                if ("slowly" in question)
                else question
            )
            message = {
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{len(owner.requests)}",
                        "type": "function",
                        "function": {"name": "retrieve", "arguments": json.dumps({"query": query})},
                    }
                ],
            }
        if request.get("stream"):
            owner.streamed.append(True)
            self.stream(request, message)
            return
        self.reply(
            200,
            {
                "id": f"chatcmpl-{len(owner.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", **message},
                        "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )

    def stream(self, request: dict[str, Any], message: dict[str, Any]) -> None:
        """The reply as the API streams it: the text word by word, then the tool calls,
        the finish reason, the usage (when asked for) and ``[DONE]``."""
        base = {
            "id": f"chatcmpl-{len(self.server.owner.requests)}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": request.get("model", "fake"),
        }
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        deltas += [{"content": word} for word in re.findall(r"\S+\s*", message["content"] or "")]
        deltas += [
            {"tool_calls": [dict(call, index=i)]}
            for i, call in enumerate(message.get("tool_calls") or [])
        ]
        chunks = [
            base | {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
        ]
        chunks.append(
            base
            | {
                "choices": [
                    {
                        "index": 0,
                        "delta": {},
                        "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                    }
                ]
            }
        )
        if (request.get("stream_options") or {}).get("include_usage"):
            chunks.append(
                base
                | {
                    "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
            )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def reply(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def model_server() -> Iterator[LocalServer]:
    server = LocalServer(FakeOpenAI)
    server.refused = []  # type: ignore[attr-defined]
    server.streamed = []  # type: ignore[attr-defined]
    yield server
    server.close()


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, model_server: LocalServer
) -> Iterator[SyncLangGraphClient]:
    workdir = tmp_path_factory.mktemp("langgraph_dev_threads")
    env = {
        "OPENAI_BASE_URL": model_server.url,
        "OPENAI_API_KEY": "sk-test-threads",
        "DEEPREAD_INGEST_ROOT": str(workdir),
        "DEEPREAD_SERVE_MODELS": "gpt-4o-mini",  # a client may choose this model
        # the operator lets a retrieve list SLOW_QUERIES queries: a tool run long enough
        # to cancel in the middle of (the default, 10, would refuse it at once)
        "DEEPREAD_MAX_QUERIES": str(SLOW_QUERIES),
    }
    with langgraph_dev(workdir, env=env) as url:
        client = get_sync_client(url=url)
        doc = workdir / "walrus.md"
        doc.write_text(DOC, encoding="utf-8")
        out = client.runs.wait(
            None, "ingest", input={"paths": [str(doc)]}, context={"collection": COLLECTION}
        )
        assert out["failures"] == [], out
        yield client


def test_the_models_the_operator_offers_are_the_model_fields_choices(
    client: SyncLangGraphClient,
) -> None:
    [assistant] = client.assistants.search(graph_id="deepread")

    model = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"][
        "properties"
    ]["model"]

    assert model["enum"] == ["", "gpt-4o-mini"]  # "": the operator's default


def test_the_answer_is_streamed_as_messages_events_token_by_token(
    client: SyncLangGraphClient, model_server: LocalServer
) -> None:
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id,
            "deepread",
            input={"question": "Where does the walrus sleep?"},
            context={"collection": COLLECTION, "model": "gpt-4o-mini"},
            stream_mode="messages-tuple",
        )
    )

    assert not [p.data for p in parts if p.event == "error"]
    chunks = [(message, meta) for message, meta in (p.data for p in parts if p.event == "messages")]
    answer = client.threads.get_state(thread_id)["values"]["answer"]
    from_policy = [
        m
        for m, meta in chunks
        if meta.get("langgraph_node") == "policy" and m["type"] == "AIMessageChunk" and m["content"]
    ]
    assert answer.startswith("The walrus sleeps on the ice [")
    assert len(from_policy) >= 6  # one event per word, not one for the whole reply
    assert "".join(m["content"] for m in from_policy) == answer
    assert model_server.streamed  # the client asked the model for a stream


def tool_call_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for m in messages if m["type"] == "ai" for c in m.get("tool_calls") or []]


def answered_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [m["tool_call_id"] for m in messages if m["type"] == "tool"]


def test_a_streamed_run_shows_each_node_each_tool_call_and_the_answer_in_messages(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id,
            "deepread",
            input={"question": "Where does the walrus sleep?"},
            context={"collection": COLLECTION},
            stream_mode=["updates", "custom", "values"],
        )
    )

    assert not [p.data for p in parts if p.event == "error"]
    updates = [p.data for p in parts if p.event == "updates"]
    assert [node for u in updates for node in u][:3] == ["toc", "compact", "policy"]
    empty = [node for u in updates for node, value in u.items() if not value]
    assert not empty, f"nodes whose updates arrived empty: {empty}"
    custom = [p.data for p in parts if p.event == "custom"]
    calls = [e for e in custom if e["event"] == "tool_call"]
    results = [e for e in custom if e["event"] == "tool_result"]
    assert calls and [e["id"] for e in calls] == [e["id"] for e in results]
    assert calls[0]["name"] == "retrieve" and results[0]["hits"] >= 1
    final = [p.data for p in parts if p.event == "values"][-1]
    answer = final["messages"][-1]
    assert answer["type"] == "ai" and answer["content"] == final["answer"]
    assert answer["response_metadata"]["citations"] == final["citations"]


def test_a_run_cancelled_after_the_tool_call_leaves_a_thread_that_answers(
    client: SyncLangGraphClient, model_server: LocalServer
) -> None:
    thread_id = client.threads.create()["thread_id"]
    context = {"collection": COLLECTION, "model": "gpt-4o-mini"}
    run = client.runs.create(
        thread_id,
        "deepread",
        context=context,
        input={"question": "Where does the walrus sleep, slowly?"},
        stream_mode=["updates"],
    )
    for part in client.runs.join_stream(thread_id, run["run_id"]):
        if (
            part.event == "updates"
            and "policy" in part.data
            and tool_call_ids(part.data["policy"].get("messages") or [])
        ):
            client.runs.cancel(thread_id, run["run_id"], wait=True)
            break
    cancelled = client.threads.get_state(thread_id)["values"]["messages"]
    assert set(tool_call_ids(cancelled)) - set(answered_ids(cancelled)), (
        "the cancel came after the tool had answered; nothing to repair"
    )

    out = client.runs.wait(
        thread_id, "deepread", context=context, input={"question": "Where does the walrus sleep?"}
    )

    assert out["stop_reason"] == "answered", out.get("error")
    assert out["citations"]
    assert model_server.refused == []  # no history sent was one a real API refuses
    messages = client.threads.get_state(thread_id)["values"]["messages"]
    assert sorted(tool_call_ids(messages)) == sorted(answered_ids(messages))
    assert any(m["type"] == "tool" and NOT_RUN in m["content"] for m in messages)
