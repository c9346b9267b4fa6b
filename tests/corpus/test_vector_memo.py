"""A text an ingest embedded once is not embedded again: it takes the vector it got.

Filings of one company repeat whole paragraphs year after year, and a filing repeats its
own boilerplate; the ingest embeds each distinct text once per run
(deepread/corpus/vector_memo.py) and stores exactly the vector embedding it again would.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import deepread
from deepread.corpus.vector_memo import VectorMemo
from deepread.stores.embeddings import embed_texts, local_embeddings


class CountingEmbed:
    """The real local model, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return embed_texts(local_embeddings(), texts)


def test_a_repeated_text_is_embedded_once_and_gets_the_same_vector() -> None:
    embed = CountingEmbed()
    memo = VectorMemo()
    texts = [
        "Walruses rest on ice floes.",
        "Narwhals have one long tooth.",
        "Walruses rest on ice floes.",
    ]
    got = memo.vectors(texts, embed)
    assert embed.texts == texts[:2]
    np.testing.assert_array_equal(got, embed_texts(local_embeddings(), texts))


def test_a_text_seen_in_an_earlier_call_is_not_embedded_again() -> None:
    embed = CountingEmbed()
    memo = VectorMemo()
    first = memo.vectors(["Otters hold hands while they sleep."], embed)
    second = memo.vectors(["Seals sing underwater.", "Otters hold hands while they sleep."], embed)
    assert embed.texts == ["Otters hold hands while they sleep.", "Seals sing underwater."]
    np.testing.assert_array_equal(second[1], first[0])
    assert (memo.asked, memo.embedded) == (3, 2)


def test_a_forgotten_text_is_embedded_again_and_every_vector_stays_right() -> None:
    embed = CountingEmbed()
    memo = VectorMemo(limit=1)
    texts = ["Penguins cannot fly.", "Puffins can fly.", "Penguins cannot fly."]
    memo.vectors(texts[:2], embed)  # remembers only the last one
    got = memo.vectors(texts, embed)
    assert embed.texts == ["Penguins cannot fly.", "Puffins can fly.", "Penguins cannot fly."]
    np.testing.assert_array_equal(got, embed_texts(local_embeddings(), texts))


def test_no_texts_ask_nothing_of_the_model() -> None:
    embed = CountingEmbed()
    assert VectorMemo().vectors([], embed).shape[0] == 0
    assert embed.texts == []


def test_an_ingest_embeds_a_paragraph_two_files_share_once(tmp_path: Path) -> None:
    shared = "Every filing repeats this paragraph about forward-looking statements word for word."
    for year in (2021, 2022):
        (tmp_path / f"report-{year}.md").write_text(
            f"# Report {year}\n\nRevenue grew in {year} thanks to walrus sales.\n\n"
            f"## Risks\n\n{shared}\n",
            encoding="utf-8",
        )
    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([tmp_path])
        assert len(result.documents) == 2
        assert result.texts_repeated == 1
        hits = idx.retrieve("forward-looking statements word for word", k=2, mode="dense")
        assert sorted(Path(idx.document(h.doc_id).source).name for h in hits) == [
            "report-2021.md",
            "report-2022.md",
        ]
