"""Which webhook URLs the example auth's allowlist lets through (deepread/user_auth.py):
an entry's scheme, host and port, and its path or a folder under it — nothing a URL
parser could read as another host or path."""

from __future__ import annotations

import pytest

from deepread.environment.settings import Settings, SettingsError
from deepread.user_auth import webhook_allowed

ALLOWED = ("https://hooks.example.com/deepread/", "http://127.0.0.1:9000/runs")


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/deepread/done",
        "https://HOOKS.example.com:443/deepread/done?run=7&token=x",
        "http://127.0.0.1:9000/runs",
        "http://127.0.0.1:9000/runs/7",
    ],
)
def test_a_url_under_an_entry_is_allowed(url: str) -> None:
    assert webhook_allowed(url, ALLOWED)


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/deepread",  # the folder's name, not under it
        "https://hooks.example.com/deepread-other/x",
        "http://hooks.example.com/deepread/done",  # another scheme
        "https://hooks.example.com:8443/deepread/done",  # another port
        "http://127.0.0.1:9000/runsx",
        "http://localhost:9000/runs",  # the same machine by another name
        "https://hooks.example.com/deepread/../admin",
        "https://hooks.example.com/deepread/%2e%2e/admin",
        "https://hooks.example.com@10.0.0.1/deepread/",
        "https://hooks.example.com\\@10.0.0.1/deepread/",
        "https://hooks.example.com/deepread/ x",
        "/runs",
        "",
        None,
        7,
    ],
)
def test_anything_else_is_refused(url: object) -> None:
    assert not webhook_allowed(url, ALLOWED)


def test_no_entry_allows_nothing() -> None:
    assert not webhook_allowed("https://hooks.example.com/deepread/done", ())


def test_entries_are_read_from_the_environment_separated_by_spaces_or_commas() -> None:
    env = {"DEEPREAD_AUTH_WEBHOOKS": "https://a.example/x/, http://b.example:81/y  https://c/"}

    assert Settings.from_env(env).auth_webhooks == (
        "https://a.example/x/",
        "http://b.example:81/y",
        "https://c/",
    )
    assert Settings.from_env({}).auth_webhooks == ()


def test_an_entry_that_is_not_an_http_url_is_named() -> None:
    with pytest.raises(SettingsError, match=r"DEEPREAD_AUTH_WEBHOOKS holds 'hooks\.example\.com'"):
        Settings.from_env({"DEEPREAD_AUTH_WEBHOOKS": "hooks.example.com"})
