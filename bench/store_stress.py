"""Many processes on one embedded store, each outcome compared with the same work done one
after another.

Every run starts a fresh store of generated Markdown files and runs real ``deepread``
processes on it at once:

* ``disjoint`` — two ``deepread ingest`` of disjoint folders;
* ``overlap`` — two ingests of folders that share files, and a copy of one file under
  another name in each;
* ``three`` — three ingests: two disjoint folders and one overlapping both;
* ``mixed`` — a store of two documents, then at once: a ``deepread chat`` idle at its
  prompt, an ingest of three files, ``rm 1`` and ``docs``; then the chat asks about a
  file the ingest stored, and must cite it (and never the removed document);
* ``kill-writer`` / ``kill-holder`` — two ingests at once, one of them killed with
  SIGKILL at a random moment (the second started, or the first — which holds the
  engine and answers the other — killed), then the same command run again.

The reference is the same commands run one after another on a fresh store (for
``mixed``: setup, ingest, ``rm``). A run agrees when, through a fresh opening of the
store (which repairs what a killed writer left): every given file is in — as a
document of its own path, or as the copy of a document holding its bytes — with the
same paragraph texts as in the reference; the documents' doc_ids are unique and as
many as the reference's; no hidden paragraph and no write lease are left; and every
process that was not killed exited 0.

Run:  python bench/store_stress.py [--repeats 20] [--scenarios disjoint overlap …]
      [--seed 1] [--keep DIR] [--out FILE.json]   (a run that differs keeps its folder there)
Exits 0 when every run agreed; prints a table and writes bench/out/store_stress.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import machine, machine_line, write_json

import deepread
from deepread.stores.schema import Match

SCENARIOS = ("disjoint", "overlap", "three", "mixed", "kill-writer", "kill-holder")
ENV = os.environ | {
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "LANGSMITH_TRACING": "false",
    "NO_COLOR": "1",
}
ENV.pop("OPENAI_API_KEY", None)
ENV.pop("DEEPREAD_MODEL", None)
#: A bound on every process, so a hang fails the run instead of the script.
PROCESS_S = 300


def deepread_command(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "deepread.cli", *map(str, args)]


def write_folder(folder: Path, names: list[str], paragraphs: int = 24) -> list[Path]:
    """Markdown files whose every paragraph names its file (so a mixed-up store shows)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        lines = [f"# The {name} notes", ""]
        for s in range(3):
            lines += [f"## Part {s} of {name}", ""]
            for i in range(paragraphs // 3):
                lines += [
                    f"Paragraph {i} of part {s} of {name}: the {name} gauge reads {i * 7}.",
                    "",
                ]
        path = folder / f"{name}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class Outcome:
    """What a store holds, as a person asking it would see it."""

    by_file: dict[str, list[str]] = field(default_factory=dict)  # given file -> texts
    documents: int = 0
    unique_ids: bool = True
    hidden: int = 0
    leases: int = 0


def read_store(store: Path, root: Path, files: list[Path]) -> Outcome:
    """The texts each given file (named from ``root``) is stored as — its own document,
    or the document holding its bytes — read through a fresh opening of the store."""
    import hashlib

    out = Outcome()
    with deepread.Index.open(store=store) as idx:
        docs = idx.documents()
        out.documents = len(docs)
        out.unique_ids = len({d.doc_id for d in docs}) == len(docs)
        by_source = {d.source: d for d in docs}
        by_hash = {d.content_hash: d for d in docs}
        for path in files:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            doc = by_source.get(str(path.resolve())) or by_hash.get(digest)
            if doc is None:
                continue
            texts = [
                p.text
                for s in doc.sections
                for p in idx.read_section(doc.doc_id, s.sec_id, 0, max(s.n_para - 1, 0))
            ]
            out.by_file[str(path.relative_to(root))] = texts
        backend = idx.collection.backend
        out.hidden = backend.count(Match(equals={"record": "paragraph", "live": 0}))
        rows = backend.scroll(Match(equals={"record": "document"}), limit=100_000)
        out.leases = sum(1 for r in rows if r.get("writer"))
    return out


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, capture_output=True, text=True, timeout=PROCESS_S, env=ENV, check=False, **kwargs
    )


def start(command: list[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        **kwargs,
    )


def finish(process: subprocess.Popen) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=PROCESS_S)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return -999, f"timed out after {PROCESS_S} s\n{err}"
    return process.returncode, err


@dataclass
class Plan:
    """A scenario's folders, the commands run at once, and the files a person gave."""

    folders: dict[str, list[str]]
    setup: list[list[str]] = field(default_factory=list)  # run first (both sides)
    concurrent: list[list[str]] = field(default_factory=list)
    copies: dict[str, str] = field(default_factory=dict)  # copy path -> original path


def plan(name: str) -> Plan:
    a = [f"alpha{i}" for i in range(6)]
    b = [f"beta{i}" for i in range(4)]
    if name in ("disjoint", "kill-writer", "kill-holder"):
        return Plan({"a": a, "b": b}, concurrent=[["a"], ["b"]])
    if name == "overlap":
        return Plan(
            {"a": a, "c": [*a[2:5], "gamma0"]},
            concurrent=[["a"], ["c"]],
            copies={"a/copy-of-alpha0.md": "a/alpha0.md", "c/copy-of-gamma0.md": "c/gamma0.md"},
        )
    if name == "three":
        return Plan({"a": a, "b": b, "c": a[:2] + b[:2]}, concurrent=[["a"], ["b"], ["c"]])
    if name == "mixed":
        return Plan({"old": ["old0", "old1"], "new": ["new0", "new1", "new2"]}, setup=[["old"]])
    raise ValueError(name)


@dataclass
class Run:
    scenario: str
    ok: bool
    seconds: float  # the concurrent work and its check (not the reference)
    detail: str = ""
    reference: Outcome | None = None


def make_files(root: Path, p: Plan) -> list[Path]:
    files = []
    for folder, names in p.folders.items():
        files += write_folder(root / folder, names)
    for copy, original in p.copies.items():
        shutil.copyfile(root / original, root / copy)
        files.append(root / copy)
    return sorted(files)


def reference(root: Path, p: Plan, mixed: bool) -> Outcome:
    """The same work one command after another, on a store of its own."""
    store = root / "reference-store"
    for folders in [*p.setup, *p.concurrent]:
        done = run(deepread_command("ingest", *[root / f for f in folders], "--store", store))
        assert done.returncode == 0, done.stderr
    if mixed:
        done = run(deepread_command("ingest", root / "new", "--store", store))
        assert done.returncode == 0, done.stderr
        done = run(deepread_command("rm", "1", "--store", store))
        assert done.returncode == 0, done.stderr
    return read_store(store, root, files_of(root, p))


def files_of(root: Path, p: Plan) -> list[Path]:
    found = [path for folder in p.folders for path in sorted((root / folder).glob("*.md"))]
    return sorted(set(found))


def compare(got: Outcome, want: Outcome, codes: list[tuple[str, int, str]]) -> str:
    """'' when ``got`` is ``want``; else what differs."""
    problems = [f"{what} exited {code}: {err.strip()[-400:]}" for what, code, err in codes if code]
    if got.by_file != want.by_file:
        missing = sorted(set(want.by_file) - set(got.by_file))
        differ = sorted(f for f in got.by_file if got.by_file[f] != want.by_file.get(f))
        problems.append(f"files missing {missing[:4]}, texts differ {differ[:4]}")
    if got.documents != want.documents:
        problems.append(f"{got.documents} documents, the reference has {want.documents}")
    if not got.unique_ids:
        problems.append("a doc_id is given twice")
    if got.hidden or got.leases:
        problems.append(f"{got.hidden} hidden paragraphs and {got.leases} leases left")
    return "; ".join(problems)


def concurrent_ingests(root: Path, store: Path, p: Plan) -> list[tuple[str, int, str]]:
    processes = []
    for folders in p.concurrent:
        processes.append(
            (
                folders,
                start(deepread_command("ingest", *[root / f for f in folders], "--store", store)),
            )
        )
        time.sleep(0.3)  # started one after another, overlapping
    return [(f"ingest {' '.join(f)}", *finish(proc)) for f, proc in processes]


def killed_ingest(
    root: Path, store: Path, p: Plan, rng: random.Random, holder: bool
) -> list[tuple[str, int, str]]:
    """Two ingests at once; one killed with SIGKILL at a random moment, then run again."""
    first = start(deepread_command("ingest", root / "a", "--store", store))
    time.sleep(0.3)
    second = start(deepread_command("ingest", root / "b", "--store", store))
    victim, other = (first, second) if holder else (second, first)
    time.sleep(rng.uniform(1.0, 9.0))
    victim.kill()
    victim.communicate()
    codes = [("the other ingest", *finish(other))]
    folder = root / ("a" if victim is first else "b")
    again = run(deepread_command("ingest", folder, "--store", store))
    codes.append(("the killed ingest run again", again.returncode, again.stderr))
    return codes


def mixed_run(root: Path, store: Path) -> list[tuple[str, int, str]]:
    setup = run(deepread_command("ingest", root / "old", "--store", store))
    assert setup.returncode == 0, setup.stderr
    chat = subprocess.Popen(
        deepread_command("chat", "--store", store, "--json"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    time.sleep(1.0)
    ingest = start(deepread_command("ingest", root / "new", "--store", store))
    rm = start(deepread_command("rm", "1", "--store", store))
    docs = start(deepread_command("docs", "--store", store, "--json"))
    codes = [
        ("ingest", *finish(ingest)),
        ("rm 1", *finish(rm)),
        ("docs", *finish(docs)),
    ]
    assert chat.stdin is not None
    try:
        out, err = chat.communicate("What does the new1 gauge read in part 2?\n", timeout=PROCESS_S)
    except subprocess.TimeoutExpired:
        chat.kill()
        out, err = chat.communicate()
    code = chat.returncode
    try:
        answer = json.loads(next(line for line in out.splitlines() if '"citations"' in line))
        cited = {c["doc_id"] for c in answer["citations"]}
        if 1 in cited or not cited:
            code, err = 1, f"the chat cited {sorted(cited)}: {answer.get('answer', '')[:200]}"
    except (StopIteration, ValueError, KeyError):
        code, err = 1, f"the chat gave no answer: {out[-300:]} {err[-300:]}"
    codes.append(("chat", code, err))
    return codes


def one_run(name: str, workdir: Path, rng: random.Random, want: Outcome | None) -> Run:
    """One run of ``name`` (its reference made first when ``want`` is None: then
    ``Run.reference`` holds it for the next runs)."""
    root = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=workdir))
    p = plan(name)
    make_files(root, p)
    if want is None:
        want = reference(root, p, mixed=name == "mixed")
    started = time.monotonic()
    store = root / "store"
    if name == "mixed":
        codes = mixed_run(root, store)
    elif name.startswith("kill"):
        codes = killed_ingest(root, store, p, rng, holder=name == "kill-holder")
    else:
        codes = concurrent_ingests(root, store, p)
    got = read_store(store, root, files_of(root, p))
    detail = compare(got, want, codes)
    if not detail:
        shutil.rmtree(root, ignore_errors=True)  # (one that differs is kept, to look at)
    return Run(name, not detail, time.monotonic() - started, detail, want)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="work in this folder (default: a temporary one)")
    ap.add_argument("--out", type=Path, help="the JSON here (default bench/out/store_stress.json)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="store-stress-"))
    workdir.mkdir(parents=True, exist_ok=True)
    m = machine()
    print(machine_line(m), flush=True)
    runs: list[Run] = []
    try:
        for name in args.scenarios:
            want = None  # the same files every run: one reference per scenario
            for i in range(args.repeats):
                r = one_run(name, workdir, rng, want)
                want = r.reference
                runs.append(r)
                print(
                    f"{name} {i + 1}/{args.repeats}: {'agrees' if r.ok else 'DIFFERS'} "
                    f"({r.seconds:.1f} s){'' if r.ok else ' — ' + r.detail}",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\n| scenario | runs | agree | median s |\n|---|---:|---:|---:|")
    for name in args.scenarios:
        mine = [r for r in runs if r.scenario == name]
        secs = sorted(r.seconds for r in mine)
        print(f"| {name} | {len(mine)} | {sum(r.ok for r in mine)} | {secs[len(secs) // 2]:.1f} |")
    rows = [
        {"scenario": r.scenario, "ok": r.ok, "seconds": round(r.seconds, 1), "detail": r.detail}
        for r in runs
    ]
    data = {"machine": m, "load": os.getloadavg(), "runs": rows}
    if args.out is None:
        write_json("store_stress", data)
    else:
        args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
