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


def _stored_vectors(idx: deepread.Index) -> tuple[list[str], np.ndarray]:
    """Every stored paragraph's search text (what ingest embeds) and dense vector."""
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
    taught = TaughtVectors(local_embeddings(), teach_at=2)
    taught(["Walruses rest on ice floes.", "Narwhals have one long tooth."])
    assert taught.ready
    taught.teach()
    text = "zebra graze"  # no token of it was taught
    vectors = taught([text])
    np.testing.assert_allclose(vectors[0], local_embeddings().embed_array([text])[0], atol=1e-6)
    assert (taught.by_model, taught.by_table) == (3, 0)


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
