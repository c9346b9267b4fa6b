"""Graph overhead per round of the DeepRead agent, excluding model and tool time.

A scripted chat model (instant, real tool calls) makes the agent call ``read_section``
on a small section for ``--rounds`` rounds, then answer. Each round is the interval
between the starts of two consecutive model calls; from it we subtract the time spent
inside the model call and inside the tool's store work (``Index.read``). What remains
is LangGraph's and deepread's own cost per round: routing, state reducers, observation
formatting, read-region memory, checkpointing. Reported with no checkpointer and with
``InMemorySaver``. Target: p50 <= 5 ms.

Run:  python bench/graph_overhead.py [--rounds 20] [--runs 10]
Prints a markdown table and writes bench/out/graph_overhead.json.
"""

from __future__ import annotations

import argparse
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

DOC = "# Bench\n\n" + "\n\n".join(f"Paragraph number {i} of the bench section."
                                  for i in range(8)) + "\n"


class LoopingModel(BaseChatModel):
    """Calls read_section ``rounds`` times, then answers; logs its own call times."""

    rounds: int = 20
    log: list[tuple[float, float]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "bench-looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopingModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        start = time.perf_counter()
        done = sum(1 for m in messages if getattr(m, "tool_call_id", None))
        if done < self.rounds:
            msg = AIMessage(content="", tool_calls=[{
                "name": "read_section", "args": {"doc_id": 1, "sec_id": 1, "start": done % 8,
                                                 "end": done % 8},
                "id": f"c{done}", "type": "tool_call"}])
        else:
            msg = AIMessage(content="Done [1:1:0].")
        self.log.append((start, time.perf_counter()))
        return ChatResult(generations=[ChatGeneration(message=msg)])


def measure(index: deepread.Index, rounds: int, checkpointer: Any) -> list[float]:
    tool_time: list[tuple[float, float]] = []
    real_read = index.read

    def timed_read(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return real_read(*args, **kwargs)
        finally:
            tool_time.append((start, time.perf_counter()))

    index.read = timed_read  # type: ignore[method-assign]
    model = LoopingModel(rounds=rounds, log=[])
    graph = deepread.build_graph(index=index, model=model, checkpointer=checkpointer)
    config = {"configurable": {"thread_id": f"t{time.perf_counter_ns()}"}}
    graph.invoke({"question": "bench"}, config, context=deepread.Context(max_rounds=rounds + 5))
    index.read = real_read  # type: ignore[method-assign]
    out = []
    for (s0, e0), (s1, _) in zip(model.log, model.log[1:], strict=False):
        inside_tools = sum(b - a for a, b in tool_time if s0 <= a and b <= s1)
        out.append((s1 - s0) - (e0 - s0) - inside_tools)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-graph-"))
    (tmp / "bench.md").write_text(DOC, encoding="utf-8")
    index = deepread.Index.open(store=tmp / "store", collection="bench")
    index.ingest([tmp / "bench.md"])
    measure(index, 3, None)  # warm-up: imports, first compile
    results: dict[str, Any] = {"machine": machine(), "rounds": args.rounds, "runs": args.runs}
    rows = []
    for label, saver in (("no checkpointer", lambda: None),
                         ("InMemorySaver", InMemorySaver)):
        per_round = [x for _ in range(args.runs) for x in measure(index, args.rounds, saver())]
        stats = summary_ms(per_round)
        results[label] = stats
        verdict = "PASS" if stats["p50_ms"] <= 5 else "FAIL"
        rows.append([label, stats["n"], f"{stats['p50_ms']:.2f}", f"{stats['p95_ms']:.2f}",
                     f"{stats['mean_ms']:.2f}", f"<= 5 ms: {verdict}"])
    index.close()
    print(machine_line(results["machine"]))
    print(table(["graph", "rounds", "p50 ms", "p95 ms", "mean ms", "target (p50)"], rows))
    print(f"JSON: {write_json('graph_overhead', results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
