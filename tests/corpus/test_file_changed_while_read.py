"""A file saved while an ingest reads it (issue 50 §4): files are hashed long before they
are parsed, so what is stored must be what was hashed — a change in between is seen and
the file read again (deepread/corpus/pipeline.py, ``_as_hashed``).

The parser is the real one; the test saves the file at the one moment that matters, just
before the parser opens it, as an editor saving at that instant would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from support.stores import stored_text

import deepread
from deepread.corpus import enrich

OLD = "# Note\n\nThe old text tells of walruses resting on the ice.\n"
NEW = "# Note\n\nThe new text tells of narwhals and their one long tooth, at length.\n"


def save_before_parsing(
    monkeypatch: pytest.MonkeyPatch, path: Path, texts: Callable[[], str | None]
) -> None:
    """Each parse of ``path`` first writes ``texts()`` to it (nothing when it is None)."""
    real = enrich.parse_file

    def parse(given: Path) -> object:
        if given == path and (text := texts()) is not None:
            path.write_text(text, encoding="utf-8")
        return real(given)

    monkeypatch.setattr(enrich, "parse_file", parse)


@pytest.fixture
def note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file holding ``OLD`` that is saved with ``NEW`` just before its first parse."""
    note = tmp_path / "note.md"
    note.write_text(OLD, encoding="utf-8")
    saves = iter([NEW])
    save_before_parsing(monkeypatch, note, lambda: next(saves, None))
    return note


def test_a_file_saved_between_its_hash_and_its_parse_is_stored_under_its_new_hash(
    tmp_path: Path, note: Path
) -> None:
    with deepread.Index.open(store=tmp_path / "store", collection="c") as index:
        [document] = index.ingest([note], workers=1)

        assert document.content_hash == hashlib.sha256(NEW.encode()).hexdigest()
        assert "narwhals" in stored_text(index) and "walruses" not in stored_text(index)


def test_the_old_bytes_put_back_are_ingested_again_not_called_unchanged(
    tmp_path: Path, note: Path
) -> None:
    with deepread.Index.open(store=tmp_path / "store", collection="c") as index:
        index.ingest([note], workers=1)
        note.write_text(OLD, encoding="utf-8")

        again = index.ingest_report([note], workers=1)

        assert [d.source for d in again.documents] == [str(note.resolve())]
        assert again.skipped == []
        assert "walruses" in stored_text(index) and "narwhals" not in stored_text(index)


def test_a_file_that_changes_at_every_read_is_its_failure_and_nothing_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "note.md"
    note.write_text(OLD, encoding="utf-8")
    count = iter(range(1, 1000))
    save_before_parsing(monkeypatch, note, lambda: f"{NEW}\nSaved {next(count)} times.\n")

    with deepread.Index.open(store=tmp_path / "store", collection="c") as index:
        result = index.ingest_report([note], workers=1)

        assert [f.reason for f in result.failures] == [
            "the file changed while it was read (4 times); ingest it again once it is saved"
        ]
        assert index.documents() == []
