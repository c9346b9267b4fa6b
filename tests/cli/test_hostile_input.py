"""Issue 15, the command line's half: terminal safety, JSON output, input hygiene,
validated options, store safety (concurrent creation, a full disk) and signals.

Inputs are generated here; processes are real ``deepread`` processes where the
behaviour is the process's (exit codes, signals, two writers, a full filesystem).
The full-disk tests mount a small tmpfs inside a user namespace (``unshare -rm``) and
are skipped, saying why, where the system does not allow that.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from support.scripted import ScriptedChatModel, ScriptedHTTPError, ai, call

import deepread
from deepread import cli
from deepread.json_output import to_json
from deepread.terminal import terminal_text
from deepread.text.hygiene import clean_query, decode_argument, storable

#: What a hostile heading holds: OSC 52 (writes the clipboard), clear-screen, a C1 CSI,
#: a bidi override.
HOSTILE = "\x1b]52;c;SGVsbG8=\x07 \x1b[2J \x9b \u202e"
#: None of these may reach a terminal from a human-readable output.
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def deepread_command() -> list[str]:
    """The installed ``deepread`` console script (``python -m deepread.cli`` if absent)."""
    script = Path(sys.executable).with_name("deepread")
    return [str(script)] if script.exists() else [sys.executable, "-m", "deepread.cli"]


def run_process(
    *argv: str | bytes | Path, timeout: float = 300, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*deepread_command(), *argv],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=timeout,
        cwd=cwd,
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """``deepread ARGV`` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def assert_terminal_safe(text: str) -> None:
    leaked = [c for c in RAW if c in text]
    assert not leaked, f"raw control characters {leaked!r} in {text!r}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A folder with one document whose heading and text hold terminal controls."""
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "docs"
    folder.mkdir()
    (folder / "harbour.md").write_text(
        f"# Harbour {HOSTILE} rules\n\nThe harbour ledger {HOSTILE} lists every vessel.\n",
        encoding="utf-8",
    )
    return folder, root / "store"


@pytest.fixture(scope="module")
def hostile_ingest(hostile: tuple[Path, Path]) -> subprocess.CompletedProcess[str]:
    folder, store = hostile
    return run_process("ingest", folder, "--store", store)


# -- 1. terminal safety -----------------------------------------------------------------


def test_terminal_text_shows_controls_and_bidi_overrides_as_escapes():
    assert terminal_text(HOSTILE) == r"\x1b]52;c;SGVsbG8=\x07 \x1b[2J \x9b \u202e"
    assert terminal_text("a\tb\nc \u200f\u2066\x7f") == "a\tb\nc \\u200f\\u2066\\x7f"
    assert terminal_text("café — 東京") == "café — 東京"
    assert terminal_text("caf\udce9") == "caf\\xe9"  # a file name's byte, shown as one
    assert terminal_text("\ud800") == "\\ud800"  # would not even encode


#: Characters that show as nothing: zero-width space, non-joiner and joiner, word
#: joiner, invisible separator, byte order mark, Mongolian vowel separator, a tag
#: character, the combining grapheme joiner and the Hangul fillers.
INVISIBLE = "\u200b\u200c\u200d\u2060\u2063\ufeff\u180e\U000e0041\u034f\u115f\u3164\uffa0"


def test_terminal_text_shows_invisible_characters_as_escapes():
    shown = terminal_text(f"Acme{INVISIBLE}Corp")

    assert shown == (
        "Acme\\u200b\\u200c\\u200d\\u2060\\u2063\\ufeff\\u180e\\U000e0041"
        "\\u034f\\u115f\\u3164\\uffa0Corp"
    )
    assert terminal_text("Donau\u00addampf") == "Donaudampf"  # a hyphenation hint only
    assert terminal_text("보고서 — Отчёт ❤️ 😀") == "보고서 — Отчёт ❤️ 😀"  # letters stay


@pytest.fixture(scope="module")
def invisible_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A document whose heading and paragraph hold invisible characters."""
    root = tmp_path_factory.mktemp("invisible")
    (root / "acme.md").write_text(
        f"# Acme{INVISIBLE} rules\n\nThe harbour{INVISIBLE} ledger lists every vessel.\n",
        encoding="utf-8",
    )
    with deepread.Index.open(store=root / "store") as idx:
        idx.ingest([root / "acme.md"])
    return root / "store"


@pytest.mark.parametrize(
    "argv",
    [("toc",), ("docs",), ("search", "harbour ledger"), ("read", "1", "1")],
    ids=["toc", "docs", "search", "read"],
)
def test_reading_commands_print_no_raw_invisible_character(invisible_store, capsys, argv):
    code, out, err = run(capsys, *argv, "--store", invisible_store)

    assert code == 0, err
    leaked = sorted({f"U+{ord(c):04X}" for c in out + err if c in INVISIBLE})
    assert not leaked, f"raw invisible characters {leaked} in {out!r}"
    assert "\\u200b" in out


def test_ingest_prints_no_raw_control_character(hostile_ingest):
    assert hostile_ingest.returncode == 0, hostile_ingest.stderr
    assert_terminal_safe(hostile_ingest.stdout + hostile_ingest.stderr)
    assert r"\x1b]52;c;" in hostile_ingest.stdout  # shown, escaped


@pytest.mark.parametrize(
    "argv",
    [
        ("toc",),
        ("search", "harbour ledger"),
        ("read", "1", "1"),
        ("ask", "What does the harbour ledger list?"),
    ],
    ids=["toc", "search", "read", "ask"],
)
def test_reading_commands_print_no_raw_control_character(hostile, hostile_ingest, capsys, argv):
    code, out, err = run(capsys, *argv, "--store", hostile[1])

    assert code == 0, err
    assert_terminal_safe(out + err)
    assert r"\u202e" in out


def test_the_stored_text_stays_exactly_as_parsed(hostile, hostile_ingest):
    with deepread.Index.open(store=hostile[1]) as idx:
        doc = idx.documents()[0]
        text = idx.read_section(doc.doc_id, 1)[0].text

    assert HOSTILE in doc.sections[1].title and HOSTILE in text


def test_json_output_escapes_controls_and_round_trips_exactly(hostile, hostile_ingest, capsys):
    code, out, _ = run(capsys, "read", "1", "1", "--store", hostile[1], "--json")

    assert code == 0
    assert_terminal_safe(out)
    assert HOSTILE in json.loads(out)["paragraphs"][0]["text"]


# -- 2. one JSON encoder ----------------------------------------------------------------


def test_the_json_encoder_writes_messages_records_paths_and_infinities():
    from deepread.records.documents import Hit

    data = {
        "answer": AIMessage(
            content="It is [1:2:0].", tool_calls=[call("retrieve", {"query": "x"}, id="c1")]
        ),
        "result": ToolMessage(content="found", tool_call_id="c1", name="retrieve"),
        "hit": Hit(1, 2, 0, 0.5),
        "out": Path("/tmp/x"),
        "ratio": float("inf"),
        "pair": (1, 2),
    }

    back = json.loads(to_json(data))

    assert back["answer"]["content"] == "It is [1:2:0]."
    assert back["answer"]["tool_calls"][0]["name"] == "retrieve"
    assert back["result"]["tool_call_id"] == "c1"
    assert back["hit"]["score"] == 0.5 and back["out"] == "/tmp/x"
    assert back["ratio"] == "inf" and back["pair"] == [1, 2]


def test_the_json_encoder_refuses_what_it_does_not_know():
    with pytest.raises(TypeError, match="not JSON serializable"):
        to_json({"x": object()})


def _retrieve_forever(messages: list[BaseMessage]) -> AIMessage:
    return ai(call("retrieve", {"query": "harbour ledger"}), content="Partial.")


@pytest.mark.parametrize(
    "stop_reason, model, env",
    [
        ("answered", None, {"DEEPREAD_CHECK_SUFFICIENCY": "false"}),
        ("no_evidence", None, {}),
        (
            "no_evidence",
            ScriptedChatModel(
                steps=[  # a model's answer the check rejects twice
                    ai(call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 0})),
                    ai(content="Zebras live in the savanna [1:1:0]."),
                    ai(content="INSUFFICIENT: nothing about zebras."),
                    ai(content="Zebras live in the savanna [1:1:0]."),
                    ai(content="INSUFFICIENT: still nothing about zebras."),
                ]
            ),
            {},
        ),
        (
            "budget",
            ScriptedChatModel(steps=[_retrieve_forever], cycle=True),
            {"DEEPREAD_MAX_ROUNDS": "1"},
        ),
        ("error", ScriptedChatModel(steps=[ScriptedHTTPError(400)]), {}),
    ],
    ids=["answered", "no_evidence", "no_evidence-model", "budget", "error"],
)
def test_ask_json_is_valid_json_for_every_stop_reason(
    hostile, hostile_ingest, capsys, monkeypatch, stop_reason, model, env
):
    from deepread.graphs import agent

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if model is not None:  # a scripted policy in place of a hosted LLM
        monkeypatch.setattr(agent, "build_graph", functools.partial(agent.build_graph, model=model))
    question = (
        "Where do zebras live?"
        if stop_reason == "no_evidence"
        else "What does the harbour ledger list?"
    )

    code, out, err = run(capsys, "ask", question, "--store", hostile[1], "--json")

    data = json.loads(out)
    assert data["stop_reason"] == stop_reason, err
    assert code == (4 if stop_reason == "error" else 0)
    assert "Traceback" not in err


# -- 3. input hygiene -------------------------------------------------------------------


def test_an_argument_that_is_not_utf8_is_decoded_not_a_traceback(hostile, hostile_ingest):
    result = run_process("search", b"caf\xe9 harbour", "--store", hostile[1])

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "harbour" in result.stdout


def test_decode_argument_reads_latin1_bytes_and_keeps_utf8():
    assert decode_argument("caf\udce9") == "café"  # b"caf\xe9": Latin-1
    assert decode_argument("café") == "café"
    assert decode_argument("\udcc3\udca9t\udce9") == "Ã©té"  # not UTF-8 as a whole


def test_a_query_with_a_lone_surrogate_or_nul_is_cleaned_before_the_tokenizer(
    hostile, hostile_ingest
):
    with deepread.Index.open(store=hostile[1]) as idx:
        paragraphs = idx.retrieve("harbour \ud800 ledger\x00")

    assert paragraphs and "ledger" in paragraphs[0].text
    assert clean_query("a\ud800b\x00c\udfff") == "abc"


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"query": None}, "the query must be text or a list of texts, not NoneType"),
        ({"query": "harbour", "k": 0}, f"k must be a whole number from 1 to {2**63 - 1} (got 0)"),
        (
            {"query": "harbour", "k": 2.5},
            f"k must be a whole number from 1 to {2**63 - 1} (got 2.5)",
        ),
    ],
)
def test_a_bad_query_or_k_from_python_is_a_usage_error_naming_it(
    hostile, hostile_ingest, kwargs, says
):
    from deepread.records.errors import UsageError

    with deepread.Index.open(store=hostile[1]) as idx, pytest.raises(UsageError) as err:
        idx.retrieve(**kwargs)

    assert str(err.value) == says


def test_a_file_name_that_is_not_utf8_is_stored_with_its_bytes_visible():
    name = b"caf\xe9.md".decode("utf-8", "surrogateescape")  # as os.listdir gives it

    assert storable(name) == "caf\\xe9.md"
    assert storable("café.md") == "café.md"


@pytest.mark.parametrize("suffix", [".txt", ".md", ".html", ".docx"])
def test_a_file_of_any_format_whose_name_is_not_utf8_parses(tmp_path, suffix):
    import docx  # python-docx: a real .docx package

    from deepread.corpus.parsing import parse_file

    path = tmp_path / os.fsdecode(b"r\xe9sum\xe9" + suffix.encode())
    text = "The harbour master keeps a ledger."
    if suffix == ".docx":
        document = docx.Document()
        document.add_paragraph(text)
        document.save(str(path))
    else:
        path.write_text(f"<p>{text}</p>" if suffix == ".html" else text, encoding="utf-8")

    parsed = parse_file(path)

    assert any(text in p.text for p in parsed.paragraphs)


def test_a_question_with_a_lone_surrogate_is_answered(hostile, hostile_ingest):
    with deepread.Index.open(store=hostile[1]) as idx:
        out = deepread.build_graph(index=idx).invoke(
            {"question": "What does the harbour \ud800 ledger list?"}
        )

    assert out["stop_reason"] in ("answered", "no_evidence") and out["answer"]


# -- 4. validated options ---------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (("search", "x", "--k", "-1"), "--k must be at least 1"),
        (("search", "x", "--k", "0"), "--k must be at least 1"),
        (("search", "x", "--window", "0", "-1"), "--window must be at least 0"),
        (("toc", "--budget", "0"), "--budget must be at least 1"),
        (("read", "1", "1", "-3", "2"), "START must be at least 0"),
        (("eval", "qa.jsonl", "--workers", "0"), "--workers must be at least 1"),
        (("ingest", "docs", "--workers", "0"), "--workers must be at least 1"),
        (("eval", "qa.jsonl", "--max-rounds", "0"), "--max-rounds must be at least 1"),
        (("read", str(2**64), "0"), f"DOC must be at most {2**63 - 1} (got {2**64})"),
        (("read", "1", str(2**64)), f"SEC must be at most {2**63 - 1}"),
        (("read", "1", "1", "0", str(2**64)), f"END must be at most {2**63 - 1}"),
        (("toc", "--doc", str(2**64)), f"--doc must be at most {2**63 - 1}"),
        (("search", "x", "--k", str(2**64)), f"--k must be at most {2**63 - 1}"),
        (("search", "x", "--window", str(2**64), "0"), f"--window must be at most {2**63 - 1}"),
    ],
)
def test_an_integer_option_out_of_range_exits_2_naming_it(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, *argv, "--store", tmp_path / "store")

    assert code == 2
    assert message in err
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(
    "argv, says",
    [
        (("read", str(2**63 - 1), "0"), f"no document {2**63 - 1} in collection 'default'"),
        (("read", str(2**40), "0"), f"no document {2**40} in collection 'default'"),
        (("toc", "--doc", str(2**40)), f"no document {2**40} in collection 'default'"),
        (("search", "harbour", "--doc", str(2**40)), f"no document {2**40}"),
        (("rm", str(2**40)), f"no document {2**40}"),
        (("rm", str(2**64)), f"doc_id must be a whole number from 0 to {2**63 - 1}"),
    ],
)
def test_a_doc_id_no_document_can_have_exits_2_as_unknown(
    hostile, hostile_ingest, capsys, argv, says
):
    # Within the integer range but past the ids the store gives: not there, like doc 7.
    code, _, err = run(capsys, *argv, "--store", hostile[1])

    assert code == 2, err
    assert says in err
    assert "could not be used" not in err and "Helper" not in err


@pytest.mark.parametrize("question", ["", "   ", "\x00\ud800"])
def test_an_empty_question_exits_2_saying_so(hostile, hostile_ingest, capsys, question):
    code, _, err = run(capsys, "ask", question, "--store", hostile[1])

    assert code == 2
    assert "the question is empty" in err


def test_a_question_of_pages_shows_a_clipped_step_line(hostile, hostile_ingest, capsys):
    # Many distinct words: the policy's query keeps as many as fit (text/terms.key_words),
    # a query far longer than a step line may show.
    question = "Which vessels does the harbour ledger list? " + " ".join(
        f"vessel{i}" for i in range(3000)
    )

    code, _, err = run(capsys, "ask", question, "--store", hostile[1])

    assert code == 0
    step = next(line for line in err.splitlines() if line.startswith("→ retrieve("))
    assert len(step) < 300 and step.endswith(" characters))")


def test_an_empty_store_exits_2_and_writes_nothing(tmp_path, capsys, monkeypatch, hostile):
    monkeypatch.chdir(tmp_path)

    code, _, err = run(capsys, "ingest", hostile[0], "--store", "")

    assert code == 2 and "--store is empty" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [("toc",), ("ingest", "."), ("ask", "why?")])
def test_a_store_that_is_a_regular_file_exits_3_and_writes_nothing(tmp_path, capsys, command):
    store = tmp_path / "store"
    store.write_text("not a store", encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")

    code, _, err = run(capsys, *[tmp_path if c == "." else c for c in command], "--store", store)

    assert code == 3, err
    assert "is not a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "store"]
    assert store.read_text(encoding="utf-8") == "not a store"


def test_an_unknown_embeddings_name_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    code, _, err = run(capsys, "toc", "--store", tmp_path / "s", "--embeddings", "bogus")

    assert code == 2 and "unknown embeddings 'bogus'" in err


def test_a_value_error_from_a_bug_is_not_passed_off_as_bad_usage(tmp_path, capsys, monkeypatch):
    def broken(args: Any) -> int:
        raise ValueError("a bug")

    from deepread.cli import parser, reading

    monkeypatch.setattr(reading, "cmd_toc", broken)
    parser_func = parser.build_parser().parse_args(["toc"]).func
    assert parser_func is broken
    with pytest.raises(ValueError, match="a bug"):
        cli.main(["toc", "--store", str(tmp_path / "s")])


# -- 5. two processes creating one store ------------------------------------------------


def test_two_ingests_into_one_new_store_at_once_leave_it_whole(tmp_path):
    from deepread.stores.schema import Match

    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(3):
        (folder / f"d{i}.md").write_text(
            f"# Doc {i}\n\n"
            + "\n\n".join(f"Paragraph {j} of doc {i} about tides." for j in range(30)),
            encoding="utf-8",
        )
    store = tmp_path / "store"
    procs = [
        subprocess.Popen(
            [*deepread_command(), "ingest", str(folder), "--store", str(store)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]  # type: ignore[union-attr]

    for code, err in results:
        assert "already contains segment data" not in err
        assert "Traceback" not in err
        assert code == 0 or (code == 3 and "in use by another deepread process" in err), err
    assert any(code == 0 for code, _ in results)
    with deepread.Index.open(store=store) as idx:  # usable, each document whole
        docs = idx.documents()
        assert sorted(d.title for d in docs) == ["Doc 0", "Doc 1", "Doc 2"]
        assert all(idx.collection.count_paragraphs(d.doc_id) == d.n_para for d in docs)
        assert idx.collection.backend.scroll(
            Match(equals={"record": "document"}), limit=10, order_by="doc_id"
        )  # the range index exists


# Creates the collection at argv[1]; with argv[2] "wait", only once it has said READY and
# been sent a line: the racers start together however long each took to import.
_CREATE = """
import sys, time
from pathlib import Path
from deepread.records.errors import StoreError
from deepread.stores.edge import EdgeBackend
backend = EdgeBackend(Path(sys.argv[1]))
if sys.argv[2] == "wait":
    print("READY", flush=True)
    sys.stdin.readline()
try:
    backend.create(4)
except StoreError as exc:
    print("STORE", exc)
else:
    print("CREATED" if backend.exists() else "NOTHING")
    time.sleep(0.5)  # hold the engine's lock while the others look
    backend.close()
"""


def test_processes_racing_to_create_one_collection_never_corrupt_it(tmp_path):
    from deepread.stores.edge import EdgeBackend
    from deepread.stores.schema import Match

    path = tmp_path / "store" / "collections" / "race"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CREATE, str(path), "wait"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    # A barrier, not a start time: on a loaded machine an import can outlast any
    # head start, and the processes would then create one after another, racing nothing.
    for p in procs:
        assert p.stdout is not None and p.stdout.readline() == "READY\n"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=120) for p in procs]

    for out, err in outputs:
        assert out.startswith(("CREATED", "STORE")), err
        assert "already contains segment data" not in out + err
        if out.startswith("STORE"):
            assert "in use by another deepread process" in out
    assert sum(out.startswith("CREATED") for out, _ in outputs) >= 1
    backend = EdgeBackend(path)
    assert (
        backend.scroll(Match(equals={"record": "document"}), limit=1, order_by="doc_id") == []
    )  # its payload indexes exist
    backend.close()
    assert not list(path.parent.glob(".race.creating-*"))


def test_a_creator_finding_the_lock_taken_says_it_waits_then_goes_on(tmp_path):
    import fcntl

    path = tmp_path / "store" / "collections" / "held"
    path.parent.mkdir(parents=True)
    with open(path.parent / ".held.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another creator at work
        proc = subprocess.Popen(
            [sys.executable, "-c", _CREATE, str(path), "go"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stderr is not None
        waiting = proc.stderr.readline()
        assert "waiting for another deepread process to finish creating" in waiting
        assert proc.poll() is None  # still waiting while the lock is held
    out, err = proc.communicate(timeout=120)  # the lock is released: it creates

    assert out.startswith("CREATED"), err


# -- 6. a full disk ---------------------------------------------------------------------


def test_a_write_larger_than_the_free_space_is_refused_before_anything_is_written(tmp_path):
    from deepread.stores.disk_space import NoSpaceError, free_bytes
    from deepread.stores.edge import EdgeBackend

    backend = EdgeBackend(tmp_path / "store" / "collections" / "big")
    points = free_bytes(tmp_path) // 1000  # ~5 KB each: five times the free space

    with pytest.raises(
        NoSpaceError,
        match=r"no space left on /\S* .*storing big\.pdf "
        r"\(needed ~[\d.]+ MB, [\d.]+ MB free\)",
    ):
        backend.ensure_space(points, 384, 0, "storing big.pdf")
    backend.ensure_space(10, 384, 1000, "storing small.md")  # fits: no error
    assert not (tmp_path / "store").exists()


def _tmpfs_allowed() -> str | None:
    if shutil.which("unshare") is None:
        return "no unshare(1) on this system"
    probe = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            "mount -t tmpfs -o size=1m tmpfs /mnt 2>/dev/null || "
            "mount -t tmpfs -o size=1m tmpfs /tmp",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        return f"a user namespace cannot mount a tmpfs here: {probe.stderr.strip()}"
    return None


def run_on_tmpfs(mount: Path, size: str, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` (sh) in a user and mount namespace with a tmpfs of ``size`` at
    ``mount``; ``$DEEPREAD`` runs the command line."""
    mount.mkdir(exist_ok=True)
    env = os.environ | {"DEEPREAD": " ".join(deepread_command()), "MNT": str(mount)}
    return subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount -t tmpfs -o size={size} tmpfs "$MNT" || exit 99\n{script}',
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


@pytest.fixture(scope="module")
def tmpfs_allowed() -> None:
    reason = _tmpfs_allowed()
    if reason:
        pytest.skip(reason)


def test_ingest_on_a_full_disk_exits_3_saying_no_space_and_writes_nothing(
    tmpfs_allowed, hostile, tmp_path
):
    result = run_on_tmpfs(
        tmp_path / "mnt",
        "2m",
        f"""
$DEEPREAD ingest '{hostile[0]}' --store "$MNT/store"; echo "exit=$?"
ls -A "$MNT/store/collections" 2>/dev/null | grep -v '^\\.' ; echo "listed"
""",
    )

    assert "exit=3" in result.stdout, result.stdout + result.stderr
    assert re.search(
        r"no space left on \S+ .*\(needed ~[\d.]+ [KM]B, [\d.]+ [KM]B free\)", result.stderr
    ), result.stderr
    assert "killed by" not in result.stderr and "Traceback" not in result.stderr
    assert result.stdout.split("exit=3\n")[1] == "listed\n"  # no collection was made


def test_a_store_that_fills_its_disk_keeps_what_it_held(tmpfs_allowed, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "first.md").write_text("# First\n\nThe first tide table.\n", encoding="utf-8")
    more = tmp_path / "more"
    more.mkdir()
    (more / "second.md").write_text(
        "# Second\n\n" + "\n\n".join(f"Second ledger line {i}." for i in range(3000)),
        encoding="utf-8",
    )
    result = run_on_tmpfs(
        tmp_path / "mnt",
        "120m",
        f"""
$DEEPREAD ingest '{folder}' --store "$MNT/store" >/dev/null 2>&1; echo "first=$?"
free=$(df -k "$MNT" | awk 'NR==2 {{print $4}}')
head -c $(( (free - 24000) * 1024 )) /dev/zero > "$MNT/filler"
$DEEPREAD ingest '{more}' --store "$MNT/store"; echo "second=$?"
rm "$MNT/filler"
$DEEPREAD toc --store "$MNT/store" --json; echo "toc=$?"
""",
    )

    out = result.stdout
    assert "first=0" in out and "second=3" in out and "toc=0" in out, out + result.stderr
    assert "no space left on" in result.stderr and "killed by" not in result.stderr
    toc = json.loads(out.split("second=3\n")[1].split("toc=0")[0])
    assert [d["title"] for d in toc["documents"]] == ["First"]


def test_a_bus_error_is_reported_in_one_line(long_folder, tmp_path):
    proc = subprocess.Popen(
        [*deepread_command(), "ingest", str(long_folder), "--store", str(tmp_path / "store")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    proc.stderr.readline()  # the run is under way (a progress line)
    proc.send_signal(signal.SIGBUS)  # what a mapped page the disk cannot back raises
    rest = proc.stderr.read()

    assert proc.wait(timeout=60) == -signal.SIGBUS
    # Files stored before the signal lands may still report progress (parse workers
    # make them quick); after those, the report is one line, and it is the last.
    *progress, last = rest.strip().splitlines()
    assert all(line.split()[0] in ("stored", "skip") for line in progress), progress
    assert last == (
        "deepread: the process was killed by a bus error: most likely the disk holding "
        "the store is full; free some space and re-run (documents already stored are "
        "kept whole)"
    )


# -- 7. signals -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve files of 120 paragraphs: an ingest that is still running after its first
    document is stored."""
    folder = tmp_path_factory.mktemp("long") / "docs"
    folder.mkdir()
    for i in range(12):
        paragraphs = [
            f"Entry {j} of ledger {i}: the vessel berthed at quay {j % 7} with "
            f"cargo of {j * 3} crates, pilot on board, tide rising."
            for j in range(120)
        ]
        (folder / f"ledger{i:02d}.md").write_text(
            f"# Ledger {i}\n\n" + "\n\n".join(paragraphs), encoding="utf-8"
        )
    return folder


@pytest.mark.parametrize(
    "signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_mid_ingest_ends_with_one_line_and_a_rerun_completes_it(
    long_folder, tmp_path, signum, code
):
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [*deepread_command(), "ingest", str(long_folder), "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:  # progress lines, one per file event
        lines.append(line)
        if line.lstrip().startswith("stored"):
            break
    proc.send_signal(signum)
    _, rest = proc.communicate(timeout=300)
    returncode = proc.returncode

    assert returncode == code, "".join(lines) + rest
    assert "Traceback" not in rest
    last = rest.strip().splitlines()[-1]
    assert re.fullmatch(
        r"deepread: interrupted; (\d+) of 12 files stored \((\d+) of (\d+) pages\), each "
        r"whole; the same command again stores the other (\d+) and skips those already in",
        last,
    ), rest
    stored_before = int(re.search(r"(\d+) of 12", last).group(1))  # type: ignore[union-attr]
    with deepread.Index.open(store=store) as idx:
        assert len(idx.documents()) == stored_before
        idx.ingest([long_folder])  # the re-run
        docs = idx.documents()
        assert len(docs) == 12 and len({d.source for d in docs}) == 12
        assert all(idx.collection.count_paragraphs(d.doc_id) == d.n_para == 120 for d in docs)


def test_a_signal_during_ingest_force_says_to_rerun_with_force(long_folder, tmp_path):
    """A plain re-run after an interrupted ``--force`` calls the files not yet done
    "unchanged" and keeps their earlier parse, so the line must name ``--force``."""
    store = tmp_path / "store"
    with deepread.Index.open(store=store) as idx:
        idx.ingest([long_folder])
    proc = subprocess.Popen(
        [*deepread_command(), "ingest", str(long_folder), "--force", "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.lstrip().startswith("stored"):
            break
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=300)

    assert proc.returncode == 143, "".join(lines) + rest
    last = rest.strip().splitlines()[-1]
    assert re.fullmatch(
        r"deepread: interrupted; \d+ of 12 files stored again, the others "
        r"keep their earlier parse; re-run with --force to continue",
        last,
    ), rest


def test_a_question_over_the_cap_exits_2_naming_the_cap(hostile, capsys, monkeypatch):
    monkeypatch.setenv("DEEPREAD_MAX_QUESTION_CHARS", "100")

    code, _, err = run(capsys, "ask", "why? " * 30, "--store", hostile[1])

    assert code == 2
    assert "the question is 150 characters; at most 100 are accepted" in err
