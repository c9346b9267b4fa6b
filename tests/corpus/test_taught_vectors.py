"""A long ingest embeds its first paragraphs with the model and the rest with a table the
model taught on them; a short one, or one asked for exact vectors, uses the model alone
(deepread/corpus/taught_vectors.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import deepread
from deepread.corpus import taught_vectors
from deepread.corpus.taught_vectors import TaughtVectors
from deepread.stores.embeddings import local_embeddings

PAGES = ("library-json.html", "tutorial-classes.html", "howto-descriptor.html")


def _stored_vectors(idx: deepread.Index, source: str = "") -> tuple[list[str], np.ndarray]:
    """Every stored paragraph's search text (what ingest embeds) and dense vector (of the
    document whose file is named ``source`` only, when given)."""
    import qdrant_edge as qe

    from deepread.stores.search_text import search_text

    shard = idx.collection.backend._door()  # (this process holds it: the shard itself)
    request = qe.ScrollRequest(limit=100_000, with_payload=True, with_vector=True)
    records, more = shard._run(lambda: shard._engine.scroll(request))
    assert more is None  # (one page holds a test's collection)
    payloads = [r.payload or {} for r in records]
    titles = {
        (p["doc_id"], s["sec_id"]): s["title"]
        for p in payloads
        if p.get("record") == "document"
        for s in p["document"]["sections"]
    }
    found = [(p, r.vector) for p, r in zip(payloads, records, strict=True) if "text" in p]
    if source:
        [doc_id] = [d.doc_id for d in idx.documents() if Path(d.source).name == source]
        found = [(p, v) for p, v in found if p["doc_id"] == doc_id]
    texts = [
        search_text(p["text"], p["kind"], titles.get((p["doc_id"], p["sec_id"]), ""))
        for p, _ in found
    ]
    return texts, np.stack([np.asarray(v["dense"], np.float32) for _, v in found])


@pytest.fixture
def pages(devset: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in PAGES:
        shutil.copy(devset / "docs" / name, folder / name)
    return folder


def test_an_ingest_past_teach_at_embeds_the_rest_with_a_table_near_the_model(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([pages])
        assert result.texts_by_table > 0
        texts, stored = _stored_vectors(idx)
    model = local_embeddings().embed_array(texts)
    similarity = stored @ model.T
    exact = np.isclose(np.diag(similarity), 1.0, atol=1e-5)
    # the model's vectors for the first paragraphs, the table's (near, not equal) after
    assert exact.sum() >= 150
    # (a repeated text takes its first vector, the table's or the model's)
    repeats = result.texts_repeated
    assert result.texts_by_table <= (~exact).sum() <= result.texts_by_table + repeats
    # Taught from 150 paragraphs only, a table vector still lies nearer its own
    # paragraph's model vector than most paragraphs' (from 20,000:
    # docs/history/benchmarks-2026.md §30).
    ranks = [(similarity[i] > similarity[i, i]).sum() for i in np.flatnonzero(~exact)]
    assert np.median(ranks) < len(texts) / 4


def test_exact_vectors_keep_the_model_for_every_paragraph(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([pages], exact_vectors=True)
        texts, stored = _stored_vectors(idx)
    assert result.texts_by_table == 0
    np.testing.assert_allclose(stored, local_embeddings().embed_array(texts), atol=1e-5)


def test_an_ingest_shorter_than_teach_at_uses_the_model_alone(pages: Path, tmp_path: Path) -> None:
    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([pages])
    assert result.texts_embedded > 200
    assert result.texts_by_table == 0


def test_a_text_the_table_was_not_taught_is_embedded_by_the_model() -> None:
    taught = TaughtVectors(local_embeddings(), teach_at=40)
    animals = ["walruses", "narwhals", "seals", "orcas", "puffins"]
    places = ["ice floes", "the fjord", "rocky shores", "open water", "the harbour"]
    taught([f"The {a} rest on {p} in winter." for a in animals for p in places])
    taught([f"Young {a} swim near {p} at dawn." for a in animals for p in places])
    assert taught.ready
    taught.teach()
    text = "zebra graze"  # no token of it was taught
    vectors = taught([text])
    np.testing.assert_allclose(vectors[0], local_embeddings().embed_array([text])[0], atol=1e-6)
    assert taught.by_table == 0


def test_the_cli_says_when_it_teaches_the_table(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from deepread import cli

    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    assert cli.main(["ingest", str(pages), "--store", str(tmp_path / "s"), "--workers", "1"]) == 0
    assert "teaching a table from the model's vectors of" in capsys.readouterr().err


def test_the_cli_with_exact_vectors_teaches_no_table(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from deepread import cli

    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    argv = ["ingest", str(pages), "--store", str(tmp_path / "s"), "--workers", "1"]
    assert cli.main([*argv, "--exact-vectors"]) == 0
    assert "teaching a table" not in capsys.readouterr().err


# -- a table no file can poison, nor a later document mis-teach (issue 50 §1) -----------------

STOP = "the of and to in a is that for it as was with be by on not he this are or his".split()


def stop_word_files(folder: Path, files: int, lines: int) -> list[Path]:
    """Markdown files of distinct one-line stop-word paragraphs (issue 50's poison): line
    ``n`` is twelve stop-words from the ``n``-th on, then ``n`` itself."""
    folder.mkdir()
    words = STOP * 2
    for f in range(files):
        numbers = range(10_000 + f * lines, 10_000 + (f + 1) * lines)
        text = "\n\n".join(f"{' '.join(words[n % 21 : n % 21 + 12])} {n} ." for n in numbers)
        (folder / f"{f:02d}-notes.md").write_text(text + "\n", encoding="utf-8")
    return sorted(folder.iterdir())


def test_files_of_stop_words_first_cannot_make_the_table_embed_a_later_document(
    devset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    poison = stop_word_files(tmp_path / "poison", files=3, lines=60)
    later = devset / "docs" / "library-json.html"

    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        # one parse process, as the CLI tests here: files reach the embedder in the order
        # given, so the poison is what the table is taught on (with two, the order follows
        # the machine's load: one full run at -n auto found no teaching at all)
        result = idx.ingest_report([*poison, later], workers=1)
        texts, stored = _stored_vectors(idx, source=later.name)

    model = local_embeddings().embed_array(texts)
    np.testing.assert_allclose((stored * model).sum(1), 1.0, atol=1e-5)
    assert result.texts_by_table == 0
    [check] = result.table_checks
    assert not check.used  # its stop-words carry no vector: held back, it embeds none


def test_the_cli_says_when_the_table_fails_its_check_and_the_model_embeds_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from deepread import cli

    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    folder = tmp_path / "poison"
    stop_word_files(folder, files=3, lines=200)  # the first file alone teaches enough

    assert cli.main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--workers", "1"]) == 0
    said = capsys.readouterr().err
    assert "did not match the model on" in said and "the model embeds the rest" in said


def test_a_later_document_of_words_the_table_was_not_taught_is_embedded_by_the_model(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    other = tmp_path / "zz-syllabus.md"  # after the pages: the table is taught by then
    other.write_text(SYLLABUS, encoding="utf-8")

    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([pages, other])
        texts, stored = _stored_vectors(idx, source=other.name)

    assert result.texts_by_table > 0  # the pages' later paragraphs: the table's
    model = local_embeddings().embed_array(texts)
    exact = np.isclose((stored * model).sum(1), 1.0, atol=1e-5)
    assert exact.mean() >= 0.9, f"{(~exact).sum()} of {len(texts)} paragraphs by the table"
    assert result.table_checks and result.table_checks[0].used


#: A document of another kind than Python's documentation pages: a course's syllabus.
SYLLABUS = "# Marine Biology 210: Syllabus, Spring term\n\n" + "\n\n".join(
    f"## Week {w}: {topic}\n\n"
    f"In week {w} students read about {topic} and meet the teaching assistant on "
    f"Thursday afternoons. Grading: the quiz on {topic} counts for {w} percent of the "
    f"final grade; late homework loses ten percent per day.\n\n"
    f"Field trip {w} visits the {place} to observe {topic} in the wild; bring boots."
    for w, (topic, place) in enumerate(
        [
            ("kelp forests", "northern harbour"),
            ("coral reefs", "aquarium"),
            ("tidal pools", "rocky shore"),
            ("plankton blooms", "research pier"),
            ("seagrass meadows", "lagoon"),
            ("deep-sea vents", "museum"),
            ("whale migration", "lighthouse"),
            ("mangrove roots", "estuary"),
            ("sea otters", "bay"),
            ("jellyfish", "marina"),
        ],
        start=1,
    )
)


def test_what_teaches_the_table_is_drawn_across_the_documents() -> None:
    docs = np.array([0] * 1_000 + [1] * 30 + [2] * 30 + [3] * 30)

    chosen = taught_vectors.spread(docs, 120)

    assert np.bincount(docs[chosen]).tolist() == [30, 30, 30, 30]
    first = chosen[docs[chosen] == 0]
    assert first[0] == 0 and first[-1] == 999  # spread over the document, not its start


def test_a_table_below_the_floor_on_the_paragraphs_held_back_is_not_used(
    pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taught_vectors, "TEACH_AT", 150)
    monkeypatch.setattr(taught_vectors, "FLOOR", 0.99)  # no table reaches it

    with deepread.Index.open(store=str(tmp_path / "store"), collection="c") as idx:
        result = idx.ingest_report([pages])

    [check] = result.table_checks
    assert not check.used and check.held > 0 and 0.5 < check.cosine < 0.99
    assert result.texts_by_table == 0
    assert "cosine of" in check.why_not()
