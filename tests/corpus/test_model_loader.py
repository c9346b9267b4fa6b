"""The local model an ingest loads beside its first parse is loaded before the ingest
returns, whatever became of the files.

An ingest starts loading the model in a thread while its first file parses. When every
file failed to parse (or Ctrl-C came during the first parse) the ingest used to return
while onnxruntime was still building its session in that thread; the process then ended
under it and aborted ("terminate called without an active exception", exit 134 instead
of the command's own code) — about one exit in three when it ended within the load.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from deepread import Index
from deepread.corpus.pipeline import IngestError
from deepread.stores.embeddings import LocalEmbeddings


def loading_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "deepread-load-model" and t.is_alive()]


def test_an_ingest_whose_every_file_fails_returns_only_once_the_model_is_loaded(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot a PDF past its first line\n")
    # a model of its own, not yet loaded (the process-wide one may be, by other tests)
    model = LocalEmbeddings(threads=1)
    with (
        Index.open(store=tmp_path / "store", embeddings=model) as idx,
        pytest.raises(IngestError) as failed,
    ):
        idx.ingest([broken])

    assert [Path(f.path).name for f in failed.value.failures] == ["broken.pdf"]
    assert not loading_threads()
