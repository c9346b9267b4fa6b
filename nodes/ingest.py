"""The ``ingest`` node: parse and store files into the context's collection.

On a LangGraph server anyone who can start a run names the paths, so when
``DEEPREAD_INGEST_ROOT`` is set every path must resolve (symlinks followed) inside it —
the paths given and every file found by walking a given folder, since a symlink inside
an allowed folder may point anywhere. A bad collection name or an unusable store is
reported in ``error`` (and a failure per path) instead of failing the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from langgraph.runtime import Runtime

from deepread.corpus.files import expand_paths
from deepread.nodes.context import IngestContext
from deepread.nodes.resources import Resources
from deepread.settings import current as current_settings
from deepread.stores.backend import StoreError


class IngestInput(TypedDict):
    paths: list[str]


class IngestOutput(TypedDict, total=False):
    documents: list[dict[str, Any]]
    failures: list[dict[str, str]]
    error: str


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


def files_under_root(paths: list[str], root: str | None) -> tuple[list[str], list[dict[str, str]]]:
    """:func:`check_root`, then the same check on every file a folder walk finds."""
    allowed, refused = check_root(paths, root)
    if not root or not allowed:
        return allowed, refused
    files, missing = expand_paths(allowed)
    inside, outside = check_root([str(f) for f in files], root)
    refused += [{"path": f.path, "reason": f.reason} for f in missing]
    refused += [{"path": r["path"], "reason": f"{r['reason']} (reached through a symlink)"}
                for r in outside]
    return inside, refused


def make_ingest(resources: Resources):
    def ingest(state: IngestInput, runtime: Runtime[IngestContext]) -> IngestOutput:
        context = runtime.context or IngestContext()
        paths = state.get("paths") or []
        paths = [paths] if isinstance(paths, str) else [str(p) for p in paths]
        allowed, refused = files_under_root(paths, current_settings().ingest_root)
        try:
            index = resources.index(context)
        except (ValueError, StoreError) as exc:  # a bad collection name, a store in use
            return {"documents": [], "error": str(exc),
                    "failures": refused + [{"path": p, "reason": str(exc)} for p in allowed]}
        result = index.ingest_report(
            allowed, ocr_model=context.ocr_model or None,
            vision_model=context.vision_model or None,
            describe_model=context.describe_model or None) if allowed else None
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
