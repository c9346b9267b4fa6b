"""Chat models: an OpenAI-compatible endpoint by name, or the offline extractive policy.

``langchain-openai`` covers OpenAI and every OpenAI-compatible server (vLLM, Ollama,
DeepSeek, OpenRouter) through ``OPENAI_BASE_URL``. Retries are done by the policy node
(one behaviour for every model), so the client's own retries are switched off.
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel


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
