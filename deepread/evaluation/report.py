"""``summary.json`` and ``summary.md``: the paper's tables for the modes of a run.

Every trajectory file in the output folder is summarised (restricted to the dataset's
ids), so running ``deepread eval`` once plainly and once with ``--expand`` into the same
``--out`` gives one table with both, as the paper's Tables 1–2 do. Tables: accuracy and
evidence (located, read) per mode × question type (Table 1's shape), and behaviour per
mode — S(s→r), C_s/C_r, first action, tool calls, rounds, tokens (Table 2, Fig. 3).
The agent modes are also compared with the best budget-matched flat baseline. On a
benchmark (FinanceBench, SyllabusQA) each agent variant's paired flat PDF-window
baseline is a variant of its own (``flat-pdf200w@<variant>``), and a first table puts
the benchmark's measures side by side: evidence read, gold pages shown, spend and
abstention (:mod:`deepread.evaluation.benchmark` defines them).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deepread.evaluation.config import EvalConfig
from deepread.evaluation.dataset import Dataset, Question
from deepread.evaluation.metrics import json_safe, summarize_by_type
from deepread.evaluation.modes import AGENT_TOOLS, DEFAULT_MODES
from deepread.evaluation.records import read_records

#: Prefix of the paired flat PDF-window baselines (benchmark formats).
FLAT_PREFIX = "flat-pdf200w@"


def _order(variant: str) -> tuple[int, str]:
    base = variant.removesuffix("+expand")
    rank = DEFAULT_MODES.index(base) if base in DEFAULT_MODES else len(DEFAULT_MODES)
    return (rank, variant)


def paired_flat(variant: str) -> str:
    """The name of an agent variant's budget-matched flat PDF-window baseline."""
    return f"{FLAT_PREFIX}{variant}"


def _flat_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paired flat baselines that agent records carry, as records of their own."""
    return [
        {
            "id": r["id"],
            "type": r.get("type"),
            "stop_reason": "answered",
            "metrics": r["flat"]["metrics"],
        }
        for r in rows
        if r.get("flat")
    ]


def collect(out: Path, questions: list[Question]) -> dict[str, list[dict[str, Any]]]:
    """Records per variant found in ``out/trajectories``, dataset order, dataset ids only;
    an agent variant's paired flat baseline follows it as ``flat-pdf200w@<variant>``."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((out / "trajectories").glob("*.jsonl")):
        records = read_records(path)
        rows = [records[q.id] for q in questions if q.id in records]
        if rows:
            found[path.stem] = rows
    ordered: dict[str, list[dict[str, Any]]] = {}
    for variant, rows in sorted(found.items(), key=lambda kv: _order(kv[0])):
        ordered[variant] = rows
        if flats := _flat_rows(rows):
            ordered[paired_flat(variant)] = flats
    return ordered


def benchmark(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent variant against its paired flat baseline, on the benchmark's measures."""
    out = []
    for variant, s in variants.items():
        flat = variants.get(paired_flat(variant))
        if flat is None:
            continue
        mine, theirs = s["overall"], flat["overall"]
        out.append(
            {
                "variant": variant,
                "flat": paired_flat(variant),
                "n": mine["n"],
                "evidence_read": mine["evidence_read"],
                "flat_evidence_read": theirs["evidence_read"],
                "ratio": _ratio(mine["evidence_read"], theirs["evidence_read"]),
                "gold_page_shown": mine["gold_page_shown"],
                "flat_gold_page_shown": theirs["gold_page_shown"],
                "spend": mine["spend"],
                "flat_spend": theirs["spend"],
                "spend_ratio": _ratio(theirs["spend"], mine["spend"]),
                "abstain_unanswerable": mine["abstain_unanswerable"],
                "abstain_answerable": mine["abstain_answerable"],
            }
        )
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return a / b if b else math.inf


def comparisons(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent variant's evidence read against the best budgeted flat baseline."""
    flats = {
        v: s["overall"]
        for v, s in variants.items()
        if v.startswith("flat-") and not v.startswith(FLAT_PREFIX)
    }
    if not flats:
        return []
    best = max(flats, key=lambda v: flats[v]["evidence_read"] or 0.0)
    out = []
    for variant, s in variants.items():
        if variant.removesuffix("+expand") not in AGENT_TOOLS:
            continue
        mine, theirs = s["overall"]["evidence_read"], flats[best]["evidence_read"]
        out.append(
            {
                "variant": variant,
                "evidence_read": mine,
                "observation_tokens": s["overall"]["observation_tokens"],
                "best_flat": best,
                "flat_evidence_read": theirs,
                "flat_observation_tokens": flats[best]["observation_tokens"],
                "ratio": (mine / theirs if theirs else math.inf)
                if mine is not None and theirs is not None
                else None,
            }
        )
    return out


def build_summary(
    out: Path, dataset: Dataset, config: EvalConfig, model: str, judge: str
) -> dict[str, Any]:
    questions = dataset.questions
    records = collect(out, questions)
    variants = {}
    for variant, rows in records.items():
        variants[variant] = {
            "mode": rows[0].get("mode"),
            "settings": rows[-1].get("settings"),
            **summarize_by_type(rows),
        }
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "dataset": str(config.dataset),
        "format": dataset.format,
        "questions": len(questions),
        "subset": _subset(config),
        "store": config.store,
        "collection": config.collection,
        "model": model,
        "judge_model": judge or None,
        "variants": variants,
        "comparisons": comparisons(variants),
        "benchmark": benchmark(variants),
    }


def _subset(config: EvalConfig) -> str | None:
    """How the questions were cut down, or None for all of them."""
    parts = []
    if config.sample is not None:
        parts.append(f"a random sample of {config.sample} (seed {config.seed})")
    if config.limit is not None:
        parts.append(f"the first {config.limit}")
    return ", then ".join(parts) or None


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
    return [
        f"| {' | '.join(head)} |",
        f"| {' | '.join(align)} |",
        *(f"| {' | '.join(r)} |" for r in rows),
        "",
    ]


def _by_type(summary: dict[str, Any], key: str, fmt=_pct) -> list[str]:
    variants = summary["variants"]
    types = sorted({t for s in variants.values() for t in s["by_type"]})
    rows = [
        [v, *(fmt(s["by_type"].get(t, {}).get(key)) for t in types), fmt(s["overall"].get(key))]
        for v, s in variants.items()
    ]
    return _table(["mode", *types, "overall"], rows)


def render_markdown(summary: dict[str, Any]) -> str:
    """The run's report: what was asked of what, then each table the run has figures for."""
    lines = _heading(summary)
    if not summary["variants"]:
        return "\n".join([*lines, "No trajectories yet.", ""])
    lines += _benchmark_lines(summary)
    lines += _accuracy(summary)
    lines += _evidence(summary)
    lines += _behaviour(summary)
    lines += _comparisons(summary)
    return "\n".join(lines)


def _heading(summary: dict[str, Any]) -> list[str]:
    subset = f" ({summary['subset']})" if summary.get("subset") else ""
    return [
        f"# Evaluation — {Path(summary['dataset']).name}",
        "",
        f"{summary['questions']} questions{subset}, format {summary.get('format')}; "
        f"collection `{summary['collection']}`; "
        f"policy model `{summary['model']}`; judge `{summary['judge_model'] or 'none'}`; "
        f"{summary['created']}.",
        "",
    ]


def _accuracy(summary: dict[str, Any]) -> list[str]:
    if not any(s["overall"]["judged"] for s in summary["variants"].values()):
        return ["## Accuracy", "", "Not judged (no `--judge-model`).", ""]
    return [
        "## Accuracy (%, LLM judge, paper Fig. 6 prompt)",
        "",
        *_by_type(summary, "accuracy"),
    ]


#: What the answer shows (evaluation/answer_evidence.py), each table where a run has it.
_ANSWER_TABLES = (
    (
        "evidence_in_answer",
        "## Evidence in the answer (% of the same test on the answer's text, beside read)",
    ),
    (
        "first_quote_gold",
        "## First quote holds gold evidence (% of answers whose first citation does)",
    ),
    (
        "first_line_gold",
        "## First line holds gold evidence (% of answers whose first line does, or cites a"
        " gold page)",
    ),
    (
        "answer_cites_gold_page",
        "## The answer cites a paragraph on a gold page (%, beside a gold page shown)",
    ),
)


def _evidence(summary: dict[str, Any]) -> list[str]:
    scoped = summary.get("format") not in (None, "deepread")
    what = (
        "gold evidence items read: ≥ half their 24-character shingles shown"
        if scoped
        else "gold quotes shown to the model"
    )
    lines = [
        f"## Evidence read (% of {what})",
        "",
        *_by_type(summary, "evidence_read"),
        "## Evidence located (% of gold quotes in retrieve results)",
        "",
        *_by_type(summary, "evidence_located"),
    ]
    for key, title in _ANSWER_TABLES:
        if any(s["overall"].get(key) is not None for s in summary["variants"].values()):
            lines += [title, "", *_by_type(summary, key)]
    return lines


def _behaviour(summary: dict[str, Any]) -> list[str]:
    """Paper Table 2 and Fig. 3: how each mode went about it, per question."""
    variants = summary["variants"]
    rows = []
    for v, s in variants.items():
        o = s["overall"]
        rows.append(
            [
                v,
                _pct(o["s_to_r"]),
                _num(o["cs_cr"], 2),
                _pct(o["first_action_retrieve"]),
                _num(o["tool_calls"]),
                _num(o["rounds"]),
                _num(o["observation_tokens"], 0),
                _num(o["input_tokens"], 0),
                _num(o["output_tokens"], 0),
                ", ".join(f"{k} {n}" for k, n in sorted(o["stop_reasons"].items())),
            ]
        )
    lines = [
        "## Behaviour per question (paper Table 2, Fig. 3)",
        "",
        *_table(
            [
                "mode",
                "S(s→r) %",
                "C_s/C_r",
                "first action retrieve %",
                "tool calls",
                "rounds",
                "observation tokens",
                "input tokens",
                "output tokens",
                "stop reasons",
            ],
            rows,
        ),
    ]
    if any(s["overall"]["tokens_estimated"] for s in variants.values()):
        lines += [
            "Input/output tokens are tiktoken estimates of the prompts and replies "
            "where the model reported no usage (the extractive policy).",
            "",
        ]
    return lines


def _comparisons(summary: dict[str, Any]) -> list[str]:
    comps = summary.get("comparisons") or []
    if not comps:
        return []
    return [
        "## Against the best budget-matched flat baseline",
        "",
        *_table(
            [
                "mode",
                "evidence read %",
                "observation tokens",
                "best flat",
                "its evidence read %",
                "its tokens",
                "ratio",
            ],
            [
                [
                    c["variant"],
                    _pct(c["evidence_read"]),
                    _num(c["observation_tokens"], 0),
                    c["best_flat"],
                    _pct(c["flat_evidence_read"]),
                    _num(c["flat_observation_tokens"], 0),
                    _num(c["ratio"], 2),
                ]
                for c in comps
            ],
        ),
    ]


BENCHMARK_NOTE = (
    "*Shown*: the paragraphs in the run's read-region memory. *Read*: at least half of "
    "an evidence text's (answer span's) whitespace-free, lower-cased 24-character "
    "shingles, every 8 characters, occur in the shown text (markup removed). *Gold page "
    "shown*: a shown paragraph of the document on the evidence's page. *Spend*: "
    "characters of the tool results shown ÷ 4 (the flat baseline: of its windows). "
    "*Flat*: the PDF's PDFium text layer in 200-word windows every 100 words, ranked by "
    "the same retriever in the document, taken in rank order up to the agent's spend on "
    "the question (at least 1,500). *Abstained*: stop_reason `no_evidence`."
)


def _benchmark_lines(summary: dict[str, Any]) -> list[str]:
    rows = summary.get("benchmark") or []
    if not rows:
        return []
    pages = any(r["gold_page_shown"] is not None for r in rows)
    unanswerable = any(r["abstain_unanswerable"] is not None for r in rows)
    head = ["mode", "questions", "evidence read %", "flat %", "ratio"]
    if pages:
        head += ["gold page shown %", "flat %"]
    head += ["spend", "flat spend", "flat / agent spend"]
    if unanswerable:
        head += ["abstains, unanswerable %"]
    head += ["abstains, answerable %"]
    table = []
    for r in rows:
        row = [
            r["variant"],
            str(r["n"]),
            _pct(r["evidence_read"]),
            _pct(r["flat_evidence_read"]),
            _num(r["ratio"], 2),
        ]
        if pages:
            row += [_pct(r["gold_page_shown"]), _pct(r["flat_gold_page_shown"])]
        row += [_num(r["spend"], 0), _num(r["flat_spend"], 0), _num(r["spend_ratio"], 2)]
        if unanswerable:
            row.append(_pct(r["abstain_unanswerable"]))
        row.append(_pct(r["abstain_answerable"]))
        table.append(row)
    out = [
        "## Benchmark measures (agent vs flat PDF windows at its spend)",
        "",
        *_table(head, table),
        BENCHMARK_NOTE,
        "",
    ]
    if pages:
        out += [
            "## Gold page shown (%) by question type",
            "",
            *_by_type(summary, "gold_page_shown"),
        ]
    return out


def write_reports(
    out: Path, dataset: Dataset, config: EvalConfig, model: str, judge: str
) -> dict[str, Any]:
    """Write ``summary.json``, ``summary.md`` and the plots into ``out``; the summary."""
    from deepread.evaluation.plots import write_plots

    out.mkdir(parents=True, exist_ok=True)
    summary = build_summary(out, dataset, config, model, judge)
    (out / "summary.json").write_text(
        json.dumps(json_safe(summary), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (out / "summary.md").write_text(render_markdown(summary), encoding="utf-8")
    if config.plots:
        summary["plots"] = [str(p) for p in write_plots(out, collect(out, dataset.questions))]
    return summary
