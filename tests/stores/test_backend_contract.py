"""One contract, two engines: the embedded store and the server store behave alike.

The server backend runs against qdrant-client's in-memory local mode, which speaks the
same client API as a real server (payload indexes are accepted there but ignored).
"""

from __future__ import annotations

import socket
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from support.sent_requests import sent_requests

from deepread.records.errors import StoreError
from deepread.stores.backend import Backend, PointData
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import Match
from deepread.stores.server import ServerBackend

DIM = 4
TEXTS = [
    "The contract sets out the payment terms for the invoice.",
    "Either party may end the agreement with written notice.",
    "The warranty covers defects for twelve months after delivery.",
    "A zeppelin clause governs airship deliveries to the warehouse.",
    "Payment is due within thirty days of the invoice date.",
    "Notice must be given in writing to the other party.",
]
# Unit-ish vectors pointing in distinct directions, so the nearest is unambiguous.
VECTORS = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
    [0.7, 0.7, 0.0, 0.0],
    [0.0, 0.7, 0.7, 0.0],
]


def paragraph(i: int) -> PointData:
    doc_id, para_idx = divmod(i, 3)  # two documents of three paragraphs
    return PointData(
        id=100 + i,
        dense=VECTORS[i],
        bm25_text=TEXTS[i],
        payload={
            "record": "paragraph",
            "doc_id": doc_id + 1,
            "sec_id": 1,
            "para_idx": para_idx,
            "live": 1,
            "text": TEXTS[i],
        },
    )


DOC_POINT = PointData(
    id=7,
    payload={"record": "document", "doc_id": 1, "title": "One", "text": "zeppelin payment notice"},
)
EVERYTHING = Match()
PARAGRAPHS = Match(equals={"record": "paragraph"})


@pytest.fixture(params=["edge", "server"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    engine: Backend
    if request.param == "edge":
        engine = EdgeBackend(tmp_path / "c")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "payload indexes have no effect" in local mode
            engine = ServerBackend(
                "http://in-memory", "c", client=QdrantClient(location=":memory:")
            )
    yield engine
    engine.close()


@pytest.fixture()
def filled(backend: Backend) -> Backend:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        backend.create(DIM)
    # Written out of order so ordering has to come from order_by, not insertion.
    backend.upsert([paragraph(i) for i in reversed(range(len(TEXTS)))] + [DOC_POINT])
    return backend


def test_a_collection_exists_once_created(backend: Backend) -> None:
    assert not backend.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        backend.create(DIM)
    assert backend.exists()


def test_using_a_missing_collection_raises_store_error(backend: Backend) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        backend.count(EVERYTHING)


def test_upsert_then_get_round_trips_the_payload(filled: Backend) -> None:
    assert filled.get([DOC_POINT.id]) == [DOC_POINT.payload]
    assert filled.get([100]) == [paragraph(0).payload]


def test_get_skips_unknown_ids(filled: Backend) -> None:
    assert filled.get([999_999]) == []


def test_large_ids_round_trip(backend: Backend) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        backend.create(DIM)
    big = (((1 << 29) - 1) << 34) | (1 << 32) | 5  # the largest ids schema.py can make
    backend.upsert([PointData(id=big, payload={"doc_id": 1}, dense=VECTORS[0])])
    assert backend.get([big]) == [{"doc_id": 1}]


def test_scroll_with_equals_and_range_returns_matches_ordered_by_para_idx(filled: Backend) -> None:
    match = Match(equals={"record": "paragraph", "doc_id": 2}, ranges={"para_idx": (1, 2)})
    rows = filled.scroll(match, limit=10, order_by="para_idx")
    assert [(r["doc_id"], r["para_idx"]) for r in rows] == [(2, 1), (2, 2)]


def test_scroll_returns_only_the_requested_fields(filled: Backend) -> None:
    rows = filled.scroll(PARAGRAPHS, limit=10, order_by="para_idx", fields=["para_idx"])
    assert rows and all(set(r) == {"para_idx"} for r in rows)
    assert [r["para_idx"] for r in rows] == sorted(r["para_idx"] for r in rows)


def test_scroll_respects_the_limit(filled: Backend) -> None:
    assert len(filled.scroll(PARAGRAPHS, limit=2)) == 2


def test_any_of_filter_matches_any_listed_value(filled: Backend) -> None:
    rows = filled.scroll(
        Match(equals={"record": "paragraph"}, any_of={"para_idx": (0, 2)}), limit=10
    )
    assert sorted((r["doc_id"], r["para_idx"]) for r in rows) == [(1, 0), (1, 2), (2, 0), (2, 2)]


def test_count_is_exact_under_a_filter(filled: Backend) -> None:
    assert filled.count(EVERYTHING) == len(TEXTS) + 1
    assert filled.count(PARAGRAPHS) == len(TEXTS)
    assert filled.count(Match(equals={"doc_id": 1})) == 4


def test_delete_by_filter_removes_only_the_matches(filled: Backend) -> None:
    filled.delete(Match(equals={"record": "paragraph", "doc_id": 1}))
    assert filled.count(PARAGRAPHS) == 3
    assert filled.get([DOC_POINT.id]) == [DOC_POINT.payload]


def test_set_payload_by_filter_can_then_be_filtered_on(filled: Backend) -> None:
    filled.set_payload(Match(equals={"doc_id": 2, "record": "paragraph"}), {"live": 0})
    assert filled.count(Match(equals={"record": "paragraph", "live": 1})) == 3
    rows = filled.scroll(Match(equals={"live": 0}), limit=10, order_by="para_idx")
    assert [(r["doc_id"], r["para_idx"]) for r in rows] == [(2, 0), (2, 1), (2, 2)]
    assert rows[0]["text"] == TEXTS[3]  # other keys are kept


def test_dense_query_returns_the_nearest_first(filled: Backend) -> None:
    hits = filled.query("dense", [0.1, 0.0, 0.9, 0.0], "", PARAGRAPHS, limit=3, candidates=10)
    assert hits[0].id == 102
    assert hits[0].payload["text"] == TEXTS[2]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_bm25_query_ranks_the_paragraph_with_a_rare_word_first(filled: Backend) -> None:
    hits = filled.query("bm25", None, "zeppelin payment", PARAGRAPHS, limit=3, candidates=10)
    assert hits[0].id == 103
    assert {h.id for h in hits} >= {100, 104}  # the "payment" paragraphs follow


def test_hybrid_query_fuses_dense_and_bm25_results(filled: Backend) -> None:
    # Dense points at paragraph 1; the text only matches paragraph 3.
    hits = filled.query("hybrid", VECTORS[1], "zeppelin", PARAGRAPHS, limit=6, candidates=2)
    ids = [h.id for h in hits]
    assert 101 in ids and 103 in ids
    assert all(0 < h.score < 1 for h in hits)  # RRF scores


def test_filters_apply_to_every_query_mode(filled: Backend) -> None:
    only_doc2 = Match(equals={"record": "paragraph", "doc_id": 2})
    for mode in ("dense", "bm25", "hybrid"):
        hits = filled.query(mode, VECTORS[0], "payment invoice", only_doc2, limit=10, candidates=10)
        assert hits, mode
        assert {h.payload["doc_id"] for h in hits} == {2}, mode


def test_payload_only_points_are_never_returned_by_queries(filled: Backend) -> None:
    for mode in ("dense", "bm25", "hybrid"):
        hits = filled.query(
            mode, VECTORS[0], "zeppelin payment notice", EVERYTHING, limit=50, candidates=50
        )
        assert hits, mode
        assert DOC_POINT.id not in {h.id for h in hits}, mode


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_server_is_a_clear_store_error_without_the_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "api key is used with an insecure connection"
        engine = ServerBackend(url, "c", api_key="s3cret-key-value", timeout=2)
        sent = sent_requests(monkeypatch)
        with pytest.raises(StoreError) as caught:
            engine.exists()
    # Counted, not timed: one refused request, not retries that wait the refusals out.
    assert sent == [f"{url}/collections/c/exists"]
    message = str(caught.value)
    assert url in message
    assert "cannot reach" in message
    assert "s3cret-key-value" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    engine.close()
