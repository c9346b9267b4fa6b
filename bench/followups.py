"""Follow-up questions asked offline (issue 35 §3): is a question that continues the
conversation searched with what the conversation is about?

The set: ``tests/data/followups.jsonl`` — 24 pairs on the nine sample pages, written
before any tuning (a first question, then a follow-up that leans on it: "And how do I
make it raise an error instead?", each with the verbatim sentence that answers the
follow-up). Beside them, *switches*: after the first question of one pair, a question of
``tests/data/questions.jsonl`` about something else — a change of topic must not be read
as a follow-up.

For each pair, one thread of the agent graph (the extractive policy, no LLM, an
in-memory checkpointer) is asked the first question, then the second. Of the second
turn it reports: *evidence found* (≥ half the gold sentence's 24-character shingles in
the paragraphs the turn's tool results showed or pointed back at as shown above) and
*evidence in the answer* (the same test on the answer's text). Run it with two installs
side by side (before/after) on the same data:

    python bench/followups.py --label after
    /path/to/other/.venv/bin/python bench/followups.py --label before

Prints a markdown table and writes bench/out/followups-<label>.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _common import machine, machine_line, table, write_json
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

import deepread
from deepread.evaluation.shingles import is_read, squash
from deepread.nodes.tools.observation import Observation

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def second_turn(graph, thread: str, first: str, second: str) -> tuple[str, str]:
    """(what the second turn's tools showed, its answer)."""
    config = {"configurable": {"thread_id": thread}}
    graph.invoke({"question": first}, config)
    before = len(graph.get_state(config).values["messages"])
    out = graph.invoke({"question": second}, config)
    turn = graph.get_state(config).values["messages"][before:]
    # What the turn's results showed or pointed back at ("(shown above)": found again).
    shown = "\n".join(
        p.text for m in turn if isinstance(m, ToolMessage) for p in Observation.of(m).paragraphs
    )
    answers = [m for m in turn if isinstance(m, AIMessage) and not m.tool_calls]
    return shown, out.get("answer") or (str(answers[-1].content) if answers else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", default="run")
    ap.add_argument("--store", default=None, help="a store to keep (default: a new temporary one)")
    args = ap.parse_args()
    pairs = [json.loads(line) for line in (DATA / "followups.jsonl").open()]
    singles = [json.loads(line) for line in (DATA / "questions.jsonl").open()]
    switches = [
        {
            "id": f"s{i:02d}",
            "first": pairs[i % len(pairs)]["first"],
            "question": q["question"],
            "evidence": q["evidence"],
        }
        for i, q in enumerate(singles)
        # a topic of its own: none of the pair's page
        if q["evidence"][0]["doc"] != pairs[i % len(pairs)]["evidence"][0]["doc"]
    ]
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or tmp
        index = deepread.Index.open(store=store, collection="followups")
        index.ingest([DATA / "docs"])
        graph = deepread.build_graph(index=index, checkpointer=InMemorySaver())
        rows, results = [], {}
        for name, items in (("follow-ups", pairs), ("switches", switches)):
            read = shown_in_answer = 0
            started = time.perf_counter()
            for item in items:
                quote = item["evidence"][0]["quote"]
                shown, answer = second_turn(graph, item["id"], item["first"], item["question"])
                got = {
                    "read": is_read(quote, squash(shown)),
                    "in_answer": is_read(quote, squash(answer)),
                }
                results[item["id"]] = got
                read += got["read"]
                shown_in_answer += got["in_answer"]
            n = len(items)
            rows.append(
                [
                    name,
                    n,
                    f"{read / n:.3f}",
                    f"{shown_in_answer / n:.3f}",
                    f"{(shown_in_answer / read) if read else 0:.2f}",
                    f"{time.perf_counter() - started:.0f}",
                ]
            )
        index.close()
    headers = ["set", "pairs", "evidence found", "evidence in the answer", "ratio", "seconds"]
    report(f"followups-{args.label}", args.label, headers, rows, results)


def report(name: str, label: str, headers: list[str], rows: list[list], items: dict) -> None:
    """Print the machine and the table; write the rows and items to bench/out/NAME.json."""
    m = machine()
    print(machine_line(m))
    print(table(headers, rows))
    path = write_json(name, {"machine": m, "label": label, "rows": rows, "items": items})
    print(f"JSON: {path}")


if __name__ == "__main__":
    main()
