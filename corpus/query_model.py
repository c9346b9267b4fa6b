"""The query's embedding model, started before the index: for a process that searches once.

``deepread search`` embeds one query and ends. :meth:`Index.open(searching="once")
<deepread.corpus.index.Index.open>` starts the local model's quick session loading in a
thread, but only once ``deepread.Index``'s own modules are imported; this starts it
earlier, from the command's first line, so its ~0.3 s of numpy, onnxruntime, tokenizer
and session run beside the rest of the command's start. ``Index.open`` then finds it
loading and waits for it where it would have loaded it itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from deepread.environment.settings import current
from deepread.stores.local_model import local_model, names_local


@contextmanager
def query_model_loading(
    embeddings: str | None, mode: str | None
) -> Iterator[threading.Thread | None]:
    """The local model loading in a thread for the block, when a search in ``mode`` with
    ``embeddings`` (None: ``DEEPREAD_EMBEDDINGS``) will embed its query with it; None
    otherwise (BM25 alone, or another model). numpy's OpenBLAS starts one thread, not
    one per core: the process ends after its query, and nothing in it multiplies
    matrices. A failure inside the block waits for the load first (a process must not
    end while onnxruntime builds a session)."""
    spec = embeddings if embeddings is not None else current().embeddings
    local = mode != "bm25" and names_local(spec)
    loading = local_model().load_beside(optimised=False, blas_threads=1) if local else None
    try:
        yield loading
    except BaseException:
        if loading is not None:
            loading.join()
        raise
