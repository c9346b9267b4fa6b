"""Per-user collections and threads with the example auth (deepread/user_auth.py) on a
real ``langgraph dev`` serving ``langgraph.auth.json``.

Two users, alice and bob, each with a bearer token (the users file holds only their
SHA-256). The server has no ingest root, as ``langgraph dev`` runs by default: paths are
refused for everyone and documents arrive as content.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from support.langgraph_server import langgraph_dev

from deepread.user_auth import token_digest

pytestmark = pytest.mark.slow

TOKENS = {"alice": "alice-token-4b1d", "bob": "bob-token-9c2e"}
NOTE = ("# Alice's travel notes\n\nThe spare key to the Lisbon flat is under the blue "
        "flower pot by the door.\n")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("langgraph_dev_auth")
    users = workdir / "users.json"
    users.write_text(json.dumps({token_digest(t): u for u, t in TOKENS.items()}))
    with langgraph_dev(workdir, config="langgraph.auth.json",
                       env={"DEEPREAD_AUTH_TOKENS_FILE": str(users)}) as url:
        yield url


def as_user(url: str, user: str | None) -> SyncLangGraphClient:
    headers = {"Authorization": f"Bearer {TOKENS[user]}"} if user else {}
    return get_sync_client(url=url, headers=headers)


@pytest.fixture(scope="module")
def alice(server_url: str) -> SyncLangGraphClient:
    return as_user(server_url, "alice")


@pytest.fixture(scope="module")
def bob(server_url: str) -> SyncLangGraphClient:
    return as_user(server_url, "bob")


@pytest.fixture(scope="module")
def alice_notes(alice: SyncLangGraphClient) -> dict[str, Any]:
    """Alice sends her note as content into her collection ``alice-notes``."""
    out = alice.runs.wait(None, "ingest", input={"files": [{"name": "travel.md",
                                                            "text": NOTE}]},
                          context={"collection": "alice-notes"})
    assert out["failures"] == [], out
    return out


@pytest.fixture(scope="module")
def alice_thread(alice: SyncLangGraphClient, alice_notes: dict[str, Any]) -> str:
    thread_id = alice.threads.create()["thread_id"]
    out = alice.runs.wait(thread_id, "deepread",
                          input={"question": "Where is the spare key to the flat?"},
                          context={"collection": "alice-notes"})
    assert out["stop_reason"] == "answered" and "blue flower pot" in out["answer"], out
    return thread_id


def status_of(call) -> tuple[int, str]:
    try:
        call()
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code, exc.response.text
    return 200, ""


def test_a_request_without_a_known_token_is_unauthorised(server_url: str) -> None:
    for client in (as_user(server_url, None),
                   get_sync_client(url=server_url, headers={"Authorization": "Bearer nope"})):
        code, _ = status_of(lambda c=client: c.assistants.search())
        assert code == 401


def test_a_user_ingests_content_into_their_collection_and_gets_cited_answers(
        alice_thread: str, alice: SyncLangGraphClient) -> None:
    values = alice.threads.get_state(alice_thread)["values"]
    assert values["citations"]


def test_without_an_ingest_root_any_path_is_refused_saying_how_to_allow_it(
        alice: SyncLangGraphClient) -> None:
    out = alice.runs.wait(None, "ingest", input={"paths": [str(Path(__file__))]},
                          context={"collection": "alice-files"})

    assert out["documents"] == []
    [failure] = out["failures"]
    assert "DEEPREAD_INGEST_ROOT" in failure["reason"]


@pytest.mark.parametrize("graph", ["deepread", "ingest"])
def test_another_users_collection_is_forbidden(
        bob: SyncLangGraphClient, alice_notes: dict[str, Any], graph: str) -> None:
    payload = ({"question": "Where is the spare key to the flat?"} if graph == "deepread"
               else {"files": [{"name": "planted.md", "text": "# Planted\n\nBob was here.\n"}]})

    code, body = status_of(lambda: bob.runs.wait(None, graph, input=payload,
                                                 context={"collection": "alice-notes"}))

    assert code == 403
    assert "alice-notes" in body and "not yours" in body
    assert "blue flower pot" not in body


def test_a_run_that_names_no_collection_is_forbidden_rather_than_shared(
        bob: SyncLangGraphClient) -> None:
    code, body = status_of(lambda: bob.runs.wait(None, "deepread",
                                                 input={"question": "anything?"}))
    assert code == 403 and "bob-<name>" in body


def test_another_users_threads_are_neither_listed_nor_readable(
        bob: SyncLangGraphClient, alice: SyncLangGraphClient, alice_thread: str) -> None:
    assert alice_thread in {t["thread_id"] for t in alice.threads.search()}
    assert alice_thread not in {t["thread_id"] for t in bob.threads.search()}
    code, _ = status_of(lambda: bob.threads.get_state(alice_thread))
    assert code == 404
    code, _ = status_of(lambda: bob.runs.wait(alice_thread, "deepread",
                                              input={"question": "Where is the key?"},
                                              context={"collection": "bob"}))
    assert code == 404


def test_a_user_cannot_create_assistants(bob: SyncLangGraphClient) -> None:
    code, _ = status_of(lambda: bob.assistants.create(
        "deepread", context={"collection": "alice-notes"}))
    assert code == 403


def test_a_user_reads_only_their_own_collection_even_with_the_same_question(
        bob: SyncLangGraphClient, alice_notes: dict[str, Any]) -> None:
    out = bob.runs.wait(None, "deepread",
                        input={"question": "Where is the spare key to the flat?"},
                        context={"collection": "bob"})
    assert "blue flower pot" not in json.dumps(out)
