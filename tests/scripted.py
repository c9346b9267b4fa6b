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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
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
    return {"name": name, "args": dict(args or {}), "id": id or f"call_{next(_ids)}",
            "type": "tool_call"}


def ai(*tool_calls: dict[str, Any], content: str = "",
       usage: tuple[int, int] | None = None, **kwargs: Any) -> AIMessage:
    """An AI message with ``tool_calls`` and, given ``(input, output)``, usage metadata."""
    if usage is not None:
        kwargs["usage_metadata"] = {"input_tokens": usage[0], "output_tokens": usage[1],
                                    "total_tokens": usage[0] + usage[1]}
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


class ScriptedChatModel(BaseChatModel):
    """Replays ``steps`` (see the module docstring); records every call."""

    steps: list[Any]
    cycle: bool = False
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[list[Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self.bound.append(list(tools))
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        position = len(self.calls)
        self.calls.append(list(messages))
        if position >= len(self.steps) and not (self.cycle and self.steps):
            raise ScriptExhausted(f"model call {position + 1} but the script has "
                                  f"{len(self.steps)} step(s)")
        step = self.steps[position % len(self.steps)]
        if isinstance(step, BaseException):
            raise step
        reply = step(list(messages)) if callable(step) else step
        if not isinstance(reply, AIMessage):
            raise TypeError(f"script step {position} gave {type(reply).__name__}, "
                            "not an AIMessage")
        return ChatResult(generations=[ChatGeneration(message=reply.model_copy(deep=True))])
