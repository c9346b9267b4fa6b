"""A whole-library ingest as a person runs it, alone and with readers asking beside it: how
long the readers wait, what the ingest's pace costs, and whether its progress can be
trusted.

Three phases, each on the folders given (the 155-filing library by default):

1. **alone** — ``deepread ingest FOLDER…`` into a fresh store, with its defaults and
   without a terminal (the lines a log gets), each stderr line kept with the second it
   came. From them: pages/s; whether files and pages done ever went back; the longest
   time between two lines; and, at each tenth of the run's wall time (from the 1st),
   the time left the last line said beside the time that was really left.
2. **beside** — the same ingest into another fresh store while, every ``--every``
   seconds, one reader asks it in turn: ``deepread docs``, ``toc``, ``search``, ``read``
   and ``ask`` (each a new process), a question to a ``deepread chat`` left open, a tool
   call to a ``deepread mcp`` left open, and a run of the ``langgraph dev`` server's
   graph. Each answer's seconds are kept, and that it answered; ``docs`` must list at
   least as many documents as the time before (every whole document stored so far).
3. **quiet** — on that store once the ingest is done, each reader asked 3 times with
   nothing else running: its quiet time.

Prints each reader's median and longest wait during the ingest beside its quiet median
(the target: within 2 s of it), the readers asked while the ingest built its vector
index and the longest of their waits, pages/s alone and beside (≤ 10 % slower), the
shares of the machine's cores the ingest and everything else (the readers, beside it)
took in each phase — on a machine whose cores the ingest fills, what the readers take
is what the ingest loses — and the progress checks; writes
bench/out/readers_beside_ingest.json. The machine's load is printed at each phase: a
shared machine moves both figures.

Run:  python bench/readers_beside_ingest.py --work DIR [--data FOLDER …] [--every 5]
      [--phases alone beside quiet]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, machine, machine_line, write_json

REPO = Path(__file__).resolve().parents[1]
LIBRARY = [SHARED_DATA / f"financebench-{part}" for part in ("dev", "val", "library")]
QUESTION = "What was Boeing's effective income tax rate in 2022?"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("DEEPREAD_")} | {
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "LANGSMITH_TRACING": "false",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "PYTHONUNBUFFERED": "1",
}
ENV.pop("OPENAI_API_KEY", None)
#: A file's line without a terminal, and a heartbeat's: where the run stands.
STANDS = re.compile(
    r"\[(?P<done>\d+)/(?P<files>\d+) files, (?P<pages>[\d,]+)/(?P<total>[\d,]+) pages"
    r"(?:, (?P<rate>[\d.]+) pages/s(?:, ~(?P<left>[\w ]+) left)?)?\]"
)


def deepread(*args: str | Path) -> list[str]:
    return [str(Path(sys.executable).with_name("deepread")), *map(str, args)]


def seconds_of(said: str) -> float:
    """``1 h 52 min`` / ``3 min 20 s`` / ``42 s`` → seconds."""
    total = 0.0
    for value, unit in re.findall(r"(\d+) (h|min|s)\b", said):
        total += int(value) * {"h": 3600, "min": 60, "s": 1}[unit]
    return total


def machine_cpu_s() -> float:
    """CPU seconds the whole machine has been busy since it started, over all its cores
    (``/proc/stat``: user, nice, system, irq, softirq and steal time)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def ingest(store: Path, folders: list[Path]) -> dict[str, Any]:
    """``deepread ingest`` as a person runs it (no terminal: a log's lines), timed, with
    its CPU seconds (its parse workers' included) and the whole machine's meanwhile."""
    started, busy = time.monotonic(), machine_cpu_s()
    proc = subprocess.Popen(
        deepread("ingest", *folders, "--store", store),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stderr is not None
    lines = [(time.monotonic() - started, line.rstrip("\n")) for line in proc.stderr]
    # wait4, not wait: its usage counts the process and every child it waited for
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    return {
        "seconds": time.monotonic() - started,
        "exit": code,
        "lines": lines,
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "machine_cpu_s": round(machine_cpu_s() - busy, 1),
    }


def cpu_shares(run: dict[str, Any]) -> dict[str, Any]:
    """What of the machine's cores the ingest had, and what the rest of the machine took
    (the readers, beside it), in shares of every core's whole run."""
    room = run["seconds"] * (os.cpu_count() or 1)
    return {
        "cpu_s": run["cpu_s"],
        "machine_cpu_s": run["machine_cpu_s"],
        "ingest_share": round(run["cpu_s"] / room, 3),
        "others_share": round(max(0.0, run["machine_cpu_s"] - run["cpu_s"]) / room, 3),
    }


def progress_checks(run: dict[str, Any]) -> dict[str, Any]:
    """Monotonic counts, the longest silence, and time left at each tenth of the run."""
    total_s = run["seconds"]
    stands = [(t, m) for t, line in run["lines"] if (m := STANDS.search(line))]
    files = [int(m["done"]) for _, m in stands]
    pages = [int(m["pages"].replace(",", "")) for _, m in stands]
    times = [t for t, _ in run["lines"]]
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
    tenths = []
    for k in range(1, 10):
        at = total_s * k / 10
        said = [(t, m) for t, m in stands if t <= at and m["left"]]
        if not said:
            tenths.append({"tenth": k, "said": None, "real_s": round(total_s - at, 1)})
            continue
        t, m = said[-1]
        shown = seconds_of(m["left"]) - (at - t)  # what it said, counted down since
        real = total_s - at
        tenths.append(
            {
                "tenth": k,
                "said_s": round(shown, 1),
                "real_s": round(real, 1),
                "ratio": round(shown / real, 3) if real > 0 else None,
            }
        )
    pages_total = int(stands[-1][1]["total"].replace(",", "")) if stands else 0
    return {
        "files_never_back": files == sorted(files),
        "pages_never_back": pages == sorted(pages),
        "longest_silence_s": round(max(gaps, default=0.0), 1),
        "pages_total": pages_total,
        "pages_per_s": round(pages_total / total_s, 2) if total_s else None,
        "tenths": tenths,
    }


class Chat:
    """A ``deepread chat --json`` left open; a question's seconds to its answer line."""

    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            deepread("chat", "--store", store, "--json"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=ENV,
        )

    def ask(self, question: str) -> tuple[bool, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        started = time.monotonic()
        self.proc.stdin.write(question + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        ok = bool(line) and json.loads(line).get("stop_reason") not in (None, "error")
        return ok, time.monotonic() - started

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Mcp:
    """A ``deepread mcp`` left open, spoken to as a raw JSON-RPC client."""

    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            deepread("mcp", "--store", store),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=ENV,
        )
        self.ids = iter(range(1, 1 << 30))
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b"}}
        self._ask("initialize", init)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdout is not None
        self._send({"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params})
        return json.loads(self.proc.stdout.readline() or "{}")

    def call(self) -> tuple[bool, float]:
        started = time.monotonic()
        reply = self._ask(
            "tools/call", {"name": "retrieve", "arguments": {"query": "effective tax rate"}}
        )
        ok = "result" in reply and not reply["result"].get("isError")
        return ok, time.monotonic() - started

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Served:
    """A ``langgraph dev`` serving the repository's graphs on the store."""

    def __init__(self, store: Path, workdir: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        workdir.mkdir(parents=True, exist_ok=True)
        self.log = open(workdir / "server.log", "wb")  # noqa: SIM115 (kept open: its log)
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("langgraph")), "dev", "--host", "127.0.0.1",
             "--port", str(self.port), "--no-browser", "--no-reload",
             "--config", str(REPO / "langgraph.json")],
            cwd=workdir, env=ENV | {"DEEPREAD_STORE": str(store)}, stdout=self.log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("langgraph dev did not start")

    def run(self) -> tuple[bool, float]:
        body = json.dumps({"assistant_id": "deepread", "input": {"question": QUESTION}})
        request = urllib.request.Request(
            f"{self.url}/runs/wait",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=300) as resp:
                out = json.loads(resp.read())
            ok = out.get("stop_reason") not in (None, "error")
        except OSError:
            ok = False
        return ok, time.monotonic() - started

    def close(self) -> None:
        os.killpg(self.proc.pid, 15)
        self.proc.wait(timeout=30)
        self.log.close()


def one_shot(argv: list[str]) -> tuple[bool, float, str]:
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    return done.returncode == 0, time.monotonic() - started, done.stdout


def readers(store: Path, workdir: Path) -> dict[str, Any]:
    """The readers a person has beside an ingest, asked in turn by :func:`ask_one`."""
    return {"chat": Chat(store), "mcp": Mcp(store), "served": Served(store, workdir / "served")}


ORDER = ("docs", "toc", "search", "read", "ask", "chat", "mcp", "served")


def ask_one(name: str, store: Path, held: dict[str, Any], seen: list[int]) -> tuple[bool, float]:
    if name == "docs":
        ok, s, out = one_shot(deepread("docs", "--store", store, "--json"))
        if ok:
            count = len(json.loads(out)["documents"])
            ok = not seen or count >= seen[-1]
            seen.append(count)
        return ok, s
    if name == "toc":
        return one_shot(deepread("toc", "--store", store, "--budget", "2000"))[:2]
    if name == "search":
        return one_shot(deepread("search", "effective tax rate", "--store", store))[:2]
    if name == "read":
        return one_shot(deepread("read", "1", "1", "0", "5", "--store", store))[:2]
    if name == "ask":
        return one_shot(deepread("ask", QUESTION, "--store", store, "--json"))[:2]
    if name == "chat":
        return held["chat"].ask(QUESTION)
    if name == "mcp":
        return held["mcp"].call()
    return held["served"].run()


def beside(store: Path, folders: list[Path], every: float, workdir: Path) -> dict[str, Any]:
    """The ingest with readers asking every ``every`` seconds, once it has a document."""
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(ingest(store, folders)))
    started = time.monotonic()
    thread.start()
    while not (store / "collections" / "default" / "edge_config.json").exists():
        time.sleep(1.0)
    while thread.is_alive():  # the first document in: readers can start
        done = subprocess.run(
            deepread("docs", "--store", store, "--json"), capture_output=True, text=True, env=ENV
        )
        if done.returncode == 0 and json.loads(done.stdout)["documents"]:
            break
        time.sleep(2.0)
    held = readers(store, workdir)
    asked: list[dict[str, Any]] = []
    seen: list[int] = []
    turn = 0
    try:
        while thread.is_alive():
            name = ORDER[turn % len(ORDER)]
            at = time.monotonic() - started
            ok, seconds = ask_one(name, store, held, seen)
            asked.append(
                {"reader": name, "ok": ok, "seconds": round(seconds, 2), "at": round(at, 1)}
            )
            turn += 1
            time.sleep(max(0.0, every - seconds))
    finally:
        thread.join()
        for reader in held.values():
            reader.close()
    return result | {"asked": asked}


def builds(lines: list[tuple[float, str]]) -> list[tuple[float, float]]:
    """When the ingest built its vector index: from its "building the vector index" line
    to its next line that is not the build's heartbeat."""
    spans, begun = [], None
    for t, line in lines:
        if "building the vector index" in line:
            begun = t if begun is None else begun
        elif begun is not None:
            spans.append((begun, t))
            begun = None
    return spans


def during_builds(run: dict[str, Any]) -> dict[str, Any]:
    """The readers asked while a build ran (their ask began before it ended and ended
    after it began), and the longest of their waits."""
    spans = builds(run["lines"])
    hit = [
        a
        for a in run["asked"]
        if any(a["at"] < end and a["at"] + a["seconds"] > start for start, end in spans)
    ]
    return {
        "builds": [[round(a, 1), round(b, 1)] for a, b in spans],
        "asked_during_builds": len(hit),
        "longest_during_builds": max((a["seconds"] for a in hit), default=None),
    }


def quiet(store: Path, workdir: Path) -> list[dict[str, Any]]:
    held = readers(store, workdir)
    asked = []
    try:
        for _ in range(3):
            for name in ORDER:
                ok, seconds = ask_one(name, store, held, [])
                asked.append({"reader": name, "ok": ok, "seconds": round(seconds, 2)})
    finally:
        for reader in held.values():
            reader.close()
    return asked


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="stores and logs go here")
    ap.add_argument("--data", type=Path, nargs="+", default=LIBRARY)
    ap.add_argument("--every", type=float, default=5.0)
    ap.add_argument("--phases", nargs="+", default=["alone", "beside", "quiet"])
    args = ap.parse_args()
    m = machine()
    print(machine_line(m), flush=True)
    out: dict[str, Any] = {"machine": m, "data": [str(d) for d in args.data]}
    if "alone" in args.phases:
        shutil.rmtree(args.work / "alone", ignore_errors=True)
        out["load_alone"] = os.getloadavg()
        run = ingest(args.work / "alone", args.data)
        out["alone"] = {"seconds": run["seconds"], "exit": run["exit"]}
        out["alone"] |= progress_checks(run) | cpu_shares(run)
        (args.work / "alone.log").write_text(
            "\n".join(f"{t:8.1f} {line}" for t, line in run["lines"]), encoding="utf-8"
        )
        print(json.dumps(out["alone"], indent=1), flush=True)
    if "beside" in args.phases:
        shutil.rmtree(args.work / "beside", ignore_errors=True)
        out["load_beside"] = os.getloadavg()
        run = beside(args.work / "beside", args.data, args.every, args.work)
        out["beside"] = (
            {
                "seconds": run["seconds"],
                "exit": run["exit"],
                "asked": run["asked"],
            }
            | progress_checks(run)
            | during_builds(run)
            | cpu_shares(run)
        )
        print(json.dumps({k: v for k, v in out["beside"].items() if k != "asked"}), flush=True)
    if "quiet" in args.phases:
        out["load_quiet"] = os.getloadavg()
        out["quiet"] = quiet(args.work / "beside", args.work)
    print(
        "\n| reader | asked during the ingest | answered | median s | longest s | quiet median s |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name in ORDER:
        during = [a for a in out.get("beside", {}).get("asked", []) if a["reader"] == name]
        calm = [a["seconds"] for a in out.get("quiet", []) if a["reader"] == name]
        if not during:
            continue
        secs = [a["seconds"] for a in during]
        print(
            f"| {name} | {len(during)} | {sum(a['ok'] for a in during)} | "
            f"{statistics.median(secs):.2f} | {max(secs):.2f} | "
            f"{statistics.median(calm) if calm else float('nan'):.2f} |"
        )
    if "beside" in out:
        b = out["beside"]
        print(
            f"\nasked while the ingest built its vector index ({len(b['builds'])} builds): "
            f"{b['asked_during_builds']}, the longest {b['longest_during_builds']} s"
        )
    if "alone" in out and "beside" in out:
        a, b = out["alone"]["pages_per_s"], out["beside"]["pages_per_s"]
        print(f"\npages/s alone {a}, beside readers {b} ({b / a:.3f}x)")
    for phase in ("alone", "beside"):
        if phase in out:
            p = out[phase]
            print(
                f"the cores, {phase}: the ingest {p['ingest_share']:.0%} "
                f"({p['cpu_s']:,.0f} CPU s), the rest of the machine {p['others_share']:.0%}"
            )
    write_json("readers_beside_ingest", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
