"""``deepread eval`` end to end on two small Markdown files: every mode offline, scripted
policy and judge models, resumption after a kill, flat chunk baselines, ``synth``, and
the CLI's exit codes. The store, parsers and embeddings are real; models are scripted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from support.documents import SHAPES_MD
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread import cli
from deepread.evaluation import EvalConfig, run_eval
from deepread.evaluation.chunks import chunk_collection
from deepread.evaluation.records import trajectory_path
from deepread.evaluation.synth import synthesize
from deepread.extractive.policy import NOTICE
from deepread.nodes.sufficiency.support import ABSTENTION

VEG_MD = """\
# Vegetables

## Roots

Carrots are orange roots that store sugar.

Beets are red roots used for sugar as well.

## Leaves

Spinach is a leafy green rich in iron.
"""

QUESTIONS = [
    {
        "id": "q1",
        "type": "fact",
        "question": "Which paragraph talks about bananas?",
        "answer": "Bravo",
        "evidence": [{"doc": "shapes.md", "quote": "Bravo paragraph about bananas."}],
    },
    {
        "id": "q2",
        "type": "list",
        "question": "Which fruits does the Five section list?",
        "answer": "apples, bananas, cherries, dates, elderberries",
        "evidence": [
            {"doc": "shapes.md", "quote": f"{w} paragraph about {f}."}
            for w, f in (("Alpha", "apples"), ("Charlie", "cherries"), ("Echo", "elderberries"))
        ],
    },
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[deepread.Index, Path]:
    root = tmp_path_factory.mktemp("eval")
    (root / "shapes.md").write_text(SHAPES_MD, encoding="utf-8")
    (root / "veg.md").write_text(VEG_MD, encoding="utf-8")
    dataset = root / "questions.jsonl"
    dataset.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    idx = deepread.Index.open(store=root / "store", collection="fruit")
    idx.ingest([root / "shapes.md", root / "veg.md"])
    yield idx, dataset
    idx.close()


def locate_then_read(messages: list[BaseMessage]) -> AIMessage:
    """Retrieve, read the best hit's whole section, answer citing nothing."""
    turn = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    results = [m for m in messages[turn:] if isinstance(m, ToolMessage)]
    if not results:
        return ai(call("retrieve", {"query": "paragraph about fruit"}), usage=(100, 10))
    if len(results) == 1:
        hit = results[0].artifact["hits"][0]
        return ai(
            call(
                "read_section",
                {"doc_id": hit["doc_id"], "sec_id": hit["sec_id"], "start": 0, "end": 99},
            ),
            usage=(200, 10),
        )
    return ai(content="Alpha, Bravo, Charlie, Delta, Echo.", usage=(300, 20))


def records(out: Path, variant: str) -> dict[str, dict[str, Any]]:
    lines = trajectory_path(out, variant).read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def run(corpus, out: Path, **kwargs: Any):
    idx, dataset = corpus
    models = {k: kwargs.pop(k) for k in ("model", "judge_model") if k in kwargs}
    kwargs.setdefault("plots", False)
    config = EvalConfig(dataset=dataset, collection="fruit", out=out, workers=1, **kwargs)
    return run_eval(config, index=idx, progress=False, **models)


def test_scripted_locate_then_read_is_measured_and_judged(corpus, tmp_path):
    policy = ScriptedChatModel(steps=[locate_then_read], cycle=True)
    judge = ScriptedChatModel(
        steps=[AIMessage(content="**True**"), AIMessage(content="False")], cycle=True
    )
    result = run(corpus, tmp_path, modes=("deepread",), model=policy, judge_model=judge, plots=True)
    assert (result.ran, result.skipped, result.failures) == (2, 0, [])
    got = records(tmp_path, "deepread")
    for r in got.values():
        m = r["metrics"]
        assert [c["name"] for c in r["tool_calls"]] == ["retrieve", "read_section"]
        assert (m["s_to_r"], m["cs_cr"], m["first_action"], m["rounds"]) == (
            True,
            1.0,
            "retrieve",
            3,
        )
        assert (m["input_tokens"], m["output_tokens"], m["tokens_estimated"]) == (600, 40, False)
        assert m["evidence_read"] == 1.0  # the whole "Five" section was read
        assert m["observation_tokens"] == sum(o["tokens"] for o in r["observations"]) > 0
        assert r["observations"][1]["tool"] == "read_section"
    assert sorted(m["metrics"]["judge"] for m in got.values()) == [False, True]
    overall = result.summary["variants"]["deepread"]["overall"]
    assert (overall["accuracy"], overall["s_to_r"], overall["cs_cr"]) == (0.5, 1.0, 1.0)
    assert set(result.summary["variants"]["deepread"]["by_type"]) == {"fact", "list"}
    for name in ("summary.json", "summary.md", "behaviour.png", "evidence.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "| deepread | 100.0 | 1.00 | 100.0 |" in (tmp_path / "summary.md").read_text()


def test_every_mode_runs_offline_with_the_extractive_policy(corpus, tmp_path):
    result = run(corpus, tmp_path, expand=True)
    assert result.failures == [] and result.ran == 8
    variants = result.summary["variants"]
    assert list(variants) == [
        "deepread+expand",
        "search-o1+expand",
        "read-only+expand",
        "dense-rag",
    ]
    for variant in variants:
        for r in records(tmp_path, variant).values():
            # Read-only reads the preamble for q1, which supports no answer: the
            # sufficiency check (nodes/sufficiency/support.py) makes it abstain.
            abstains = (variant, r["id"]) == ("read-only+expand", "q1")
            assert r["settings"]["model"] == "extractive"
            assert r["stop_reason"] == ("no_evidence" if abstains else "answered")
            if variant != "dense-rag":
                # the policy's answer opens with what it found (its label is the
                # message's), or with the abstention
                assert NOTICE not in r["answer"]
                assert r["answer"].startswith(ABSTENTION) == abstains, r["answer"]
    assert records(tmp_path, "deepread+expand")["q1"]["settings"]["window"] == [1, 1]
    assert variants["read-only+expand"]["overall"]["evidence_located"] == 0.0  # never retrieves
    assert variants["search-o1+expand"]["overall"]["cs_cr"] == float("inf")
    assert variants["dense-rag"]["overall"]["evidence_read"] == 1.0  # the docs are 1 chunk each
    assert variants["dense-rag"]["overall"]["s_to_r"] is None
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["variants"]["search-o1+expand"]["overall"]["cs_cr"] == "inf"


def test_a_killed_run_resumes_with_the_unfinished_questions(corpus, tmp_path):
    first = run(corpus, tmp_path, modes=("deepread",))
    assert first.ran == 2
    path = trajectory_path(tmp_path, "deepread")
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # killed mid-write
    done = next(json.loads(line)["id"] for line in lines[:1])
    policy = ScriptedChatModel(steps=[locate_then_read], cycle=True)
    again = run(corpus, tmp_path, modes=("deepread",))
    assert (again.ran, again.skipped) == (1, 1)
    assert set(records(tmp_path, "deepread")) == {"q1", "q2"}
    assert records(tmp_path, "deepread")[done] == json.loads(lines[0])  # kept, not re-run
    # nothing left: no question runs; a judge given now judges the old answers only
    judge = ScriptedChatModel(steps=[AIMessage(content="True")], cycle=True)
    judged = run(corpus, tmp_path, modes=("deepread",), model=None, judge_model=judge)
    assert (judged.ran, judged.skipped, len(judge.calls)) == (2, 0, 2)
    assert policy.calls == []
    assert judged.summary["variants"]["deepread"]["overall"]["accuracy"] == 1.0
    assert run(corpus, tmp_path, modes=("deepread",), judge_model=judge).ran == 0
    # another configuration (k) is another experiment: everything re-runs
    assert run(corpus, tmp_path, modes=("deepread",), k=3).ran == 2


def test_a_resumed_run_re_answers_an_item_whose_question_or_gold_changed(corpus, tmp_path):
    idx, _ = corpus
    dataset = tmp_path / "questions.jsonl"

    def write(items: list[dict[str, Any]]) -> None:
        dataset.write_text("".join(json.dumps(q) + "\n" for q in items), encoding="utf-8")

    def again() -> tuple[int, int]:
        result = run((idx, dataset), tmp_path / "out", modes=("deepread",))
        return result.ran, result.skipped

    write(QUESTIONS)
    assert again() == (2, 0)
    write([{**QUESTIONS[0], "answer": "Bravo, about bananas"}, QUESTIONS[1]])  # gold changed
    assert again() == (1, 1)
    assert records(tmp_path / "out", "deepread")["q1"]["gold"]["answer"] == "Bravo, about bananas"
    write(
        [QUESTIONS[0] | {"answer": "Bravo, about bananas"}, {**QUESTIONS[1], "question": "Figs?"}]
    )
    assert again() == (1, 1)
    assert records(tmp_path / "out", "deepread")["q2"]["question"] == "Figs?"
    evidence = [{"doc": "shapes.md", "quote": "Only paragraph about figs."}]
    write(
        [
            QUESTIONS[0] | {"answer": "Bravo, about bananas"},
            {**QUESTIONS[1], "question": "Figs?", "evidence": evidence},
        ]
    )
    assert again() == (1, 1)  # the gold evidence is part of the item too
    assert again() == (0, 2)  # nothing changed: nothing re-runs


def test_eval_of_a_line_nested_too_deeply_exits_2_naming_it(tmp_path, capsys):
    dataset = tmp_path / "deep.jsonl"
    dataset.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")

    code = cli.main(["eval", str(dataset), "--store", str(tmp_path / "store")])

    err = capsys.readouterr().err
    assert code == 2
    assert f"{dataset}:1: JSON nested too deeply" in err
    assert "Traceback" not in err and "RecursionError" not in err


def test_an_interrupted_run_starts_no_further_question_and_keeps_the_finished_ones(
    corpus, tmp_path
):
    idx, _ = corpus
    dataset = tmp_path / "many.jsonl"
    dataset.write_text(
        "".join(
            json.dumps({**QUESTIONS[0], "id": f"q{i}", "question": f"Bananas, part {i}?"}) + "\n"
            for i in range(6)
        ),
        encoding="utf-8",
    )
    asked: list[str] = []

    def interrupt_on_the_second(messages: list[BaseMessage]) -> AIMessage:
        question = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
        asked.append(question)
        if "part 1" in question:
            raise KeyboardInterrupt  # Ctrl-C while the second question runs
        return locate_then_read(messages)

    policy = ScriptedChatModel(steps=[interrupt_on_the_second], cycle=True)
    with pytest.raises(KeyboardInterrupt):
        run_eval(
            EvalConfig(
                dataset=dataset,
                collection="fruit",
                out=tmp_path / "out",
                workers=1,
                modes=("deepread",),
                plots=False,
            ),
            index=idx,
            model=policy,
            progress=False,
        )
    # The questions still queued were never started; the one the worker may have taken
    # up meanwhile ran to its end and, like the first, was written: a resume skips both.
    started = {f"q{q.split('part ')[1][0]}" for q in asked}
    assert {"q0", "q1"} <= started <= {"q0", "q1", "q2"}
    assert set(records(tmp_path / "out", "deepread")) == started - {"q1"}


def test_a_context_default_from_the_environment_is_recorded_and_applied(
    corpus, tmp_path, monkeypatch
):
    first = run(corpus, tmp_path, modes=("deepread",))
    assert records(tmp_path, "deepread")["q1"]["settings"]["context"]["k"] == 5
    monkeypatch.setenv("DEEPREAD_K", "2")
    monkeypatch.setenv("DEEPREAD_PAGE_TOKENS", "0")  # exactly k hits a page, no fill-up
    monkeypatch.setenv("DEEPREAD_SUPPORT_THRESHOLD", "0.5")
    # the environment changed the experiment: a resumed run re-answers every question
    again = run(corpus, tmp_path, modes=("deepread",))
    assert (first.ran, again.ran, again.skipped) == (2, 2, 0)
    settings = records(tmp_path, "deepread")["q1"]["settings"]
    assert (settings["k"], settings["context"]["support_threshold"]) == (2, 0.5)
    hits = next(
        o["hits"] for o in records(tmp_path, "deepread")["q1"]["observations"] if "hits" in o
    )  # after find_documents: the corpus holds several documents
    assert len(hits) == 2


def test_flat_baselines_fill_the_budget_and_answer_from_the_chunks(corpus, tmp_path):
    idx, _ = corpus
    said: list[str] = []
    policy = ScriptedChatModel(steps=[ai(content="bananas", usage=(55, 5))], cycle=True)
    result = run_eval(
        EvalConfig(
            dataset=corpus[1],
            collection="fruit",
            out=tmp_path,
            workers=2,
            modes=("flat-20@60", "dense-rag"),
            plots=False,
        ),
        index=idx,
        model=policy,
        progress=False,
        say=said.append,
    )
    assert result.failures == []
    assert any("20-token chunk index" in s for s in said)
    flat = records(tmp_path, "flat-20@60")
    assert flat  # else the checks below check nothing
    for r in flat.values():
        assert r["answer"] == "bananas" and r["tool_calls"] == []
        assert (r["metrics"]["input_tokens"], r["metrics"]["tokens_estimated"]) == (55, False)
        assert 0 < len(r["observations"][0]["shown"]) <= 3  # chunks of 20 tokens, 60 budget
    prompt = str(policy.calls[0][1].content)
    assert prompt.startswith("Passages:\n\n[1] (") and "Question: " in prompt
    chunks = deepread.Index.open(idx.store, chunk_collection("fruit", 20))
    try:
        assert sorted(Path(d.source).name for d in chunks.documents()) == ["shapes.md", "veg.md"]
    finally:
        chunks.close()
    said.clear()
    run_eval(
        EvalConfig(
            dataset=corpus[1],
            collection="fruit",
            out=tmp_path / "again",
            workers=1,
            modes=("flat-20@60",),
            plots=False,
        ),
        index=idx,
        progress=False,
        say=said.append,
    )
    assert not any("chunk index" in s for s in said)  # built once, reused


def test_synth_writes_multi_document_pairs(corpus):
    idx, _ = corpus
    reply = json.dumps(
        {"qas": [{"q": "Which root and which fruit start with B?", "a": "Beets and bananas"}]}
    )
    model = ScriptedChatModel(steps=[ai(content=reply)], cycle=True)
    items = synthesize(idx, model, n=2, docs=2)
    assert [i["id"] for i in items] == ["synth-0001", "synth-0002"]
    assert items[0]["type"] == "multi_doc" and sorted(items[0]["docs"]) == ["shapes.md", "veg.md"]
    user = str(model.calls[0][1].content)
    assert "# Vegetables" in user and "Bravo paragraph about bananas." in user
    assert "Generate exactly 2 QA pairs" in user


def test_cli_eval_and_synth_exit_codes(tmp_path, capsys, corpus):
    _, dataset = corpus
    store = tmp_path / "store"
    assert (
        cli.main(
            [
                "eval",
                str(dataset),
                "--store",
                str(store),
                "--collection",
                "none",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "is empty; ingest the documents first" in capsys.readouterr().err
    assert (
        cli.main(
            [
                "synth",
                "--store",
                str(store),
                "--collection",
                "none",
                "--out",
                str(tmp_path / "s.jsonl"),
            ]
        )
        == 2
    )
    assert "synth needs a chat model" in capsys.readouterr().err
    assert cli.main(["eval", str(dataset), "--store", str(store), "--mode", "nope"]) == 2
    assert "unknown mode" in capsys.readouterr().err
    src = tmp_path / "shapes.md"
    src.write_text(SHAPES_MD, encoding="utf-8")
    assert cli.main(["ingest", str(src), "--store", str(store), "--collection", "c", "--json"]) == 0
    capsys.readouterr()
    code = cli.main(
        [
            "eval",
            str(dataset),
            "--store",
            str(store),
            "--collection",
            "c",
            "--mode",
            "deepread",
            "--limit",
            "1",
            "--out",
            str(tmp_path / "o"),
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ran"] == 1 and out["questions"] == 1
    assert out["variants"]["deepread"]["overall"]["evidence_read"] == 1.0
