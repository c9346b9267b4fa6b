"""LangChain's own standard tests (the ``langchain-tests`` package) on deepread's adapters.

What LangChain's integration packages run on their retrievers and tools, run here on
``Index.as_retriever()`` (``RetrieversIntegrationTests``) and on every tool of
``deepread.tools(idx)`` (``ToolsUnitTests`` and ``ToolsIntegrationTests``), their async
variants included (coroutines pytest-asyncio runs: ``asyncio_mode = "auto"`` in
pyproject.toml, as LangChain's packages set it). The store is real: the shipped
library-json page as HTML and PDF, ingested once per session (``devset_index``,
tests/conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

import deepread
from deepread.corpus.retriever import DeepReadRetriever

QUESTION = "How do I make json.dumps sort the keys of dictionaries?"

#: Arguments a model would give each tool, one call per tool of deepread.tools().
TOOL_CALLS: dict[str, dict[str, Any]] = {
    "retrieve": {"query": QUESTION},
    "read_section": {"doc_id": 1, "sec_id": 1, "start": 0, "end": 3},
    "toc": {"doc_id": 1},
    "find_documents": {"query": "the json module"},
}


class TestRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _index(self, devset_index: deepread.Index) -> None:
        self.index = devset_index

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return DeepReadRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"index": self.index}

    @property
    def retriever_query_example(self) -> str:
        return QUESTION


class _EachTool:
    """The standard tools tests, once per tool of ``deepread.tools(idx)``."""

    @pytest.fixture(autouse=True, params=sorted(TOOL_CALLS))
    def _tool(self, request: pytest.FixtureRequest, devset_index: deepread.Index) -> None:
        self.made = {t.name: t for t in deepread.tools(devset_index)}[request.param]
        self.example = TOOL_CALLS[request.param]

    @property
    def tool_constructor(self) -> BaseTool:
        return self.made

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return self.example


class TestToolsUnitStandard(_EachTool, ToolsUnitTests):
    pass


class TestToolsIntegrationStandard(_EachTool, ToolsIntegrationTests):
    pass


def test_the_standard_tests_cover_every_tool(devset_index: deepread.Index) -> None:
    assert {t.name for t in deepread.tools(devset_index)} == set(TOOL_CALLS)


@pytest.mark.parametrize("name", sorted(TOOL_CALLS))
def test_each_example_call_is_answered_not_refused(devset_index, name: str) -> None:
    # The standard tests only check the result's shape; the examples are real calls.
    tool = {t.name: t for t in deepread.tools(devset_index)}[name]

    result = tool.invoke({"name": name, "args": TOOL_CALLS[name], "id": "1", "type": "tool_call"})

    assert result.status == "success", result.content
    assert result.content.strip()


def test_k_window_and_documents_given_to_one_call_apply_to_it_only(devset_index) -> None:
    retriever = devset_index.as_retriever(k=4)

    assert len(retriever.invoke(QUESTION, k=1)) == 1
    [widened] = retriever.invoke(QUESTION, k=1, window=(0, 2))
    first, last = widened.metadata["paragraphs"]
    assert first == widened.metadata["para_idx"] and 0 < last - first <= 2
    assert {d.metadata["doc_id"] for d in retriever.invoke(QUESTION, documents=[2])} == {2}
    assert len(retriever.invoke(QUESTION)) == 4  # the retriever's own k again


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"k": 0}, "k must be a whole number from 1 to"),
        ({"window": (1, -1)}, "window must be (up, down) with both >= 0"),
        ({"top_k": 3}, "unexpected keyword argument 'top_k'"),
    ],
)
def test_a_bad_per_call_argument_is_refused_naming_it(devset_index, given, error) -> None:
    with pytest.raises((ValueError, TypeError)) as refused:
        devset_index.as_retriever().invoke(QUESTION, **given)

    assert error in str(refused.value)
