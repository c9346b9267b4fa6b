"""PNG plots of a run, in the style of the paper's Fig. 3: behaviour and cost per mode.

``behaviour.png``: first-action-is-retrieve probability, tool calls, input, output and
observation tokens per question, one box per mode. ``evidence.png``: evidence located
and read per mode. Figures are drawn on matplotlib's Agg canvas directly (no pyplot),
so nothing global changes for a program that imports deepread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def _values(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [float(r["metrics"].get(key) or 0) for r in rows]


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def write_plots(out: Path, records: dict[str, list[dict[str, Any]]]) -> list[Path]:
    """The plots for ``records`` (variant → per-question records) into ``out``."""
    if not records:
        return []
    names = list(records)
    fig = Figure(figsize=(4.2 * 5, 4.5))
    axes = fig.subplots(1, 5)
    first = [
        sum(r["metrics"].get("first_action") == "retrieve" for r in rows) / len(rows)
        for rows in records.values()
    ]
    axes[0].bar(range(len(names)), first, color="tab:blue")
    axes[0].set_ylim(0, 1)
    axes[0].set_title("first action is retrieve (probability)")
    panels = [
        ("tool_calls", "tool calls per question"),
        ("input_tokens", "input tokens per question"),
        ("output_tokens", "output tokens per question"),
        ("observation_tokens", "observation tokens per question"),
    ]
    for ax, (key, title) in zip(axes[1:], panels, strict=True):
        ax.boxplot([_values(rows, key) for rows in records.values()], showmeans=True)
        ax.set_title(title)
    for ax in axes:
        ax.set_xticks(
            range(1 if ax is not axes[0] else 0, len(names) + (1 if ax is not axes[0] else 0))
        )
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    paths = [_save(fig, out / "behaviour.png")]

    fig = Figure(figsize=(max(6.0, 1.2 * len(names) + 2), 4.5))
    ax = fig.subplots()
    width = 0.38
    for shift, key, label in (
        (-width / 2, "evidence_located", "located"),
        (width / 2, "evidence_read", "read"),
    ):
        means = []
        for rows in records.values():
            kept = [r["metrics"][key] for r in rows if r["metrics"].get(key) is not None]
            means.append(sum(kept) / len(kept) if kept else 0.0)
        ax.bar([i + shift for i in range(len(names))], means, width, label=label)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of gold quotes")
    ax.set_title("gold evidence per mode")
    ax.legend()
    paths.append(_save(fig, out / "evidence.png"))
    return paths
