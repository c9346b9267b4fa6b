"""The drawing of the agent graph in docs/architecture.md is the built graph's own:
a node or edge added to the graph and not to the drawing fails here."""

from __future__ import annotations

import re
from pathlib import Path

import deepread

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
REDRAW = 'python -c "import deepread; print(deepread.build_graph().get_graph().draw_mermaid())"'


def test_the_architecture_drawing_is_the_built_graphs_own():
    block = re.search(r"```mermaid\n(.*?)```", ARCHITECTURE.read_text(encoding="utf-8"), re.S)
    assert block is not None, "docs/architecture.md has no mermaid drawing of the graph"
    drawn = deepread.build_graph().get_graph().draw_mermaid()

    assert block.group(1).strip() == drawn.strip(), (
        f"the graph and docs/architecture.md's drawing differ: redraw it with {REDRAW}"
    )
