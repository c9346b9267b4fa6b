"""Server memory while clients create many collections: the open-collections cap at work.

Starts a real ``langgraph dev`` (``langgraph.json``, in-memory runtime, a fresh embedded
store) and, through ``langgraph_sdk``, runs the served ``ingest`` graph once per
collection ``c000`` … ``c099``, each one a small Markdown document sent as content — what
issue 29 saw a client do (30 collections grew a server by 1,068 MB). After every
``--every`` collections it reads the server process's resident memory (``VmRSS``) and
thread count from ``/proc/<pid>/status``, and at the end asks each collection once more
through the ``deepread`` agent (re-opening the closed ones).

Run once per cap: ``DEEPREAD_MAX_OPEN_COLLECTIONS`` is the server's setting; a cap of
1,000 keeps every collection open, as the code before the cap did.

Run:  python bench/open_collections.py [--collections 100] [--every 10] [--caps 8 1000]
Prints a markdown table and writes bench/out/open_collections.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _common import OUT_DIR, machine, machine_line, test_support

DOC = (
    "# Harbour notes {i}\n\n## Berths\n\nThe vessel of collection {i} berths at quay "
    "{q} on the morning tide.\n\nIts cargo is {i} crates of walrus ivory carvings.\n"
)


def status(pid: int) -> tuple[float, int]:
    """(resident MB, threads) of process ``pid``."""
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])


def server_pid(port: int) -> int:
    """The process listening on ``port`` (the server; ``langgraph dev`` runs in one)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if int(parts[1].split(":")[1], 16) == port and parts[3] == "0A":  # LISTEN
            inode = parts[9]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(f"socket:[{inode}]" == str(fd.readlink()) for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on port {port}")


def run(cap: int, n: int, every: int) -> dict:
    from langgraph_sdk import get_sync_client

    langgraph_dev = test_support("langgraph_server").langgraph_dev  # the tests' launcher

    with (
        tempfile.TemporaryDirectory() as tmp,
        langgraph_dev(Path(tmp), env={"DEEPREAD_MAX_OPEN_COLLECTIONS": str(cap)}) as url,
    ):
        pid = server_pid(int(url.rsplit(":", 1)[1]))
        client = get_sync_client(url=url, timeout=600)
        samples = [{"collections": 0, **dict(zip(("rss_mb", "threads"), status(pid), strict=True))}]
        started = time.perf_counter()
        for i in range(n):
            out = client.runs.wait(
                None,
                "ingest",
                input={"files": [{"name": "notes.md", "text": DOC.format(i=i, q=i % 7)}]},
                context={"collection": f"c{i:03d}"},
            )
            assert not out.get("failures"), out
            if (i + 1) % every == 0 or i + 1 == n:
                rss, threads = status(pid)
                samples.append({"collections": i + 1, "rss_mb": rss, "threads": threads})
                print(
                    f"cap {cap}: {i + 1} collections, {rss:.0f} MB, {threads} threads",
                    file=sys.stderr,
                )
        ingest_s = time.perf_counter() - started
        started = time.perf_counter()
        for i in range(n):  # every collection is still there and answers
            out = client.runs.wait(
                None,
                "deepread",
                input={"question": f"What is the cargo of collection {i}?"},
                context={"collection": f"c{i:03d}"},
            )
            assert out["stop_reason"] == "answered", out
        ask_s = time.perf_counter() - started
        rss, threads = status(pid)
        return {
            "cap": cap,
            "samples": samples,
            "after_asking": {"rss_mb": rss, "threads": threads},
            "ingest_s_per_collection": ingest_s / n,
            "ask_s_per_collection": ask_s / n,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collections", type=int, default=100)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--caps", type=int, nargs="+", default=[8, 1000])
    args = parser.parse_args()
    info = machine()
    results = [run(cap, args.collections, args.every) for cap in args.caps]
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / "open_collections.json").write_text(
        json.dumps({"machine": info, "results": results}, indent=2)
    )
    print(machine_line(info))
    print()
    print(
        "| cap | at start | "
        + " | ".join(f"{s['collections']} coll." for s in results[0]["samples"][1:])
        + " | after asking all | ingest s/coll. | ask s/coll. |"
    )
    print("|---" * (len(results[0]["samples"]) + 4) + "|")
    for r in results:
        cells = [f"{s['rss_mb']:.0f} MB / {s['threads']} thr" for s in r["samples"]]
        after = r["after_asking"]
        print(
            f"| {r['cap']} | "
            + " | ".join(cells)
            + f" | {after['rss_mb']:.0f} MB / {after['threads']} thr | "
            f"{r['ingest_s_per_collection']:.2f} | {r['ask_s_per_collection']:.2f} |"
        )


if __name__ == "__main__":
    main()
