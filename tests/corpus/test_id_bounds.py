"""Ids and counts out of range (issue 38 §7): every caller of the ``Index`` — Python, the
agent's tools, the LangChain tools — gets a clear error for a doc_id, section, ``k`` or
window no collection can hold, never the engine's conversion error or the store's path.

The store is real (qdrant-edge); the agent's model is scripted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread.graphs.agent import build_graph
from deepread.langchain_tools import tools
from deepread.records.errors import CoordinateError, StoreError, UsageError

TOP = 2**63 - 1
BEYOND = [-1, 2**63, 2**64, -(2**70)]


def leaks(text: str, index: deepread.Index) -> bool:
    """Whether ``text`` shows engine internals or where the store lies."""
    return any(s in text for s in ("Helper", "NumId", "OverflowError", "could not be used")) or (
        str(index.store) in text
    )


@pytest.mark.parametrize("doc_id", BEYOND)
@pytest.mark.parametrize(
    "use",
    [
        lambda idx, d: idx.document(d),
        lambda idx, d: idx.toc(d),
        lambda idx, d: idx.toc([1, d]),
        lambda idx, d: idx.read(d, 0),
        lambda idx, d: idx.read_section(d, 1),
        lambda idx, d: idx.search("apples", doc_id=d),
        lambda idx, d: idx.search("apples", doc_id=[1, d]),
        lambda idx, d: idx.find_documents("apples", [d]),
        lambda idx, d: idx.remove(d),
    ],
    ids=[
        "document",
        "toc",
        "toc-list",
        "read",
        "read_section",
        "search",
        "search-list",
        "find_documents",
        "remove",
    ],
)
def test_a_doc_id_out_of_range_is_a_usage_error_naming_the_range(
    shapes, doc_id: int, use: Callable[[deepread.Index, int], Any]
) -> None:
    with pytest.raises(UsageError) as caught:
        use(shapes, doc_id)

    assert str(caught.value).startswith(f"doc_id must be a whole number from 0 to {TOP} (got ")
    assert not leaks(str(caught.value), shapes)


@pytest.mark.parametrize("doc_id", [2**29, 2**40, TOP])
def test_a_doc_id_in_range_that_no_document_can_have_is_not_there(shapes, doc_id: int) -> None:
    for use in (
        lambda: shapes.document(doc_id),
        lambda: shapes.read(doc_id, 0),
        lambda: shapes.search("apples", doc_id=doc_id),
        lambda: shapes.remove(doc_id),
    ):
        with pytest.raises(CoordinateError) as caught:
            use()
        assert f"no document {doc_id} in collection 'shapes' (documents: 1)" in str(caught.value)


@pytest.mark.parametrize(
    ("use", "says"),
    [
        (lambda idx: idx.read(1, 2.0), "sec_id must be a whole number"),  # type: ignore[arg-type]
        (lambda idx: idx.search("apples", k=2**64), f"k must be a whole number from 1 to {TOP}"),
        (
            lambda idx: idx.search("apples", window=(2**64, 0)),
            f"window sizes must be whole numbers from 0 to {TOP}",
        ),
        (lambda idx: idx.read(True, 1), "doc_id must be a whole number"),
        (lambda idx: idx.read("1", 1), "doc_id must be a whole number"),  # type: ignore[arg-type]
        (lambda idx: idx.read(1, 1, 0, 2.5), "end must be a whole number"),  # type: ignore[arg-type]
    ],
)
def test_sections_counts_and_windows_out_of_range_are_usage_errors(shapes, use, says) -> None:
    with pytest.raises(UsageError) as caught:
        use(shapes)

    assert says in str(caught.value)


@pytest.mark.parametrize("sec_id", [-1, 2**64])
def test_a_section_that_is_not_there_is_named_with_the_valid_range(shapes, sec_id) -> None:
    with pytest.raises(
        CoordinateError, match=rf"document 1 has no section {sec_id} \(valid: 0\.\.4\)"
    ):
        shapes.read(1, sec_id)


def test_a_read_past_either_end_is_still_clipped_to_the_section(shapes) -> None:
    read = shapes.read(1, 2, -(2**70), 2**70)

    assert (read.start, read.end) == (0, 4)


@pytest.mark.parametrize("doc_id", [-1, 2**64])
def test_the_agents_tools_answer_a_doc_id_out_of_range_with_an_error_it_can_act_on(
    shapes, doc_id: int
) -> None:
    model = ScriptedChatModel(
        steps=[
            ai(
                call("read_section", {"doc_id": doc_id, "sec_id": 0, "start": 0, "end": 3}),
                call("retrieve", {"query": "apples", "doc_id": doc_id}),
            ),
            ai(content="No such document."),
        ]
    )

    out = build_graph(index=shapes, model=model).invoke({"question": "Which fruit?"})

    results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert out["stop_reason"] == "answered"
    assert [m.status for m in results] == ["error", "error"]
    for m in results:
        assert f"doc_id must be a whole number from 0 to {TOP}" in str(m.content)
        assert not leaks(str(m.content), shapes)


@pytest.mark.parametrize("doc_id", [-1, 2**64])
def test_the_langchain_tools_answer_a_doc_id_out_of_range_with_a_tool_error(
    shapes, doc_id: int
) -> None:
    made = {t.name: t for t in tools(shapes, memory=False)}

    for name, args in [
        ("read_section", {"doc_id": doc_id, "sec_id": 0, "start": 0, "end": 3}),
        ("retrieve", {"query": "apples", "doc_id": doc_id}),
        ("toc", {"doc_id": doc_id}),
    ]:
        answer = made[name].invoke({"name": name, "args": args, "type": "tool_call", "id": "c1"})
        assert answer.status == "error", answer.content
        assert "doc_id must be a whole number" in str(answer.content)
        assert not leaks(str(answer.content), shapes)


def test_no_store_error_is_raised_for_any_id_of_the_integer_range(shapes) -> None:
    # The engine holds ids in 64 bits: nothing inside the accepted range may reach it
    # as a conversion error.
    for doc_id in (0, 2**29 - 1, 2**29, 2**34, 2**62, TOP):
        try:
            shapes.read(doc_id, 0)
        except CoordinateError:
            pass
        except StoreError as exc:  # pragma: no cover - the failure this test is for
            pytest.fail(f"doc_id {doc_id}: {exc}")


#: Calls naming a document, section or paragraph by true or false (issue 50 §5): pydantic's
#: lax mode read ``doc_id: true`` as document 1.
BOOLEAN_CALLS = [
    ("read_section", {"doc_id": True, "sec_id": 0, "start": 0, "end": 3}),
    ("read_section", {"doc_id": 1, "sec_id": True, "start": 0, "end": 3}),
    ("read_section", {"doc_id": 1, "sec_id": 0, "start": False, "end": True}),
    ("retrieve", {"query": "apples", "doc_id": True}),
    ("retrieve", {"query": "apples", "doc_id": [1, True]}),
]


@pytest.mark.parametrize("memory", [True, False])
@pytest.mark.parametrize(("name", "args"), [*BOOLEAN_CALLS, ("toc", {"doc_id": True})])
def test_the_langchain_tools_refuse_true_or_false_where_an_id_is_expected(
    shapes, memory: bool, name: str, args: dict[str, Any]
) -> None:
    made = {t.name: t for t in tools(shapes, memory=memory)}

    answer = made[name].invoke({"name": name, "args": args, "type": "tool_call", "id": "c1"})

    assert answer.status == "error", answer.content
    assert "whole number" in str(answer.content) and "apple" not in str(answer.content).lower()


def test_the_agents_tools_refuse_true_or_false_where_an_id_is_expected(shapes) -> None:
    model = ScriptedChatModel(
        steps=[ai(*(call(name, args) for name, args in BOOLEAN_CALLS)), ai(content="None.")]
    )

    out = build_graph(index=shapes, model=model).invoke({"question": "Which fruit?"})

    results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [m.status for m in results] == ["error"] * len(BOOLEAN_CALLS)
    assert all("whole number" in str(m.content) for m in results)
