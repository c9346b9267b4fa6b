"""``import deepread`` and ``deepread --help`` stay light: the heavy parts load on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "langgraph",
    "langchain_core",
    "unstructured",
    "onnxruntime",
    "qdrant_edge",
    "qdrant_client",
    "tiktoken",
    "numpy",
)


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_importing_deepread_loads_none_of_the_heavy_dependencies():
    assert not _loaded_after("import deepread") & set(HEAVY)


def test_the_cli_help_loads_none_of_the_heavy_dependencies():
    loaded = _loaded_after(
        "import contextlib, io\nfrom deepread.cli import main\n"
        "with contextlib.suppress(SystemExit), "
        "contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])"
    )
    assert not loaded & set(HEAVY)


def test_the_public_names_resolve_on_first_use():
    import deepread

    for name in deepread.__all__:
        assert getattr(deepread, name).__name__ == name


def test_the_served_graphs_are_factories_langgraph_json_names():
    import json

    import deepread.graphs.agent as agent
    import deepread.graphs.ingest as ingest

    root = Path(__file__).resolve().parents[2]
    for name in ("langgraph.json", "langgraph.auth.json"):
        graphs = json.loads((root / name).read_text())["graphs"]
        assert {k: v["path"] for k, v in graphs.items()} == {
            "deepread": "deepread.graphs.agent:graph",
            "ingest": "deepread.graphs.ingest:graph",
        }
        assert all(len(v["description"]) > 80 for v in graphs.values())  # Studio shows them
    assert callable(agent.graph) and callable(ingest.graph)


def _loaded_by_command(argv: list[str]) -> set[str]:
    """The modules a command loads, run as ``main(argv)`` (its output checked too)."""
    return _loaded_after(
        "import contextlib, io, sys\nfrom deepread.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = main({argv!r})\n"
        "assert code == 0 and out.getvalue().strip(), (code, out.getvalue())"
    )


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import deepread

    folder = tmp_path_factory.mktemp("lazy")
    (folder / "tides.md").write_text(
        "# Tides\n\n## Causes\n\nThe moon pulls the sea twice a day.\n", encoding="utf-8"
    )
    with deepread.Index.open(store=folder / "store") as index:
        index.ingest([folder / "tides.md"])
    return folder / "store"


#: What a command that only lists or reads a collection must not load (issue 36: every
#: command imported LangChain's chat models and the checkpointer, ~1.5 s before it began).
NOT_FOR_READING = (
    "langgraph",
    "langchain_core",
    "langchain_core.language_models",
    "unstructured",
    "onnxruntime",
    "tiktoken",
    "numpy",
    "deepread.checkpointers",
    "deepread.models.chat",
    "deepread.corpus.pipeline",
)


@pytest.mark.parametrize(
    "argv", [["docs"], ["collections"], ["toc"], ["read", "1", "2"]], ids=lambda a: a[0]
)
def test_a_read_command_loads_only_what_it_reads(small_store: Path, argv: list[str]) -> None:
    loaded = _loaded_by_command([*argv, "--store", str(small_store)])

    assert not loaded & set(NOT_FOR_READING) - {"tiktoken"}
    if argv[0] != "toc":  # (the TOC's module names the token counter; it loads no BPE)
        assert "tiktoken" not in loaded


def test_a_search_embeds_its_query_without_langchain_or_langgraph(small_store: Path) -> None:
    loaded = _loaded_by_command(["search", "moon", "--store", str(small_store)])

    assert "onnxruntime" in loaded  # the query was embedded, by the local model
    assert not loaded & {"langgraph", "langchain_core", "deepread.models.chat", "unstructured"}
