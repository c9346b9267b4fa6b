"""``summary.json`` and ``summary.md``: the paper's tables for the modes of a run.

Every trajectory file in the output folder is summarised (restricted to the dataset's
ids), so running ``deepread eval`` once plainly and once with ``--expand`` into the same
``--out`` gives one table with both, as the paper's Tables 1–2 do. Tables: accuracy and
evidence (located, read) per mode × question type (Table 1's shape), and behaviour per
mode — S(s→r), C_s/C_r, first action, tool calls, rounds, tokens (Table 2, Fig. 3).
The agent modes are also compared with the best budget-matched flat baseline.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepread.evaluation.dataset import Question
from deepread.evaluation.metrics import json_safe, summarize_by_type
from deepread.evaluation.modes import AGENT_TOOLS, DEFAULT_MODES
from deepread.evaluation.records import read_records

if TYPE_CHECKING:
    from deepread.evaluation.runner import EvalConfig


def _order(variant: str) -> tuple[int, str]:
    base = variant.removesuffix("+expand")
    rank = DEFAULT_MODES.index(base) if base in DEFAULT_MODES else len(DEFAULT_MODES)
    return (rank, variant)


def collect(out: Path, questions: list[Question]) -> dict[str, list[dict[str, Any]]]:
    """Records per variant found in ``out/trajectories``, dataset order, dataset ids only."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((out / "trajectories").glob("*.jsonl")):
        records = read_records(path)
        rows = [records[q.id] for q in questions if q.id in records]
        if rows:
            found[path.stem] = rows
    return dict(sorted(found.items(), key=lambda kv: _order(kv[0])))


def comparisons(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent variant's evidence read against the best budgeted flat baseline."""
    flats = {v: s["overall"] for v, s in variants.items() if v.startswith("flat-")}
    if not flats:
        return []
    best = max(flats, key=lambda v: flats[v]["evidence_read"] or 0.0)
    out = []
    for variant, s in variants.items():
        if variant.removesuffix("+expand") not in AGENT_TOOLS:
            continue
        mine, theirs = s["overall"]["evidence_read"], flats[best]["evidence_read"]
        out.append({"variant": variant, "evidence_read": mine,
                    "observation_tokens": s["overall"]["observation_tokens"],
                    "best_flat": best, "flat_evidence_read": theirs,
                    "flat_observation_tokens": flats[best]["observation_tokens"],
                    "ratio": (mine / theirs if theirs else math.inf)
                    if mine is not None and theirs is not None else None})
    return out


def build_summary(out: Path, questions: list[Question], config: EvalConfig,
                  model: str, judge: str) -> dict[str, Any]:
    records = collect(out, questions)
    variants = {}
    for variant, rows in records.items():
        variants[variant] = {"mode": rows[0].get("mode"), "settings": rows[-1].get("settings"),
                             **summarize_by_type(rows)}
    return {"created": datetime.now(UTC).isoformat(timespec="seconds"),
            "dataset": str(config.dataset), "questions": len(questions),
            "store": config.store, "collection": config.collection, "model": model,
            "judge_model": judge or None, "variants": variants,
            "comparisons": comparisons(variants)}


# -- Markdown ---------------------------------------------------------------------------

def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _num(v: float | None, digits: int = 1) -> str:
    if v is None:
        return "–"
    if math.isinf(v):
        return "∞"
    return f"{v:,.{digits}f}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(head) - 1)
    return [f"| {' | '.join(head)} |", f"| {' | '.join(align)} |",
            *(f"| {' | '.join(r)} |" for r in rows), ""]


def _by_type(summary: dict[str, Any], key: str, fmt=_pct) -> list[str]:
    variants = summary["variants"]
    types = sorted({t for s in variants.values() for t in s["by_type"]})
    rows = [[v, *(fmt(s["by_type"].get(t, {}).get(key)) for t in types),
             fmt(s["overall"].get(key))] for v, s in variants.items()]
    return _table(["mode", *types, "overall"], rows)


def render_markdown(summary: dict[str, Any]) -> str:
    variants = summary["variants"]
    lines = [f"# Evaluation — {Path(summary['dataset']).name}", "",
             f"{summary['questions']} questions; collection `{summary['collection']}`; "
             f"policy model `{summary['model']}`; judge `{summary['judge_model'] or 'none'}`; "
             f"{summary['created']}.", ""]
    if not variants:
        return "\n".join([*lines, "No trajectories yet.", ""])
    if any(s["overall"]["judged"] for s in variants.values()):
        lines += ["## Accuracy (%, LLM judge, paper Fig. 6 prompt)", "",
                  *_by_type(summary, "accuracy")]
    else:
        lines += ["## Accuracy", "", "Not judged (no `--judge-model`).", ""]
    lines += ["## Evidence read (% of gold quotes shown to the model)", "",
              *_by_type(summary, "evidence_read"),
              "## Evidence located (% of gold quotes in retrieve results)", "",
              *_by_type(summary, "evidence_located")]
    estimated = any(s["overall"]["tokens_estimated"] for s in variants.values())
    rows = []
    for v, s in variants.items():
        o = s["overall"]
        rows.append([v, _pct(o["s_to_r"]), _num(o["cs_cr"], 2), _pct(o["first_action_retrieve"]),
                     _num(o["tool_calls"]), _num(o["rounds"]), _num(o["observation_tokens"], 0),
                     _num(o["input_tokens"], 0), _num(o["output_tokens"], 0),
                     ", ".join(f"{k} {n}" for k, n in sorted(o["stop_reasons"].items()))])
    lines += ["## Behaviour per question (paper Table 2, Fig. 3)", "",
              *_table(["mode", "S(s→r) %", "C_s/C_r", "first action retrieve %", "tool calls",
                       "rounds", "observation tokens", "input tokens", "output tokens",
                       "stop reasons"], rows)]
    if estimated:
        lines += ["Input/output tokens are tiktoken estimates of the prompts and replies "
                  "where the model reported no usage (the extractive policy).", ""]
    comps = summary.get("comparisons") or []
    if comps:
        lines += ["## Against the best budget-matched flat baseline", "",
                  *_table(["mode", "evidence read %", "observation tokens", "best flat",
                           "its evidence read %", "its tokens", "ratio"],
                          [[c["variant"], _pct(c["evidence_read"]),
                            _num(c["observation_tokens"], 0), c["best_flat"],
                            _pct(c["flat_evidence_read"]), _num(c["flat_observation_tokens"], 0),
                            _num(c["ratio"], 2)] for c in comps])]
    return "\n".join(lines)


def write_reports(out: Path, questions: list[Question], config: EvalConfig, model: str,
                  judge: str) -> dict[str, Any]:
    """Write ``summary.json``, ``summary.md`` and the plots into ``out``; the summary."""
    from deepread.evaluation.plots import write_plots

    out.mkdir(parents=True, exist_ok=True)
    summary = build_summary(out, questions, config, model, judge)
    (out / "summary.json").write_text(
        json.dumps(json_safe(summary), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(render_markdown(summary), encoding="utf-8")
    if config.plots:
        summary["plots"] = [str(p) for p in write_plots(out, collect(out, questions))]
    return summary
