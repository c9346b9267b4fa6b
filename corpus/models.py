"""Chat-model plumbing shared by the agent, the ingest model steps and the evaluation.

A model by name (``langchain-openai`` covers OpenAI and every OpenAI-compatible server:
vLLM, Ollama, DeepSeek, OpenRouter, through ``OPENAI_BASE_URL``), one call with retries
and a total deadline (:func:`invoke_with_retry`), one line per model error with secrets
redacted (:func:`describe`), and the text of a reply (:func:`message_text`).

Retries — two layers, one of which runs for a given model, so attempts stay bounded
by ``retries + 1``:

* a model whose client retries by itself (``max_retries`` set, as on ``ChatOpenAI``
  and most LangChain chat models) is left to it: the OpenAI client retries 408, 409,
  429, 5xx, timeouts and connection errors with exponential backoff and jitter and
  honours the server's ``Retry-After``. :func:`chat_model` sets its ``max_retries``;
* any other model (a custom one, the scripted test models) is retried here, with
  LangChain's ``Runnable.with_retry`` — exponential backoff with jitter, transient
  errors only (:func:`is_transient`).

The deadline bounds the whole response, retries and backoff included: an endpoint that
drips one byte every few seconds never trips a per-read timeout, so the call runs in a
worker thread and is abandoned at the deadline (:class:`DeadlineExceeded`, not retried).
The abandoned request ends on its own when its HTTP read does.
"""

from __future__ import annotations

import contextvars
import json
import os
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableBinding


class ModelConfigError(ValueError):
    """The configured model cannot be used; the message says what to set."""


def chat_model(name: str, temperature: float = 0.0, timeout: float = 120.0,
               retries: int = 3) -> BaseChatModel:
    """A chat model for ``name`` (``gpt-4o-mini`` or ``openai:gpt-4o-mini``).

    ``timeout`` bounds each read of the HTTP client; ``retries`` are the client's own
    (see the module docstring).
    """
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
                      api_key=api_key or "not-needed", max_retries=retries, timeout=timeout)


_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
_TRANSIENT_NAMES = ("Timeout", "RateLimit", "Connection", "ConnectError",
                    "ServiceUnavailable", "InternalServerError")
#: Longest wait between deepread's own retries, in seconds (tests set it to 0). The
#: waits are tenacity's exponential jitter defaults: 1 s, 2 s, 4 s… plus up to 1 s.
BACKOFF_MAX_S = 30.0


class DeadlineExceeded(Exception):
    """No complete reply within the model deadline (not retried: it was the total)."""


def is_transient(exc: BaseException) -> bool:
    """Whether a model error is worth retrying."""
    if isinstance(exc, DeadlineExceeded):
        return False
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


def message_text(message: BaseMessage) -> str:
    """The text of a message: its string content, or the text blocks of a list content
    (reasoning and other blocks left out) — LangChain's ``BaseMessage.text``."""
    return str(message.text)


def retries_itself(model: Any) -> bool:
    """Whether the model's own client retries (``max_retries`` unset means its default,
    which retries); a bound model (``bind_tools``) is looked through."""
    while isinstance(model, RunnableBinding):
        model = model.bound
    if "max_retries" not in getattr(type(model), "model_fields", {}):
        return False
    return getattr(model, "max_retries", None) != 0


#: Worker threads of model calls under a deadline (created as needed). A call abandoned
#: at its deadline keeps its worker until its HTTP read ends; past this many calls at
#: once, later ones wait — and meet their own deadline.
_CALLS = ThreadPoolExecutor(max_workers=256, thread_name_prefix="deepread-model-call")


def _before_deadline(call: Any, timeout: float | None) -> Any:
    """``call()``, or :class:`DeadlineExceeded` once ``timeout`` seconds have passed."""
    if not timeout or timeout <= 0:
        return call()
    # The worker runs in a copy of this context: LangGraph's config, callbacks and stream
    # writer reach the model call as they would in this thread.
    future = _CALLS.submit(contextvars.copy_context().run, call)
    try:
        return future.result(timeout)
    except FutureTimeout:
        future.cancel()
        raise DeadlineExceeded(f"no complete reply within {timeout:g} s (model_timeout)"
                               ) from None


def invoke_with_retry(model: Any, messages: list[BaseMessage], retries: int,
                      timeout: float | None = None) -> AIMessage:
    """The model's reply to ``messages``: transient errors retried (by the model's client
    or here, see the module docstring), the whole within ``timeout`` seconds."""
    runnable = model
    if retries > 0 and not retries_itself(model):
        runnable = model.with_retry(
            retry_if_exception_type=is_transient, wait_exponential_jitter=True,
            exponential_jitter_params={"max": BACKOFF_MAX_S},
            stop_after_attempt=retries + 1)
    reply = _before_deadline(lambda: runnable.invoke(messages), timeout)
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=str(getattr(reply, "content", reply)))
    return reply
