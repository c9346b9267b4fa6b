"""One settings resolver: the environment is read in deepread.environment.settings alone."""

from __future__ import annotations

import re

import pytest
from support.layout import PACKAGE_DIRS, ROOT

import deepread
from deepread.environment.settings import Settings, SettingsError
from deepread.stores.rerank import CoverageReranker


def test_only_the_settings_module_reads_the_environment():
    readers = []
    for folder in PACKAGE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if re.search(r"os\.environ|getenv\(", text):
                readers.append(str(path.relative_to(ROOT)))
    # environment/quiet_import.py sets unstructured's and onnxruntime's telemetry opt-outs
    # around their imports and restores them; models/chat.py masks the values of
    # secret-looking variables in error messages.
    assert "environment/settings.py" in readers
    assert set(readers) <= {
        "environment/settings.py",
        "environment/quiet_import.py",
        "models/chat.py",
    }


def test_the_store_is_deepread_store_then_qdrant_url_then_the_user_directory():
    assert Settings.from_env({"DEEPREAD_STORE": "/a", "QDRANT_URL": "http://q"}).store == "/a"
    assert Settings.from_env({"QDRANT_URL": "http://q"}).store == "http://q"
    fallback = Settings.from_env({})
    assert fallback.store.endswith("store") and not fallback.store_from_env


def test_a_bad_qdrant_timeout_is_named():
    with pytest.raises(SettingsError, match="QDRANT_TIMEOUT"):
        Settings.from_env({"QDRANT_TIMEOUT": "soon"})


def test_context_defaults_and_serve_caps_are_kept_apart():
    got = Settings.from_env({"DEEPREAD_K": "9", "DEEPREAD_SERVE_MAX_K": "20"})
    assert got.context_defaults["k"] == "9" and "serve_max_k" not in got.context_defaults
    assert got.serve == {"max_k": "20"}


def test_index_open_takes_the_reranker_and_embeddings_from_the_environment(monkeypatch, store):
    monkeypatch.setenv("DEEPREAD_RERANK", "none")
    with deepread.Index.open(store=store, collection="c") as idx:
        assert idx.reranker is None
    monkeypatch.setenv("DEEPREAD_RERANK", "coverage")
    with deepread.Index.open(store=store, collection="c") as idx:
        assert isinstance(idx.reranker, CoverageReranker)


def test_an_explicit_reranker_beats_the_environment(monkeypatch, store):
    monkeypatch.setenv("DEEPREAD_RERANK", "none")
    with deepread.Index.open(store=store, collection="c", reranker="coverage") as idx:
        assert isinstance(idx.reranker, CoverageReranker)


def test_index_open_without_a_store_uses_deepread_store(monkeypatch, tmp_path):
    monkeypatch.setenv("DEEPREAD_STORE", str(tmp_path / "envstore"))
    with deepread.Index.open(collection="c") as idx:
        assert idx.store == str(tmp_path / "envstore")
