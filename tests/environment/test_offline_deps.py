"""Third-party pieces used offline: tiktoken's files, unstructured without telemetry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import docx
import pytest
import tiktoken_ext.openai_public as openai_public

from deepread.corpus.parsing import read_blocks
from deepread.text.tokens import _SPECS, encoding


@pytest.mark.parametrize("name", sorted(_SPECS))
def test_the_offline_encoding_is_defined_exactly_as_tiktoken_defines_it(monkeypatch, name):
    ours = encoding(name)
    # tiktoken's own definition, with its loader pointed at the ranks we loaded (no network)
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *_, **__: ours._mergeable_ranks)
    theirs = openai_public.ENCODING_CONSTRUCTORS[name]()
    assert ours._pat_str == theirs["pat_str"]
    assert ours._special_tokens == theirs["special_tokens"]


def test_offline_token_counts_are_tiktokens():
    assert encoding().encode_ordinary("Hello world, naïve café 12345") == [
        13225,
        2375,
        11,
        153475,
        737,
        30469,
        220,
        7633,
        2548,
    ]


def test_parsing_sends_no_unstructured_telemetry_and_shows_no_notice(monkeypatch, tmp_path: Path):
    from unstructured import telemetry

    calls: list[str] = []
    # As if the user had not opted out: only our unwrapping can keep these from running.
    monkeypatch.setattr(telemetry, "_telemetry_opt_out", lambda: False)
    monkeypatch.setattr(telemetry, "_schedule_delivery", lambda *_: calls.append("event"))
    monkeypatch.setattr(telemetry, "maybe_emit_usage_notice", lambda: calls.append("notice"))
    (tmp_path / "a.html").write_text("<h1>T</h1><p>Some text here.</p>", encoding="utf-8")
    (tmp_path / "b.md").write_text("# T\n\nSome text here.\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("Some text here.\n", encoding="utf-8")
    document = docx.Document()
    document.add_paragraph("Some text here.")
    document.save(tmp_path / "d.docx")
    for name in ("a.html", "b.md", "c.txt", "d.docx"):
        assert read_blocks(tmp_path / name).blocks
    assert calls == []


ORT_CHILD = """
import os
from deepread.stores.embeddings import LocalEmbeddings
LocalEmbeddings().embed_query("harbour ledger")
print("ORT_DISABLE_TELEMETRY" in os.environ)
"""


def test_the_embedding_model_leaves_no_onnxruntime_telemetry_and_no_variable(tmp_path):
    # onnxruntime >= 1.29 records 1DS telemetry (a device id and an event database under
    # ~/.cache/Microsoft/DeveloperTools, for upload) unless told not to before it loads.
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")
    } | {"HOME": str(home)}
    out = subprocess.run(
        [sys.executable, "-c", ORT_CHILD],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert out.stdout.strip() == "False"  # the opt-out was for the import only
    assert [p.relative_to(home) for p in home.rglob("*")] == []
