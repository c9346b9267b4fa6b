"""Page images of citations on a real ``langgraph dev`` serving ``langgraph.auth.json``:
the server's own HTTP app (``http.app``: deepread/served_pages.py), behind the threads'
auth (deepread/user_auth.py).

Two users, alice and bob, each send a PDF of their own into their own collection; alice's
answer's citations carry their places, and what she asks for with them — the cited page,
highlighted — she gets, while bob gets none of her pages, a request without a token
none at all, and a page or paragraph that does not exist is named as such.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_sync_client
from support.langgraph_server import langgraph_dev
from support.pdf_builder import Doc, filler

from deepread.user_auth import token_digest

pytestmark = pytest.mark.slow

TOKENS = {"alice": "alice-token-5e1a", "bob": "bob-token-0d3c"}
KEY = "The spare key to the Lisbon flat is under the blue flower pot by the door."


def _pdf(path: Path, line: str) -> str:
    doc = Doc().page().line("Travel notes", size=14, bold=True).gap(6).para(filler(50))
    doc.page().para(line).para(filler(40, seed=2))
    doc.save(path)
    return base64.b64encode(path.read_bytes()).decode("ascii")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("langgraph_dev_pages")
    users = workdir / "users.json"
    users.write_text(json.dumps({token_digest(t): u for u, t in TOKENS.items()}))
    with langgraph_dev(
        workdir,
        config="langgraph.auth.json",
        env={"DEEPREAD_AUTH_TOKENS_FILE": str(users), "DEEPREAD_MAX_MESSAGE_CHARS": "100000"},
    ) as url:
        for user, line in (("alice", KEY), ("bob", "Bob keeps his key with the neighbour.")):
            out = _client(url, user).runs.wait(
                None,
                "ingest",
                input={
                    "files": [
                        {"name": "notes.pdf", "content_base64": _pdf(workdir / f"{user}.pdf", line)}
                    ]
                },
                context={"collection": f"{user}-docs"},
            )
            assert out["failures"] == [], out
        yield url


def _client(url: str, user: str):
    return get_sync_client(url=url, headers={"Authorization": f"Bearer {TOKENS[user]}"})


def _get(url: str, path: str, user: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKENS[user]}"} if user else {}
    return httpx.get(url + path, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def cited(server: str) -> dict[str, Any]:
    """Alice's answer's citation of the key's paragraph, as the final state has it."""
    alice = _client(server, "alice")
    thread = alice.threads.create()["thread_id"]
    out = alice.runs.wait(
        thread,
        "deepread",
        input={"question": "Where is the spare key to the Lisbon flat?"},
        context={"collection": "alice-docs"},
    )
    assert out["stop_reason"] == "answered", out
    return next(c for c in out["citations"] if c.get("boxes") and c["boxes"][0][0] == 2)


def _page_path(c: dict[str, Any], collection: str = "alice-docs", page: int | None = None) -> str:
    page = c["boxes"][0][0] if page is None else page
    return f"/deepread/pages/{collection}/{c['doc_id']}/{c['sec_id']}/{c['para_idx']}/{page}.png"


def test_the_final_states_citations_carry_the_rectangles_a_ui_asks_for(cited):
    page, x0, top, x1, bottom = cited["boxes"][0]
    assert page == 2 and 0 < x0 < x1 <= 612 and 0 < top < bottom <= 792


def test_the_final_states_citations_carry_their_page_text_title_and_source(cited):
    assert cited["page"] == 2 and cited["pages"] == [2]
    assert KEY in cited["text"] and cited["source"].endswith("notes.pdf") and cited["title"]


def test_a_user_gets_the_cited_page_of_her_own_collection_highlighted(server, cited):
    resp = _get(server, _page_path(cited) + "?dpi=72", "alice")

    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "image/png"
    assert resp.content.startswith(b"\x89PNG")


def test_another_user_gets_none_of_her_pages(server, cited):
    resp = _get(server, _page_path(cited), "bob")

    assert resp.status_code == 403
    assert "not one of yours" in resp.json()["detail"]
    own = _get(server, _page_path(cited, "bob-docs", page=1) + "?dpi=40", "bob")
    assert own.status_code == 200  # his own collection's pages he does get


def test_a_request_without_a_token_gets_no_page(server, cited):
    assert _get(server, _page_path(cited), None).status_code == 401


def test_a_page_or_paragraph_that_does_not_exist_is_named(server, cited):
    resp = _get(server, _page_path(cited, page=9), "alice")
    assert resp.status_code == 404 and "there is no page 9" in resp.json()["detail"]
    gone = f"/deepread/pages/alice-docs/{cited['doc_id']}/{cited['sec_id']}/999/1.png"
    resp = _get(server, gone, "alice")
    assert resp.status_code == 404 and "no paragraph 999" in resp.json()["detail"]
