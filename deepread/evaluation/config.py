"""What ``deepread eval`` was asked to do: the configuration of one evaluation run.

Its own module because the runner (:mod:`deepread.evaluation.runner`) carries it out
and the report (:mod:`deepread.evaluation.report`) records it, and neither is the
other's part.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(slots=True)
class EvalConfig:
    """What ``deepread eval`` was asked to do."""

    dataset: Path
    store: str | None = None
    collection: str = "default"
    modes: tuple[str, ...] = ()  # () — the format's default: see default_modes()
    expand: bool = False
    model: str = ""
    judge_model: str = ""
    workers: int = 4
    out: Path | None = None
    limit: int | None = None
    k: int | None = None  # None: the run context's default (DEEPREAD_K, else 5)
    max_rounds: int | None = None  # None: DEEPREAD_MAX_ROUNDS, else the paper's 50
    embeddings: str | None = None
    plots: bool = True  # PNGs take about a second to draw; tests of many runs skip them
    format: str | None = None  # deepread | financebench | syllabusqa; None: detected
    sample: int | None = None  # a seeded random subset of this many questions
    seed: int = 0
    ingest: bool = True  # benchmark documents missing from the collection: ingest them
    flat: bool = True  # benchmark formats: the flat PDF-window baseline beside each agent
    #: Benchmark formats: ask each question of the whole collection instead of its own
    #: document (no flat baseline then: it has no document to be cut from); the run
    #: measures whether the agent finds the document (``own_document_read``).
    library: bool = False
