"""What the agent writes to its SQLite checkpointer: bytes per run, and a thread's size.

A scripted model (instant, real tool calls) reads the shipped sample pages
(``tests/data/docs``) with ``read_section`` — the next two paragraphs of the next
section, round after round — for ``R`` rounds per run, then answers citing what it read;
``T`` runs (turns) follow each other on one thread of a real ``SqliteSaver`` on disk.
After turns 1, 5 and 20 the script reports the bytes that turn's run wrote (checkpoint
and pending-write blobs, as stored) and the thread's size (every row of the thread),
for R = 2, 10, 50 rounds per run.

LangGraph saves a checkpoint after every step (``durability="async"``, the default), and
``SqliteSaver`` stores each checkpoint whole — every channel, the message list included
— so a run's bytes grow with (steps × history size): with the square of its rounds and,
along a thread, with the turns before it. ``--durability exit`` saves once per run
instead (a run that crashes then keeps nothing of itself), for comparison.

Run:  python bench/checkpoints.py [--rounds 2 10 50] [--turns 1 5 20] [--durability async]
Prints a markdown table and writes bench/out/checkpoints.json.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, machine_line, table, write_json
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import Field

import deepread

DOCS = Path(__file__).resolve().parents[1] / "tests" / "data" / "docs"
PAGES = ("library-json.html", "tutorial-classes.html", "library-collections.html")
PARAGRAPHS_PER_READ = 2


class ReadingModel(BaseChatModel):
    """Reads ``windows`` in turn, ``rounds`` reads per question, then answers."""

    rounds: int = 2
    windows: list[tuple[int, int, int, int]] = Field(default_factory=list)
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-reading"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ReadingModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        results = [m for m in messages[asked:] if isinstance(m, ToolMessage)]
        if len(results) < self.rounds:
            d, s, start, end = self.windows[self.position % len(self.windows)]
            self.position += 1
            reply = AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "read_section",
                        "type": "tool_call",
                        "id": f"c{self.position}",
                        "args": {"doc_id": d, "sec_id": s, "start": start, "end": end},
                    }
                ],
            )
        else:
            d, s, start, _ = self.windows[(self.position - 1) % len(self.windows)]
            reply = AIMessage(content=f"As read: [{d}:{s}:{start}].")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def windows(index: deepread.Index) -> list[tuple[int, int, int, int]]:
    """Every section's paragraphs, PARAGRAPHS_PER_READ at a time, in document order."""
    out = []
    for doc in index.documents():
        for sec in doc.sections:
            for start in range(0, sec.n_para, PARAGRAPHS_PER_READ):
                out.append(
                    (
                        doc.doc_id,
                        sec.sec_id,
                        start,
                        min(sec.n_para, start + PARAGRAPHS_PER_READ) - 1,
                    )
                )
    return out


def thread_bytes(db: Path, thread: str) -> tuple[int, int]:
    """Bytes stored for ``thread`` (checkpoint, metadata and write blobs), checkpoints."""
    with sqlite3.connect(db) as conn:
        stored, count = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0), COUNT(*) "
            "FROM checkpoints WHERE thread_id = ?",
            (thread,),
        ).fetchone()
        writes = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes WHERE thread_id = ?", (thread,)
        ).fetchone()[0]
    return int(stored) + int(writes), int(count)


def run_thread(
    index: deepread.Index,
    tmp: Path,
    rounds: int,
    turns: list[int],
    durability: str,
    reads: list[tuple[int, int, int, int]],
) -> list[dict[str, Any]]:
    db = tmp / f"checkpoints-{rounds}-{durability}.sqlite"
    model = ReadingModel(rounds=rounds, windows=reads)
    rows = []
    with SqliteSaver.from_conn_string(str(db)) as saver:
        saver.setup()
        graph = deepread.build_graph(index=index, model=model, checkpointer=saver)
        config = {"configurable": {"thread_id": "bench"}}
        context = deepread.Context(max_rounds=rounds + 5)
        for turn in range(1, max(turns) + 1):
            before, _ = thread_bytes(db, "bench")
            started = time.perf_counter()
            out = graph.invoke(
                {"question": f"Question {turn}: what do the pages say?"},
                config,
                context=context,
                durability=durability,
            )
            seconds = time.perf_counter() - started
            assert out["stop_reason"] == "answered", out.get("error")
            if turn in turns:
                size, checkpoints = thread_bytes(db, "bench")
                messages = len(graph.get_state(config).values["messages"])
                rows.append(
                    {
                        "rounds": rounds,
                        "turn": turn,
                        "run_bytes": size - before,
                        "thread_bytes": size,
                        "checkpoints": checkpoints,
                        "messages": messages,
                        "run_s": round(seconds, 2),
                        "file_bytes": db.stat().st_size,
                    }
                )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, nargs="+", default=[2, 10, 50])
    ap.add_argument("--turns", type=int, nargs="+", default=[1, 5, 20])
    ap.add_argument("--durability", choices=("async", "sync", "exit"), default="async")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-checkpoints-"))
    index = deepread.Index.open(store=tmp / "store", collection="bench")
    index.ingest([DOCS / page for page in PAGES])
    reads = windows(index)
    results: dict[str, Any] = {
        "machine": machine(),
        "durability": args.durability,
        "pages": list(PAGES),
        "rows": [],
    }
    for rounds in args.rounds:
        results["rows"] += run_thread(index, tmp, rounds, args.turns, args.durability, reads)
    index.close()
    print(machine_line(results["machine"]))
    print(
        f"durability={args.durability}; {len(reads)} read windows of "
        f"{PARAGRAPHS_PER_READ} paragraphs over {', '.join(PAGES)}"
    )
    print(
        table(
            [
                "rounds/run",
                "after turn",
                "this run wrote",
                "thread size",
                "checkpoints",
                "messages",
                "run s",
            ],
            [
                [
                    r["rounds"],
                    r["turn"],
                    f"{r['run_bytes'] / 1e6:.2f} MB",
                    f"{r['thread_bytes'] / 1e6:.2f} MB",
                    r["checkpoints"],
                    r["messages"],
                    f"{r['run_s']:.1f}",
                ]
                for r in results["rows"]
            ],
        )
    )
    print(f"JSON: {write_json(f'checkpoints-{args.durability}', results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
