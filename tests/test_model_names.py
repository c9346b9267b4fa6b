"""Model names, read the way LangChain's init_chat_model reads them."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from deepread.corpus.models import ModelConfigError, chat_model, split_model_name


@pytest.mark.parametrize(("name", "expected"), [
    ("gpt-4o-mini", ("", "gpt-4o-mini")),
    ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
    ("ollama:llama3.1:8b", ("ollama", "llama3.1:8b")),
    ("llama3.1:8b", ("", "llama3.1:8b")),
    ("qwen2.5:7b-instruct", ("", "qwen2.5:7b-instruct")),
    ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
])
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


def test_another_provider_without_langchain_says_what_to_install(local_endpoint):
    with pytest.raises(ModelConfigError, match=r"provider 'anthropic'.*pip install langchain"):
        chat_model("anthropic:claude-sonnet-4-5")


def test_an_openai_model_without_a_key_or_endpoint_says_what_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError, match="needs OPENAI_API_KEY"):
        chat_model("openai:gpt-4o-mini")
