"""``import deepread`` and ``deepread --help`` stay light: the heavy parts load on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
