"""``deepread serve``'s routes in-process (Starlette's test client, a real store): what the
page asks for, and the bad requests it may send — each answered with a status and a
message, never a crash of the server. The page itself in a real browser:
tests/cli/test_serve_browser.py."""

from __future__ import annotations

import json

import pytest
from support.pdf_builder import Doc, filler

import deepread

pytest.importorskip("starlette", reason="deepread serve needs deepread[server]")
from starlette.testclient import TestClient

from deepread.cli.serve import make_app

TEXT = filler(40, seed=4)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    from langgraph.checkpoint.memory import InMemorySaver

    root = tmp_path_factory.mktemp("serve-routes")
    pdf = Doc().page().line("Notes", size=14, bold=True).gap(6).para(TEXT).save(root / "n.pdf")
    idx = deepread.Index.open(store=root / "store")
    idx.ingest([pdf])
    with TestClient(make_app(idx, InMemorySaver())) as test_client:
        yield test_client
    idx.close()


def test_the_library_lists_each_document_with_its_title_and_card(client):
    lib = client.get("/api/library").json()
    (doc,) = lib["documents"]
    assert doc["title"] and "file=n.pdf" in doc["card"]


def test_a_question_streams_steps_then_the_answer_with_placed_citations(client):
    resp = client.post("/api/ask", json={"question": "What does the board review?"})
    events = [json.loads(line) for line in resp.text.splitlines() if line.strip()]

    assert resp.status_code == 200
    assert any(e["type"] == "step" for e in events)
    answer = events[-1]
    assert answer["type"] == "answer" and answer["thread"]
    assert answer["citations"] and all(c["boxes"] for c in answer["citations"])


def test_a_cited_paragraph_names_its_page_images(client):
    info = client.get("/api/cited/1/1/0").json()
    assert info["images"] == ["/api/page/1/1/0/1.png"] and info["html"] is None
    image = client.get(info["images"][0])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/api/page/1/1/0/7.png", 404, "there is no page 7"),
        ("/api/page/1/1/99/1.png", 404, "has no paragraph 99"),
        ("/api/cited/5/0/0", 404, "no document 5"),
        ("/api/page/1/1/0/1.png?dpi=9999", 400, "from 36 to 400"),
    ],
)
def test_a_request_for_what_does_not_exist_is_answered_with_why(client, path, status, says):
    resp = client.get(path)
    assert resp.status_code == status and says in resp.json()["error"]


def test_an_empty_or_malformed_question_is_refused(client):
    assert client.post("/api/ask", json={"question": "  "}).status_code == 400
    assert client.post("/api/ask", content=b"not json").status_code == 400
    assert client.post("/api/ask", content=b"x" * 70_000).status_code == 413
