"""The LLM path's answer shape: the system prompt asks for the answer first (one cited
sentence), then a few cited supporting sentences; ``finalize`` keeps the model's text as
written and lists its citations in the order they first appear, so the first citation is
the first sentence's.

Real store, parser, embeddings and graph; only the chat model is scripted, emitting real
tool calls.
"""

from __future__ import annotations

from support.scripted import ScriptedChatModel, ai, call
from support.scripted import read_call as read
from support.scripted import section_of as section

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context


def test_the_answer_opens_with_the_models_first_sentence_and_its_citation_comes_first(shapes):
    doc, sec = section(shapes, "Five")
    first = f"Cherries are the subject of the third paragraph [{doc}:{sec}:2]."
    # the supporting sentences cite paragraphs that come before it in the document
    rest = f"Apples open the section [{doc}:{sec}:0]; bananas follow them [{doc}:{sec}:1]."
    model = ScriptedChatModel(
        steps=[
            ai(call("retrieve", {"query": "cherries"})),
            ai(read((doc, sec), 0, 4)),
            ai(content=f"{first} {rest}"),
        ]
    )
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "Which paragraph is about cherries?"}, context=Context())

    assert "Write the answer first" in model.calls[0][0].content
    assert out["answer"].startswith(first)
    assert [(c["doc_id"], c["sec_id"], c["para_idx"]) for c in out["citations"]] == [
        (doc, sec, 2),
        (doc, sec, 0),
        (doc, sec, 1),
    ]
