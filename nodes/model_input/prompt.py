"""What a model call of the agent is sent: the system prompt, the history, deepread's notices.

One place assembles them. The system prompt is the paper's (Fig. 5) with the Directory
Structure of the turn; the history is the thread's messages with the observations the
``compact`` node chose sent as evidence notes instead (:mod:`deepread.nodes.model_input.notes`).

deepread's own instructions to the model — the round-budget notice, the sufficiency
check's request to answer again — are *not* human messages: the user never said them.
They are ``SystemMessage``\\ s marked with :data:`NOTICE_KEY` (chat views show them as
system text, OpenAI-compatible APIs accept system messages anywhere in the
conversation). The budget notice is sent with its one call and not kept; the
sufficiency request is kept in the thread, since the answer after it reads as a reply
to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from deepread.prompts import load

#: ``additional_kwargs`` key marking messages deepread adds itself (not the user's or the
#: model's words): its value says which ("budget", "repeats", "sufficiency", "no_evidence").
NOTICE_KEY = "deepread_notice"


def system_prompt(toc: str) -> SystemMessage:
    """The system prompt showing the Directory Structure ``toc``."""
    return SystemMessage(content=load("system").replace("{toc}", toc))


def notice(kind: str, text: str) -> SystemMessage:
    """deepread's own instruction to the model, marked as such."""
    return SystemMessage(content=text, additional_kwargs={NOTICE_KEY: kind})


def is_notice(message: BaseMessage) -> bool:
    """Whether ``message`` is one deepread added itself (a notice, its own tool request)."""
    return bool(message.additional_kwargs.get(NOTICE_KEY))


def model_input(state: Mapping[str, Any]) -> list[BaseMessage]:
    """The messages a model call is sent: system prompt, then the history with the
    observations the ``compact`` node noted replaced by their notes."""
    notes: dict[str, str] = state.get("notes") or {}
    history = [
        m.model_copy(update={"content": notes[m.id]}) if m.id in notes else m
        for m in state.get("messages", [])
    ]
    return [system_prompt(state.get("toc", "")), *history]
