"""tiktoken's encoding loads once per process, however many threads ask for it at once.

LangGraph runs nodes in threads, and a server runs several turns at once: each first
node that counted tokens loaded the BPE again (~0.3-1 s apiece) when it asked before the
first load was done; now it waits for that load.
"""

from __future__ import annotations

import threading

import pytest

from deepread.text import tokens


def test_threads_asking_at_once_share_one_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_LOADED", {})  # as in a fresh process
    real = tokens.load_tiktoken_bpe
    files_read: list[str] = []

    def read(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        files_read.append(path)
        return real(path, expected_hash=expected_hash)

    monkeypatch.setattr(tokens, "load_tiktoken_bpe", read)
    start = threading.Barrier(3)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(tokens.encoding())

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(files_read) == 1
    assert len(got) == 3 and got[0] is got[1] is got[2]
    assert tokens.count_tokens("Hello world") == 2  # the real encoding, and kept


def test_a_failed_load_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_LOADED", {})
    real = tokens.load_tiktoken_bpe
    failures = iter([OSError("disk gone")])

    def read(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        for failure in failures:
            raise failure
        return real(path, expected_hash=expected_hash)

    monkeypatch.setattr(tokens, "load_tiktoken_bpe", read)

    with pytest.raises(OSError, match="disk gone"):
        tokens.encoding()
    assert tokens.encoding().encode_ordinary("Hello world") == [13225, 2375]
