"""A retrieve page holds the k best hits and, while it stays within ``page_tokens``,
the next ones, up to 2k (nodes/tools/retrieve.py): short hits fill a page, long ones do not."""

from __future__ import annotations

from support.scripted import ScriptedChatModel, ai, call, last_tool_message, shown_coords

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.text.tokens import count_tokens


def first_page(index, **context) -> tuple[int, list[tuple[int, int, int]]]:
    """The tokens and coordinates of one ``retrieve`` page run with ``context``."""
    model = ScriptedChatModel(
        steps=[ai(call("retrieve", {"query": "paragraph about"})), ai(content="Done.")]
    )
    build_graph(index=index, model=model).invoke({"question": "q"}, context=Context(**context))
    page = last_tool_message(model.calls[1])
    return count_tokens(page.content), shown_coords(page)


def test_a_page_of_short_hits_goes_on_with_the_next_best_up_to_twice_k(shapes) -> None:
    assert len(first_page(shapes, k=2, page_tokens=0)[1]) == 2
    _, filled = first_page(shapes, k=2, page_tokens=10_000)
    assert filled == first_page(shapes, k=4, page_tokens=0)[1]


def test_the_fill_stops_before_the_hit_that_would_pass_page_tokens(shapes) -> None:
    three, _ = first_page(shapes, k=3, page_tokens=0)
    four, _ = first_page(shapes, k=4, page_tokens=0)
    assert three < four
    tokens, kept = first_page(shapes, k=2, page_tokens=four - 1)
    assert len(kept) == 3 and tokens <= four - 1


def test_a_page_whose_k_hits_pass_page_tokens_shows_exactly_k(shapes) -> None:
    assert len(first_page(shapes, k=3, page_tokens=1)[1]) == 3
