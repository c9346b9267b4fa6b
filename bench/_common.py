"""Shared helpers for the benchmark scripts: machine info, percentiles, tables, JSON out."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"
#: The benchmarks' data folders: beside the checkout (``/work/main`` → ``/work/shared/data``)
#: or beside its worktrees' folder (``/work/wt/NAME``).
SHARED_DATA = next(
    (
        p
        for p in (
            BENCH_DIR.parents[1] / "shared" / "data",
            BENCH_DIR.parents[2] / "shared" / "data",
        )
        if p.is_dir()
    ),
    BENCH_DIR.parents[1] / "shared" / "data",
)
DEVSET = Path(
    os.environ.get("DEEPREAD_DEVSET", BENCH_DIR.parent.parent / "shared" / "data" / "devset")
)


def test_support(name: str) -> ModuleType:
    """A module of the test suite's builders (``tests/support/<name>.py``: synthetic PDFs,
    a ``langgraph dev`` launcher) that a script shares with the tests rather than keep a
    copy: loaded from its file as ``support.<name>``, the tests' own name for it, without
    putting ``tests/`` on ``sys.path`` (nothing else of the test suite can be imported
    by mistake)."""
    qualified = f"support.{name}"
    if qualified not in sys.modules:
        path = BENCH_DIR.parent / "tests" / "support" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(qualified, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"no test support module {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
    return sys.modules[qualified]


def machine() -> dict:
    """nproc, CPU model, RAM, Python and the date: what every result is recorded with."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gb": ram_gb,
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def machine_line(m: dict) -> str:
    return (
        f"machine: {m['nproc']} cores, {m['cpu']}, {m['ram_gb']} GB RAM, "
        f"Python {m['python']}; date: {m['date']}"
    )


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank style percentile (q in 0..100) of a non-empty list."""
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def summary_ms(seconds: list[float]) -> dict:
    ms = [s * 1000.0 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "mean_ms": statistics.fmean(ms),
        "max_ms": max(ms),
    }


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A markdown table; floats are printed with 3 significant decimals."""

    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
        return str(v)

    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_json(name: str, data: dict) -> Path:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


class Timer:
    """``with Timer() as t: ...`` then ``t.s`` is the elapsed wall time in seconds."""

    def __enter__(self) -> Timer:
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self._t0
