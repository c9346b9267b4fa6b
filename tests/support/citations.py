"""An answer's citations as coordinates: what a test of which paragraphs were cited compares
(each citation also carries its place, ``boxes`` / ``span``: nodes/places.py)."""

from __future__ import annotations

from typing import Any

KEYS = ("doc_id", "sec_id", "para_idx")


def coordinates(citations: list[dict[str, Any]]) -> list[dict[str, int]]:
    return [{k: c[k] for k in KEYS} for c in citations]
