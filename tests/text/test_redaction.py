"""Secrets out of messages (text/redaction.py): every form a URL or an error text carries
one in is masked, and what says *where* stays readable.

The end-to-end cases run the real places that print a location: the PostgreSQL
checkpointer of ``deepread ask`` (psycopg against a closed port), a Qdrant store URL
(qdrant-client against a closed port), and a model error through ``describe``.
"""

from __future__ import annotations

import socket

import pytest

from deepread.checkpointers import CheckpointerError, open_checkpointer
from deepread.models.chat import describe
from deepread.records.errors import StoreError
from deepread.stores.location import list_collections
from deepread.text.redaction import redact, redact_url

SECRET = "hunter2-Xy9"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgres://deepread:{SECRET}@db:5432/app", "postgres://deepread:***@db:5432/app"),
        (
            f"postgresql://deepread@db/app?password={SECRET}&sslmode=require",
            "postgresql://deepread@db/app?password=***&sslmode=require",
        ),
        (
            f"postgresql://db/app?sslmode=verify-full&sslpassword={SECRET}",
            "postgresql://db/app?sslmode=verify-full&sslpassword=***",
        ),
        (f"postgresql://db/app?PassWord={SECRET}", "postgresql://db/app?PassWord=***"),
        (f"postgresql://db/app?pass%77ord={SECRET}", "postgresql://db/app?password=***"),
        (
            f"https://qdrant.example:6333/?api_key={SECRET}",
            "https://qdrant.example:6333/?api_key=***",
        ),
        (f"https://q.example/?api-key={SECRET}&x=1", "https://q.example/?api-key=***&x=1"),
        (f"https://q.example/?access_token={SECRET}", "https://q.example/?access_token=***"),
        (f"https://q.example/?token={SECRET}#top", "https://q.example/?token=***#top"),
        (
            f"https://s3.example/b/k?X-Amz-Signature={SECRET}&X-Amz-Expires=60",
            "https://s3.example/b/k?X-Amz-Signature=***&X-Amz-Expires=60",
        ),
        (f"https://u:{SECRET}@q.example:6333", "https://u:***@q.example:6333"),
        (f"https://:{SECRET}@q.example", "https://:***@q.example"),
        (f"postgres://u:pa/ss@{SECRET}@db/app", "postgres://u:***@db/app"),
        (
            f"host=db port=5432 user=deepread password={SECRET} dbname=app",
            "host=db port=5432 user=deepread password=*** dbname=app",
        ),
        (f"host=db password='{SECRET} with space' dbname=app", "host=db password=*** dbname=app"),
    ],
)
def test_every_secret_form_of_a_location_is_masked(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://deepread@db.internal:5432/app?sslmode=require",
        "http://127.0.0.1:6333",
        "(1) [4] Results | paragraphs=3 | tokens=120 | children=[]",
        "the key to the flat is under the pot; tokens=12 passes=3",
    ],
)
def test_text_without_a_secret_is_left_as_it_is(text: str) -> None:
    assert redact_url(text) == text
    assert redact(text) == text


def test_known_secret_values_are_masked_as_written_and_percent_encoded() -> None:
    key = "sk-live/abc+def=="

    text = redact(f"echo {key} and sk-live%2Fabc%2Bdef%3D%3D", known=[key, "short"])

    assert text == "echo *** and ***"


def test_a_bearer_token_echoed_by_a_provider_is_masked() -> None:
    assert redact(f"upstream said: Authorization: Bearer {SECRET}abc") == (
        "upstream said: Authorization: Bearer ***"
    )


def test_an_unreachable_checkpointer_names_it_without_a_query_string_password() -> None:
    url = f"postgresql://deepread@127.0.0.1:{closed_port()}/app?password={SECRET}&connect_timeout=2"

    with pytest.raises(CheckpointerError) as caught, open_checkpointer(url, None):
        pass

    message = str(caught.value)
    assert SECRET not in message
    assert "password=***" in message and "127.0.0.1" in message


def test_an_unknown_checkpointer_scheme_is_named_without_its_secrets() -> None:
    with (
        pytest.raises(CheckpointerError) as caught,
        open_checkpointer(f"redis://u:{SECRET}@127.0.0.1:1/0?token={SECRET}", None),
    ):
        pass

    assert SECRET not in str(caught.value) and "redis://u:***@127.0.0.1:1/0" in str(caught.value)


def test_an_unreachable_qdrant_store_is_named_without_its_secrets() -> None:
    store = f"http://reader:{SECRET}@127.0.0.1:{closed_port()}/?api_key={SECRET}"

    with pytest.raises(StoreError) as caught:
        list_collections(store, api_key=None, timeout=2)

    assert SECRET not in str(caught.value)
    assert "reader:***@127.0.0.1" in str(caught.value)


def test_a_model_error_masks_the_endpoint_password_and_environment_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"https://proxy:{SECRET}@llm.example/v1")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")

    text = describe(
        ConnectionError(f"refused; sent tok-0123456789 to https://proxy:{SECRET}@llm.example/v1")
    )

    assert SECRET not in text and "tok-0123456789" not in text
    assert "https://proxy:***@llm.example/v1" in text
