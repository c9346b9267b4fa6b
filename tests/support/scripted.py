"""A scripted chat model for testing the DeepRead agent graph without an LLM.

:class:`ScriptedChatModel` replays a script, one step per model call, in the style of
the fake models of LangGraph's prebuilt tests (``FakeToolCallingModel``):

* an :class:`~langchain_core.messages.AIMessage` is returned as is (a copy: LangChain
  stamps ids on what a model returns) — build ones with real tool calls with
  :func:`ai` and :func:`call`;
* an exception instance is raised, e.g. ``ScriptedHTTPError(429)`` to exercise the
  policy's retry of transient errors, ``ScriptedHTTPError(400)`` for a fatal one;
* a callable ``step(messages) -> AIMessage`` builds the reply from the messages the
  model is called with, e.g. to cite the coordinates shown in the last ``ToolMessage``
  (:func:`last_tool_message`, :func:`shown_coords` help there).

Every call is recorded: ``model.calls`` holds the list of messages of each call (the
calls that raised included), ``model.bound`` the tool schemas of each ``bind_tools``
(which returns the model itself, so the script runs on). When the script runs out the
model raises :class:`ScriptExhausted`, unless ``cycle=True`` replays it from the start.

:class:`StreamingScriptedChatModel` replays the same script as a streaming API does
(``stream=True``): a reply's text word by word, then its tool calls, so LangGraph's
``stream_mode="messages"`` sees tokens arrive.

With ``strict=True`` the model refuses, as OpenAI-compatible APIs do (HTTP 400), a
history in which a tool call is not answered by a tool message before anything else,
or a tool message answers no open call (:func:`history_problem`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

Step = AIMessage | BaseException | Callable[[list[BaseMessage]], AIMessage]

_ids = itertools.count(1)


class ScriptExhausted(AssertionError):
    """The graph called the model more often than the script foresaw."""


class ScriptedHTTPError(Exception):
    """A provider error with an HTTP status, as the OpenAI SDK's ``APIStatusError``.

    Its name deliberately contains none of the words (``RateLimit``, ``Timeout``…) the
    policy also classifies by, so only ``status_code`` decides whether it is retried.
    """

    def __init__(self, status_code: int, message: str = "") -> None:
        super().__init__(message or f"scripted HTTP {status_code}")
        self.status_code = status_code


def call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> dict[str, Any]:
    """A tool call dict (``type="tool_call"``) with a fresh id unless one is given."""
    return {
        "name": name,
        "args": dict(args or {}),
        "id": id or f"call_{next(_ids)}",
        "type": "tool_call",
    }


def read_call(doc_sec: tuple[int, int], start: int, end: int, **extra: Any) -> dict[str, Any]:
    """A ``read_section`` call of paragraphs ``start..end`` of section ``doc_sec``."""
    return call(
        "read_section",
        {"doc_id": doc_sec[0], "sec_id": doc_sec[1], "start": start, "end": end, **extra},
    )


def section_of(index: Any, title: str) -> tuple[int, int]:
    """``(doc_id, sec_id)`` of the first section of ``index`` titled ``title``."""
    for doc in index.documents():
        for sec in doc.sections:
            if sec.title == title:
                return doc.doc_id, sec.sec_id
    raise AssertionError(f"no section {title!r}")


def ai(
    *tool_calls: dict[str, Any],
    content: str = "",
    usage: tuple[int, int] | None = None,
    **kwargs: Any,
) -> AIMessage:
    """An AI message with ``tool_calls`` and, given ``(input, output)``, usage metadata."""
    if usage is not None:
        kwargs["usage_metadata"] = {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return AIMessage(content=content, tool_calls=list(tool_calls), **kwargs)


def last_tool_message(messages: Sequence[BaseMessage]) -> ToolMessage:
    """The last ``ToolMessage`` among ``messages``."""
    for msg in reversed(messages):
        if isinstance(msg, ToolMessage):
            return msg
    raise AssertionError("no ToolMessage in the messages the model was called with")


def shown_coords(message: ToolMessage) -> list[tuple[int, int, int]]:
    """The ``(doc_id, sec_id, para_idx)`` of the paragraphs a tool result shows."""
    artifact = message.artifact if isinstance(message.artifact, dict) else {}
    return [(r["doc_id"], r["sec_id"], r["para_idx"]) for r in artifact.get("paragraphs", [])]


def cite(coords: Sequence[tuple[int, int, int]]) -> str:
    """``[d:s:p]`` marks for ``coords``, space-separated."""
    return " ".join(f"[{d}:{s}:{p}]" for d, s, p in coords)


def tool_turns(entries: Sequence[tuple[str, Sequence[str], str | None]]) -> str | None:
    """What an OpenAI-compatible API would reject in a conversation given as
    ``(role, tool_call_ids, tool_call_id)`` per message, or None when it is valid."""
    open_ids: list[str] = []
    for role, call_ids, answers in entries:
        if role == "tool":
            if answers not in open_ids:
                return (
                    f"messages with role 'tool' must be a response to a preceding "
                    f"message with 'tool_calls' (tool_call_id {answers!r})"
                )
            open_ids.remove(answers)
            continue
        if open_ids:
            return (
                "An assistant message with 'tool_calls' must be followed by tool "
                "messages responding to each 'tool_call_id'. The following "
                f"tool_call_ids did not have response messages: {', '.join(open_ids)}"
            )
        open_ids = list(call_ids)
    if open_ids:
        return f"tool_call_ids without response messages: {', '.join(open_ids)}"
    return None


def history_problem(messages: Sequence[BaseMessage]) -> str | None:
    """:func:`tool_turns` of LangChain messages (malformed calls are sent as calls too)."""
    entries = []
    for m in messages:
        ids = [
            str(c.get("id"))
            for c in [*getattr(m, "tool_calls", []), *getattr(m, "invalid_tool_calls", [])]
        ]
        role = {"ai": "assistant", "tool": "tool"}.get(m.type, m.type)
        entries.append((role, ids, getattr(m, "tool_call_id", None)))
    return tool_turns(entries)


class ScriptedChatModel(BaseChatModel):
    """Replays ``steps`` (see the module docstring); records every call."""

    steps: list[Any]
    cycle: bool = False
    strict: bool = False
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[list[Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self.bound.append(list(tools))
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        position = len(self.calls)
        self.calls.append(list(messages))
        if self.strict and (problem := history_problem(messages)):
            raise ScriptedHTTPError(400, f"invalid history: {problem}")
        if position >= len(self.steps) and not (self.cycle and self.steps):
            raise ScriptExhausted(
                f"model call {position + 1} but the script has {len(self.steps)} step(s)"
            )
        step = self.steps[position % len(self.steps)]
        if isinstance(step, BaseException):
            raise step
        reply = step(list(messages)) if callable(step) else step
        if not isinstance(reply, AIMessage):
            raise TypeError(f"script step {position} gave {type(reply).__name__}, not an AIMessage")
        return ChatResult(generations=[ChatGeneration(message=reply.model_copy(deep=True))])


class StreamingScriptedChatModel(ScriptedChatModel):
    """:class:`ScriptedChatModel` whose replies stream: each word of the text its own
    chunk, then one chunk with the tool calls and the usage (as OpenAI's API sends them).
    Only streamed when something asks for tokens (``stream_mode="messages"``, ``.stream``);
    ``.invoke`` alone gets the whole reply, as from the base class."""

    @property
    def _llm_type(self) -> str:
        return "scripted-streaming-chat-model"

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        assert isinstance(reply, AIMessage)
        text = reply.content if isinstance(reply.content, str) else ""
        for piece in re.findall(r"\S+\s*|\s+", text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                usage_metadata=reply.usage_metadata,
                tool_call_chunks=[
                    {
                        "name": c["name"],
                        "args": json.dumps(c["args"]),
                        "id": c["id"],
                        "index": i,
                        "type": "tool_call_chunk",
                    }
                    for i, c in enumerate(reply.tool_calls)
                ],
            )
        )


class CannedVisionModel(BaseChatModel):
    """Answers every call with ``reply(call_number)``; records the image parts sent."""

    reply: Callable[[int], str]
    model_name: str = "canned-vlm"
    images: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "canned-vision"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        content = messages[-1].content
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        self.images += [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]
        self.prompts += [p["text"] for p in parts if p.get("type") == "text"]
        text = self.reply(len(self.prompts))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def calls_state(
    *calls: dict[str, Any], offered: tuple[str, ...] = ("retrieve", "read_section")
) -> dict[str, Any]:
    """A graph state whose last message is the policy's ``calls``, with the tools
    ``offered`` (for the executors and the routers)."""
    return {
        "messages": [
            HumanMessage(content="Which paragraph is about cherries?"),
            AIMessage(content="", tool_calls=list(calls)),
        ],
        "offered": list(offered),
        "read_regions": {},
    }
