"""The package's folders as pyproject.toml maps them: what tests that scan the source read."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Each top-level source folder of the distribution (``deepread``, ``graphs``, ``nodes`` …).
PACKAGE_DIRS: tuple[str, ...] = tuple(
    dict.fromkeys(
        folder.split("/")[0]
        for folder in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
            "setuptools"
        ]["package-dir"].values()
    )
)
