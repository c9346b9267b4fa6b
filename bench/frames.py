"""Where a run's observation tokens go: document text versus the frame around it.

Replays each question's tool calls of a finished ``deepread eval`` run, in order, through
the real tool handlers and the tool executors's formatting (read-region memory included,
so pointer lines come out as the run saw them), and splits every tool result's tiktoken
count by what each line is:

- ``text``: the paragraphs' own (escaped) text — what the result is for;
- ``coordinates``: the ``[doc_id:sec_id:para_idx]`` prefix of each paragraph line (the
  paper's format: the model cites with it, so it is kept whatever it costs);
- ``page markers``: the ``(p.N)`` where the page changes;
- ``header``: the line(s) before the ``<document_content>`` frame, per tool;
- ``section lines``: the ``## (doc_id) [sec_id] title`` lines grouping paragraphs;
- ``pointer lines``: paragraphs already shown, one line per run;
- ``tags``: ``<document_content>`` / ``</document_content>`` and the line breaks.

Since the replay formats with the code of the checkout it runs in, running it on two
branches over the same run records compares their frames on the same calls.

Run:  python bench/frames.py --out EVAL_OUT --store STORE --collection NAME
Writes bench/out/frames-<collection>.json.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

from _common import machine, machine_line, table, write_json
from _runs import run_parser, run_records

from deepread.corpus.framing import CLOSE, OPEN
from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.executors import HANDLERS, shown_to_model
from deepread.nodes.read_memory import merge_regions, regions_of
from deepread.nodes.tools.contract import ToolEnv
from deepread.nodes.tools.observation import POINTER
from deepread.nodes.tools.specs import parse_args
from deepread.text.tokens import count_tokens

KINDS = (
    "text",
    "coordinates",
    "page markers",
    "header: retrieve",
    "header: read_section",
    "header: other",
    "section lines",
    "pointer lines",
    "tags and line breaks",
)
_PARA = re.compile(r"^(\[\d+:\d+:\d+\])( \(p\.\d+\))?( .*)?$", re.DOTALL)


def split_lines(content: str, tool: str) -> Counter[str]:
    """Tokens of one tool result by kind (line breaks and tags as one remainder)."""
    out: Counter[str] = Counter()
    lines = content.split("\n")
    if OPEN not in lines:  # a result without a frame (an error, an empty read)
        out[f"header: {tool}" if tool in ("retrieve", "read_section") else "header: other"] += (
            count_tokens(content)
        )
        return out
    opened = lines.index(OPEN)
    head = "\n".join(lines[:opened])
    if head:
        out[f"header: {tool}" if tool in ("retrieve", "read_section") else "header: other"] += (
            count_tokens(head)
        )
    # A paragraph's text may hold line breaks: glue continuation lines to their line.
    body: list[str] = []
    for line in lines[opened + 1 :]:
        if line == CLOSE or line.startswith(("[", "## ", "(no paragraphs)")) or not body:
            body.append(line)
        else:
            body[-1] += "\n" + line
    for line in body:
        if line in (CLOSE, "(no paragraphs)"):
            continue
        if line.startswith("## "):
            out["section lines"] += count_tokens(line)
        elif line.startswith("[") and line.endswith(POINTER):
            out["pointer lines"] += count_tokens(line)
        elif m := _PARA.match(line):
            coord, rest = m.group(1), m.group(3) or ""
            whole = count_tokens(line)
            bare = count_tokens(coord + rest)
            out["page markers"] += whole - bare
            out["coordinates"] += bare - count_tokens(rest.lstrip(" ")) if rest else bare
            out["text"] += count_tokens(rest.lstrip(" ")) if rest else 0
        else:
            out["text"] += count_tokens(line)
    out["tags and line breaks"] += count_tokens(content) - sum(out.values())
    return out


def main() -> int:
    ap = run_parser(__doc__)
    ap.add_argument("--limit", type=int, default=0, help="replay the first N questions only")
    args = ap.parse_args()
    records = run_records(args.out)
    if args.limit:
        records = records[: args.limit]
    tokens: Counter[str] = Counter()
    results = 0
    with Index.open(args.store, args.collection) as index:
        for r in records:
            docs = sorted(
                {
                    int(region.split(":")[0])
                    for o in r.get("observations") or []
                    for region in o.get("shown") or []
                }
            )
            context = Context(
                store=args.store,
                collection=args.collection,
                documents=docs or None,
                k=r["settings"]["k"],
                window=list(r["settings"]["window"]),
            )
            env = ToolEnv(index, context)
            shown: dict = {}
            for i, call in enumerate(r.get("tool_calls") or []):
                call = {"name": call["name"], "args": call["args"], "id": str(i)}
                try:
                    parsed = parse_args(call["name"], call["args"])
                    env.shown = shown
                    outcome = HANDLERS[call["name"]](parsed, env)
                except (KeyError, ValueError):
                    continue  # the run answered it with an error: no frame to measure
                message = shown_to_model(call, outcome, env, shown)
                shown = merge_regions(shown, regions_of([p.coord for p in outcome.paragraphs]))
                tokens.update(split_lines(str(message.content), call["name"]))
                results += 1
    total = sum(tokens.values())
    n = max(1, len(records))
    rows = [
        [k, round(tokens[k] / n, 1), round(100 * tokens[k] / total, 1) if total else 0.0]
        for k in KINDS
    ]
    frame = total - tokens["text"]
    m = machine()
    print(machine_line(m))
    print(f"{len(records)} questions, {results} tool results replayed ({args.out})\n")
    print(table(["kind", "tiktoken / question", "% of observation tokens"], rows))
    print(
        f"\nframe (all but text): {frame / n:.1f} tiktoken / question, "
        f"{100 * frame / max(1, total):.1f} % of {total / n:.1f}; without the kept "
        f"coordinates: {100 * (frame - tokens['coordinates']) / max(1, total):.1f} %"
    )
    write_json(
        f"frames-{args.collection}",
        {
            "machine": m,
            "run": str(args.out),
            "questions": len(records),
            "rows": rows,
            "frame_share": frame / max(1, total),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
