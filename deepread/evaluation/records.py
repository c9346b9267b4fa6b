"""Trajectory files: one JSON line per answered question, appended as answers come in.

A run killed midway leaves complete lines and at most one torn last line; reading drops
the torn line (and rewrites the file without it, so the next append starts on a fresh
line). The last record of an id wins, so a re-run question supersedes its earlier line.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from deepread.evaluation.metrics import from_json, json_safe


def trajectory_path(out: Path, variant: str) -> Path:
    return out / "trajectories" / f"{variant}.jsonl"


def read_records(path: Path, repair: bool = False) -> dict[str, dict[str, Any]]:
    """The last record per id in ``path``; ``repair`` rewrites it without broken lines."""
    if not path.exists():
        return {}
    records: dict[str, dict[str, Any]] = {}
    good: list[str] = []
    broken = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # torn, or nested past the limit
            broken += 1
            continue
        if isinstance(record, dict) and "id" in record:
            records[str(record["id"])] = from_json(record)
            good.append(line)
    if repair and broken:
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(f"{line}\n" for line in good), encoding="utf-8")
        tmp.replace(path)
    return records


class RecordWriter:
    """Appends records to per-variant files; safe to call from worker threads."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._lock = threading.Lock()

    def write(self, variant: str, record: dict[str, Any]) -> None:
        path = trajectory_path(self.out, variant)
        line = json.dumps(json_safe(record), ensure_ascii=False)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()  # a killed run keeps every answer written so far
