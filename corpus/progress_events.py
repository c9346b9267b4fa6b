"""The names of an ingest's progress events that price the rest of the run rather than
tell of one file (what each carries: :data:`deepread.corpus.pipeline.Progress`).

A module of its own, and light, so that the served ingest node can leave them out of
what it streams, and :mod:`deepread.corpus.ingest_pace` can count them, without
importing the pipeline (numpy, the embeddings, the store).
"""

from __future__ import annotations

#: The events that price the rest of the run.
COST_EVENTS = ("plan", "parse_cost", "model_cost", "group_cost", "built")
