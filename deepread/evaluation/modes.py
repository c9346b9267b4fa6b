"""The modes an evaluation compares (paper §4.2) and how they are named.

Agent modes run the DeepRead graph with a subset of its tools: ``deepread`` (both),
``search-o1`` (``retrieve`` only; the TOC is still injected, as the paper does for
fairness) and ``read-only`` (``read_section`` only). Flat modes answer in one pass from
chunks of the documents' text ranked by the same retriever: ``dense-rag`` is the
paper's single-pass baseline (800-token chunks, 400 overlap, top 10), and
``flat-<size>@<budget>`` takes ``size``-token chunks (overlap ``size/2``) in rank order
until ``budget`` observation tokens — the budget-matched baseline of
``shared/tools/evidence_probe.py`` (e.g. ``flat-800@1500``, ``flat-270@1500``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepread.records.errors import UsageError

AGENT_TOOLS: dict[str, tuple[str, ...]] = {
    "deepread": ("retrieve", "read_section"),
    "search-o1": ("retrieve",),
    "read-only": ("read_section",),
}
DEFAULT_MODES = ("deepread", "search-o1", "read-only", "dense-rag")
EXPAND_WINDOW = (1, 1)  # paper §4.2: "the expansion window is configured as (1, 1)"
_FLAT = re.compile(r"flat-(\d+)@(\d+)")  # fullmatch
#: Candidates ranked for a budgeted flat mode (the probe ranks 40, then fills the budget).
FLAT_CANDIDATES = 40


@dataclass(frozen=True, slots=True)
class ModeSpec:
    """One mode: an agent with ``tools``, or a flat pass over chunks."""

    name: str
    tools: tuple[str, ...] = ()
    chunk_size: int = 0
    overlap: int = 0
    top_k: int = 0  # flat: how many chunks are ranked
    budget: int | None = None  # flat: observation tokens to fill; None shows all top_k

    @property
    def is_agent(self) -> bool:
        return bool(self.tools)

    def variant(self, expand: bool) -> str:
        """The label of this mode's results: ``+expand`` marks the window (1, 1).

        Flat modes have no scanning window, so ``--expand`` leaves them unchanged.
        """
        return f"{self.name}+expand" if expand and self.is_agent else self.name


def parse_mode(name: str) -> ModeSpec:
    """The mode called ``name``; ``ValueError`` lists the valid names."""
    if name in AGENT_TOOLS:
        return ModeSpec(name, tools=AGENT_TOOLS[name])
    if name == "dense-rag":
        return ModeSpec(name, chunk_size=800, overlap=400, top_k=10)
    match = _FLAT.fullmatch(name)
    if match and int(match.group(1)) >= 20 and int(match.group(2)) > 0:
        size = int(match.group(1))
        return ModeSpec(
            name,
            chunk_size=size,
            overlap=size // 2,
            top_k=FLAT_CANDIDATES,
            budget=int(match.group(2)),
        )
    raise UsageError(
        f"unknown mode {name!r}; modes: {', '.join(DEFAULT_MODES)}, or "
        "flat-<chunk tokens>@<token budget> (e.g. flat-800@1500)"
    )
