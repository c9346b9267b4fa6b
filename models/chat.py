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
drips one byte every few seconds never trips a per-read timeout. A model with a native
async client (``ChatOpenAI`` and most provider integrations) is called as a task on
deepread's model event loop (one daemon thread per process, :class:`_ModelLoop`) and the
task is *cancelled* at the deadline (:class:`DeadlineExceeded`, not retried):
cancellation closes the HTTP request, so nothing keeps reading after the deadline and a
command exits at once. A model with only a synchronous ``_generate`` (the offline policy,
scripted test models, custom ones) cannot be cancelled; it runs in a daemon thread that
is abandoned at the deadline and never keeps the process alive. (LangGraph's node
``timeout`` is fixed when the graph is built and cancels async nodes only; the deadline
is a per-run setting, ``Context.model_timeout``.)
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import queue
import threading
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from importlib.util import find_spec
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableBinding

from deepread.environment.settings import current as current_settings
from deepread.text.redaction import redact as redact_text


class ModelConfigError(ValueError):
    """The configured model cannot be used; the message says what to set."""


#: The providers ``init_chat_model`` knows, as the prefix of a ``provider:model`` name.
#: Any other prefix is part of the model's own name (Ollama's ``llama3.1:8b``).
PROVIDERS = frozenset(
    {
        "openai",
        "anthropic",
        "azure_openai",
        "azure_ai",
        "google_vertexai",
        "google_genai",
        "google_anthropic_vertex",
        "bedrock",
        "bedrock_converse",
        "cohere",
        "fireworks",
        "together",
        "mistralai",
        "huggingface",
        "groq",
        "ollama",
        "deepseek",
        "ibm",
        "nvidia",
        "xai",
        "perplexity",
        "upstage",
    }
)


def split_model_name(name: str) -> tuple[str, str]:
    """``(provider, model)`` of a name: ``"ollama:llama3.1:8b"`` → ``("ollama",
    "llama3.1:8b")``; ``"llama3.1:8b"`` → ``("", "llama3.1:8b")`` (no known provider)."""
    prefix, sep, rest = name.strip().partition(":")
    if sep and rest and prefix.lower() in PROVIDERS:
        return prefix.lower(), rest
    return "", name.strip()


def chat_model(
    name: str, temperature: float = 0.0, timeout: float = 120.0, retries: int = 3
) -> BaseChatModel:
    """A chat model for ``name``, read the way ``init_chat_model`` reads names.

    ``gpt-4o-mini``, ``llama3.1:8b`` (an Ollama-style ``name:tag``) and ``openai:<model>``
    go to the OpenAI-compatible endpoint (``OPENAI_BASE_URL``, else OpenAI).
    ``ollama:<model>`` uses ``langchain-ollama`` when it is installed, else Ollama's
    OpenAI-compatible endpoint named by ``OPENAI_BASE_URL``. Any other
    ``provider:model`` goes to LangChain's ``init_chat_model`` (packages ``langchain``
    and the provider's integration, not dependencies of deepread). From Python, any
    LangChain chat model object can be given to ``build_graph`` instead.

    ``timeout`` bounds each read of the OpenAI client; ``retries`` are its own retries
    (see the module docstring).
    """
    provider, model = split_model_name(name)
    if not model:
        raise ModelConfigError(
            "the model name is empty; unset the model to use the offline extractive policy"
        )
    settings = current_settings()
    if provider == "ollama" and (
        find_spec("langchain_ollama") is None or find_spec("langchain") is None
    ):
        if not settings.openai_base_url:
            raise ModelConfigError(
                f"model {name!r}: set OPENAI_BASE_URL to Ollama's OpenAI-compatible endpoint "
                "(e.g. http://localhost:11434/v1), or pip install langchain langchain-ollama"
            )
        provider = ""  # Ollama's OpenAI-compatible API
    if provider not in ("", "openai"):
        if find_spec("langchain") is None:
            raise ModelConfigError(
                f"model provider {provider!r} in {name!r} needs LangChain's init_chat_model: "
                f"pip install langchain and the {provider} integration (see its docs), use "
                "an OpenAI-compatible endpoint via OPENAI_BASE_URL, or pass a chat model "
                "object from Python"
            )
        from langchain.chat_models import init_chat_model

        try:
            return init_chat_model(model, model_provider=provider, temperature=temperature)
        except ImportError as exc:  # langchain is there, the provider's package is not
            raise ModelConfigError(f"model provider {provider!r} in {name!r}: {exc}") from None
    from langchain_openai import ChatOpenAI

    base_url = settings.openai_base_url
    if not settings.openai_api_key_set and not base_url:
        raise ModelConfigError(
            f"model {model!r} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local "
            "OpenAI-compatible server); unset the model to use the offline extractive policy"
        )
    # Local servers (vLLM, Ollama) accept any key; the client insists on having one. The
    # key itself is left for the client to read from OPENAI_API_KEY.
    return ChatOpenAI(
        model=model,
        temperature=temperature,
        base_url=base_url,
        api_key=None if settings.openai_api_key_set else "not-needed",
        max_retries=retries,
        timeout=timeout,
    )


_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
_TRANSIENT_NAMES = (
    "Timeout",
    "RateLimit",
    "Connection",
    "ConnectError",
    "ServiceUnavailable",
    "InternalServerError",
)
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
        getattr(exc, "response", None), "status_code", None
    )
    if isinstance(status, int):
        return status in _TRANSIENT_STATUS
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(n in type(exc).__name__ for n in _TRANSIENT_NAMES)


def redact(text: str) -> str:
    """``text`` with secrets masked (:func:`deepread.text.redaction.redact`: the values
    of the environment's secrets, URL passwords and secret parameters, bearer tokens).

    Provider error bodies may echo request headers (a proxy answering 500 with the
    ``Authorization: Bearer sk-…`` it received); the message ends up in the run's
    ``error`` output, the checkpoint and the logs.
    """
    return redact_text(text, current_settings().secrets)


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
    model = _unbound(model)
    if "max_retries" not in getattr(type(model), "model_fields", {}):
        return False
    return getattr(model, "max_retries", None) != 0


class _ModelLoop:
    """One event loop in a daemon thread, started on first use, where model calls under a
    deadline run as tasks: a task can be cancelled (its HTTP request closed), a thread
    cannot, and a daemon thread never keeps the process alive."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="deepread-model-calls", daemon=True
                ).start()
                self._loop = loop
            return self._loop

    def run(self, make_call: Any, timeout: float) -> Any:
        """``await make_call()`` on the loop, in a copy of the caller's context (LangGraph's
        config, callbacks and stream writer reach the model call as in the caller's
        thread); cancelled, and :class:`DeadlineExceeded` raised, after ``timeout`` s."""
        context = contextvars.copy_context()

        async def in_context() -> Any:
            # A task takes the context current at its creation: create it inside ours.
            return await context.run(asyncio.ensure_future, make_call())

        future = asyncio.run_coroutine_threadsafe(in_context(), self.loop())
        try:
            return future.result(timeout)
        except (FutureTimeout, FutureCancelled):
            future.cancel()  # cancels the task, which cancels the request it awaits
            raise DeadlineExceeded(
                f"no complete reply within {timeout:g} s (model_timeout)"
            ) from None


_MODEL_LOOP = _ModelLoop()


def _unbound(model: Any) -> Any:
    """The chat model under bindings (``bind_tools``) and retry wrappers."""
    while isinstance(model, RunnableBinding):
        model = model.bound
    return model


def _cancellable(model: Any) -> bool:
    """Whether the model has a native async client, whose request a cancel closes."""
    chat = _unbound(model)
    return isinstance(chat, BaseChatModel) and (
        type(chat)._agenerate is not BaseChatModel._agenerate
    )


class _DaemonWorkers:
    """Daemon threads that run synchronous model calls, reused from call to call (a
    thread per call would cost more than the offline policy's own step). A worker whose
    call passed its deadline is left to finish it and only then taken again; when every
    worker is busy, one more is started. Daemon threads never keep the process alive."""

    def __init__(self) -> None:
        self._idle: list[queue.SimpleQueue[Any]] = []
        self._lock = threading.Lock()

    def _serve(self, inbox: queue.SimpleQueue[Any]) -> None:
        while True:
            inbox.get()()
            with self._lock:
                self._idle.append(inbox)

    def submit(self, job: Any) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(
                target=self._serve, args=(inbox,), name="deepread-model-call", daemon=True
            ).start()
        inbox.put(job)


_WORKERS = _DaemonWorkers()


def _in_daemon_thread(call: Any, timeout: float) -> Any:
    """``call()`` on a daemon worker (in a copy of the caller's context), its result or
    its exception; :class:`DeadlineExceeded` once ``timeout`` seconds have passed, the
    call then left to end on its own."""
    context = contextvars.copy_context()
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = context.run(call)
        except BaseException as exc:  # handed to the caller, KeyboardInterrupt included
            box["error"] = exc
        finally:
            done.set()

    _WORKERS.submit(run)
    if not done.wait(timeout):
        raise DeadlineExceeded(f"no complete reply within {timeout:g} s (model_timeout)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _with_retries(model: Any, retries: int) -> Any:
    """``model``, retried here on transient errors unless its own client retries."""
    if retries > 0 and not retries_itself(model):
        return model.with_retry(
            retry_if_exception_type=is_transient,
            wait_exponential_jitter=True,
            exponential_jitter_params={"max": BACKOFF_MAX_S},
            stop_after_attempt=retries + 1,
        )
    return model


def _as_reply(reply: Any) -> AIMessage:
    return (
        reply
        if isinstance(reply, AIMessage)
        else AIMessage(content=str(getattr(reply, "content", reply)))
    )


def invoke_with_retry(
    model: Any, messages: list[BaseMessage], retries: int, timeout: float | None = None
) -> AIMessage:
    """The model's reply to ``messages``: transient errors retried (by the model's client
    or here, see the module docstring), the whole within ``timeout`` seconds (the call
    cancelled when they pass)."""
    runnable = _with_retries(model, retries)
    if not timeout or timeout <= 0:
        return _as_reply(runnable.invoke(messages))
    if _cancellable(model):
        return _as_reply(_MODEL_LOOP.run(lambda: runnable.ainvoke(messages), timeout))
    return _as_reply(_in_daemon_thread(lambda: runnable.invoke(messages), timeout))
