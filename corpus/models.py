"""Chat-model plumbing shared by the agent, the ingest model steps and the evaluation.

A model by name (``langchain-openai`` covers OpenAI and every OpenAI-compatible server:
vLLM, Ollama, DeepSeek, OpenRouter, through ``OPENAI_BASE_URL``), retries of transient
errors, one line per model error with secrets redacted. Retries are done here (one
behaviour for every model), so the client's own retries are switched off.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage


class ModelConfigError(ValueError):
    """The configured model cannot be used; the message says what to set."""


def chat_model(name: str, temperature: float = 0.0, timeout: float = 120.0) -> BaseChatModel:
    """A chat model for ``name`` (``gpt-4o-mini`` or ``openai:gpt-4o-mini``)."""
    from langchain_openai import ChatOpenAI

    provider, _, model = name.rpartition(":")
    if provider not in ("", "openai"):
        raise ModelConfigError(f"unsupported model provider {provider!r} in {name!r}; use an "
                               "OpenAI-compatible endpoint via OPENAI_BASE_URL, or pass a "
                               "chat model object from Python")
    base_url = os.environ.get("OPENAI_BASE_URL") or None
    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key and not base_url:
        raise ModelConfigError(
            f"model {model!r} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local "
            "OpenAI-compatible server); unset the model to use the offline extractive policy")
    # Local servers (vLLM, Ollama) accept any key; the client insists on having one.
    return ChatOpenAI(model=model, temperature=temperature, base_url=base_url,
                      api_key=api_key or "not-needed", max_retries=0, timeout=timeout)


_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
_TRANSIENT_NAMES = ("Timeout", "RateLimit", "Connection", "ConnectError",
                    "ServiceUnavailable", "InternalServerError")
BACKOFF_BASE_S = 1.0


def is_transient(exc: BaseException) -> bool:
    """Whether a model error is worth retrying."""
    status = getattr(exc, "status_code", None) or getattr(
        getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return status in _TRANSIENT_STATUS
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(n in type(exc).__name__ for n in _TRANSIENT_NAMES)


_SECRET_SUFFIXES = ("API_KEY", "_TOKEN", "_SECRET", "PASSWORD")


def redact(text: str) -> str:
    """``text`` with the values of secret-looking environment variables masked.

    Provider error bodies may echo request headers (a proxy answering 500 with the
    ``Authorization: Bearer sk-…`` it received); the message ends up in the run's
    ``error`` output, the checkpoint and the logs, so known secrets are replaced.
    """
    for name, value in os.environ.items():
        if name.upper().endswith(_SECRET_SUFFIXES) and len(value) >= 8 and value in text:
            text = text.replace(value, "***")
    return text


def describe(exc: BaseException) -> str:
    """One line for a model error; says which endpoint could not be reached."""
    status = getattr(exc, "status_code", None)
    prefix = f"HTTP {status}: " if status else ""
    text = f"{type(exc).__name__}: {prefix}{exc}".strip()
    if isinstance(exc, json.JSONDecodeError):
        text = f"the model endpoint's reply is not valid JSON ({text})"
    if "Connection" in type(exc).__name__ or isinstance(exc, ConnectionError):
        endpoint = os.environ.get("OPENAI_BASE_URL") or "the OpenAI API"
        text += f" (cannot reach {endpoint}; check OPENAI_BASE_URL and the network)"
    return redact(text)


def invoke_with_retry(model: Any, messages: list[BaseMessage], retries: int) -> AIMessage:
    for attempt in range(retries + 1):
        try:
            reply = model.invoke(messages)
        except Exception as exc:  # provider SDKs raise their own types; classify below
            if attempt < retries and is_transient(exc):
                time.sleep(BACKOFF_BASE_S * 2 ** attempt)
                continue
            raise
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(getattr(reply, "content", reply)))
        return reply
    raise AssertionError("unreachable")
