"""Graph overhead per round of the DeepRead agent, excluding model and tool time.

A scripted chat model (instant, real tool calls) makes the agent call ``read_section``
on a small section for ``--rounds`` rounds, then answer. Each round is the interval
between the starts of two consecutive model calls; from it we subtract the time spent
inside the model call and inside the tool's store work (``Index.read``). What remains
is LangGraph's and deepread's own cost per round: routing, state reducers, observation
formatting, read-region memory, checkpointing. Reported with no checkpointer and with
``InMemorySaver``. Target: p50 <= 5 ms.

Wall time is what a user waits for, but on a shared, loaded machine it mostly measures
the other processes; the same intervals are also measured in process CPU time
(``time.process_time``), which the load does not inflate, so two versions can be
compared side by side (``--label`` names a run in the JSON).

Run:  python bench/graph_overhead.py [--rounds 20] [--runs 10]
Prints a markdown table and writes bench/out/graph_overhead.json.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, machine_line, summary_ms, table, write_json
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

import deepread

DOC = (
    "# Bench\n\n"
    + "\n\n".join(f"Paragraph number {i} of the bench section." for i in range(8))
    + "\n"
)


class LoopingModel(BaseChatModel):
    """Calls read_section ``rounds`` times, then answers; logs its own call times."""

    rounds: int = 20
    log: list[tuple[float, float]] = Field(default_factory=list)
    cpu: list[tuple[float, float]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "bench-looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopingModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        start, cpu_start = time.perf_counter(), time.process_time()
        done = sum(1 for m in messages if getattr(m, "tool_call_id", None))
        if done < self.rounds:
            msg = AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "read_section",
                        "args": {"doc_id": 1, "sec_id": 1, "start": done % 8, "end": done % 8},
                        "id": f"c{done}",
                        "type": "tool_call",
                    }
                ],
            )
        else:
            msg = AIMessage(content="Done [1:1:0].")
        self.log.append((start, time.perf_counter()))
        self.cpu.append((cpu_start, time.process_time()))
        return ChatResult(generations=[ChatGeneration(message=msg)])


def _overhead(
    model_log: list[tuple[float, float]], tool_log: list[tuple[float, float]]
) -> list[float]:
    """Per round: the interval between two model-call starts, less the time inside the
    model call and inside the tool's store work."""
    out = []
    for (s0, e0), (s1, _) in itertools.pairwise(model_log):
        inside_tools = sum(b - a for a, b in tool_log if s0 <= a and b <= s1)
        out.append((s1 - s0) - (e0 - s0) - inside_tools)
    return out


def measure(
    index: deepread.Index, rounds: int, checkpointer: Any
) -> tuple[list[float], list[float]]:
    """Overhead per round of one run: wall seconds and process CPU seconds."""
    tool_time: list[tuple[float, float]] = []
    tool_cpu: list[tuple[float, float]] = []
    real_read = index.read

    def timed_read(*args: Any, **kwargs: Any) -> Any:
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            return real_read(*args, **kwargs)
        finally:
            tool_time.append((start, time.perf_counter()))
            tool_cpu.append((cpu_start, time.process_time()))

    index.read = timed_read  # type: ignore[method-assign]
    model = LoopingModel(rounds=rounds, log=[], cpu=[])
    graph = deepread.build_graph(index=index, model=model, checkpointer=checkpointer)
    config = {"configurable": {"thread_id": f"t{time.perf_counter_ns()}"}}
    graph.invoke({"question": "bench"}, config, context=deepread.Context(max_rounds=rounds + 5))
    index.read = real_read  # type: ignore[method-assign]
    return _overhead(model.log, tool_time), _overhead(model.cpu, tool_cpu)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--label", default="", help="a name for this run in the JSON")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-graph-"))
    (tmp / "bench.md").write_text(DOC, encoding="utf-8")
    index = deepread.Index.open(store=tmp / "store", collection="bench")
    index.ingest([tmp / "bench.md"])
    measure(index, 3, None)  # warm-up: imports, first compile
    results: dict[str, Any] = {
        "machine": machine(),
        "rounds": args.rounds,
        "runs": args.runs,
        "label": args.label,
    }
    rows = []
    for label, saver in (("no checkpointer", lambda: None), ("InMemorySaver", InMemorySaver)):
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(args.runs):
            wall, cpu = measure(index, args.rounds, saver())
            walls += wall
            cpus += cpu
        stats, cpu_stats = summary_ms(walls), summary_ms(cpus)
        results[label] = stats
        results[f"{label} (CPU)"] = cpu_stats
        verdict = "PASS" if stats["p50_ms"] <= 5 else "FAIL"
        rows.append(
            [
                label,
                stats["n"],
                f"{stats['p50_ms']:.2f}",
                f"{stats['p95_ms']:.2f}",
                f"{stats['mean_ms']:.2f}",
                f"{cpu_stats['p50_ms']:.2f}",
                f"{cpu_stats['mean_ms']:.2f}",
                f"<= 5 ms: {verdict}",
            ]
        )
    index.close()
    print(machine_line(results["machine"]))
    print(
        table(
            [
                "graph",
                "rounds",
                "p50 ms",
                "p95 ms",
                "mean ms",
                "CPU p50 ms",
                "CPU mean ms",
                "target (wall p50)",
            ],
            rows,
        )
    )
    print(f"JSON: {write_json('graph_overhead', results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
