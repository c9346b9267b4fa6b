"""The ``ingest`` node: parse and store files into the context's collection.

On a LangGraph server anyone who can start a run names the paths, so when
``DEEPREAD_INGEST_ROOT`` is set every path must resolve (symlinks followed) inside it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypedDict

from langgraph.runtime import Runtime

from deepread.nodes.context import Context
from deepread.nodes.resources import Resources


class IngestInput(TypedDict):
    paths: list[str]


class IngestOutput(TypedDict, total=False):
    documents: list[dict[str, Any]]
    failures: list[dict[str, str]]


def check_root(paths: list[str], root: str | None) -> tuple[list[str], list[dict[str, str]]]:
    """Split ``paths`` into allowed ones and failures outside ``root``."""
    if not root:
        return list(paths), []
    base = Path(root).resolve()
    allowed, refused = [], []
    for raw in paths:
        real = (base / raw).resolve() if not Path(raw).is_absolute() else Path(raw).resolve()
        if real == base or base in real.parents:
            allowed.append(str(real))
        else:
            refused.append({"path": raw, "reason": f"outside the ingest root {base}"})
    return allowed, refused


def make_ingest(resources: Resources):
    def ingest(state: IngestInput, runtime: Runtime[Context]) -> IngestOutput:
        context = runtime.context or Context()
        allowed, refused = check_root(list(state.get("paths") or []),
                                      os.environ.get("DEEPREAD_INGEST_ROOT"))
        index = resources.index(context)
        result = index.ingest_report(allowed) if allowed else None
        documents = [] if result is None else result.documents + result.skipped
        failures = refused + ([] if result is None else
                              [{"path": f.path, "reason": f.reason} for f in result.failures])
        return {
            "documents": [{"doc_id": d.doc_id, "title": d.title, "source": d.source,
                           "sections": len(d.sections), "paragraphs": d.n_para,
                           "tokens": d.n_tok} for d in documents],
            "failures": failures,
        }

    return ingest
