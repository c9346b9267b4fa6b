"""The ``ingest`` node: parse and store documents into the context's collection.

Documents arrive two ways: ``paths`` on the machine running the graph, and ``files`` sent
as content (name plus text or base64 bytes, see corpus/uploads.py). Both go through the
same pipeline and report the same way: stored documents, per-file failure lines, and the
files a folder walk passed over because of their type (``unsupported``, not failures).
Each file's progress is streamed as a ``custom`` event (``get_stream_writer``), so a long
ingest over the LangGraph API shows where it is.

Paths are the operator's to allow. On a LangGraph server (``build_ingest_graph(served=
True)``, the exported graph) anyone who can start a run names them, so they are read only
under ``DEEPREAD_INGEST_ROOT`` and, with it unset, not at all. In Python the person
running the process names them; ``DEEPREAD_INGEST_ROOT`` confines them there too when set.
Every path must resolve (symlinks followed) inside the root — the paths given and every
file found by walking a given folder, since a symlink inside an allowed folder may point
anywhere. A bad collection name or an unusable store is reported in ``error`` (and a
failure per document) instead of failing the run — so is a store that stops the ingest
part-way (in use by another process past ``DEEPREAD_STORE_WAIT``, unreachable, full):
the error says to send the same request again once the store is free, a failure line
names each file not stored, and every document sent as content keeps its earlier
version (corpus/uploads.py); however else the run ends, those files are put back too.

Runs of this node in one server process share one open index (nodes/resources.py) and
may run at once, as a LangGraph server runs jobs: the store's write protocol gives each
document its own doc_id and keeps their writes apart (stores/writers.py); a file another
run or process is writing at that moment is this run's failure line, naming it. Files
are parsed in the run's own thread (``workers=1``): a server process serves many runs,
and worker processes are for the command line and Python (corpus/parse_ahead.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from pydantic import Field
from typing_extensions import TypedDict  # the server's JSON schemas need it on Python < 3.12

from deepread.corpus.files import expand_paths
from deepread.corpus.progress_events import COST_EVENTS
from deepread.corpus.uploads import (
    MAX_PATH_CHARS,
    UploadRefused,
    max_paths,
    save_uploads,
    settle,
    upload_dir,
)
from deepread.environment.settings import current as current_settings
from deepread.nodes.context import IngestContext
from deepread.nodes.resources import Resources
from deepread.records.errors import StoreError
from deepread.records.summary import document_summary
from deepread.text.hygiene import brief

if TYPE_CHECKING:
    from deepread.corpus.pipeline import IngestResult

ROOT_ENV = "DEEPREAD_INGEST_ROOT"
NO_ROOT = (
    f"ingest by path is off on this server: the operator allows paths under one "
    f"folder by setting {ROOT_ENV}=/path/to/documents; a client can send documents "
    "as content instead: files=[{name, text | content_base64}]"
)


class IngestFile(TypedDict, total=False):
    """A document sent as content: its file name and exactly one of the two contents
    (each field's description is what Studio's input form shows)."""

    name: Annotated[
        str,
        Field(description="File name with its type's suffix (.pdf .docx .html .md .txt)."),
    ]
    text: Annotated[str, Field(description="The document's text (Markdown, HTML or plain).")]
    content_base64: Annotated[
        str, Field(description="The file's bytes in base64 (a PDF, a .docx), instead of text.")
    ]


class IngestInput(TypedDict, total=False):
    """Paths on the machine running the graph, and/or documents sent as content."""

    paths: Annotated[
        list[str],
        Field(
            description="Files or folders on the machine running the graph. On a server "
            f"only under the folder the operator allows ({ROOT_ENV}); else send files."
        ),
    ]
    files: Annotated[
        list[IngestFile],
        Field(description="Documents sent as content: a name and its text or base64 bytes."),
    ]


class IngestOutput(TypedDict, total=False):
    documents: list[dict[str, Any]]
    #: Files holding the same bytes as a stored document whose file still holds them:
    #: nothing stored for them ({"path", "doc_id", "source"}).
    duplicates: list[dict[str, Any]]
    failures: list[dict[str, str]]
    unsupported: list[str]
    error: str


def check_root(paths: list[str], root: str | None) -> tuple[list[str], list[dict[str, str]]]:
    """Split ``paths`` into allowed ones and failures outside ``root``."""
    if not root:
        return list(paths), []
    base = Path(root).resolve()
    allowed, refused = [], []
    for raw in paths:
        real = (base / raw).resolve() if not Path(raw).is_absolute() else Path(raw).resolve()
        if real == base or base in real.parents:
            allowed.append(str(real))
        else:
            refused.append({"path": raw, "reason": f"outside the ingest root {base}"})
    return allowed, refused


def files_under_root(
    paths: list[str],
    root: str | None,
    unsupported: list[Path] | None = None,
) -> tuple[list[str], list[dict[str, str]]]:
    """:func:`check_root`, then the same check on every file a folder walk finds."""
    allowed, refused = check_root(paths, root)
    if not root or not allowed:
        return allowed, refused
    files, missing = expand_paths(allowed, unsupported)
    inside, outside = check_root([str(f) for f in files], root)
    refused += [{"path": f.path, "reason": f.reason} for f in missing]
    refused += [
        {"path": r["path"], "reason": f"{r['reason']} (reached through a symlink)"} for r in outside
    ]
    return inside, refused


def _paths(state: IngestInput) -> list[str]:
    """The paths the run names; :class:`UploadRefused` past the per-run cap."""
    paths = state.get("paths") or []
    paths = [paths] if isinstance(paths, str) else [str(p) for p in paths]
    if len(paths) > max_paths():
        raise UploadRefused(
            f"paths: {len(paths)} paths, over the cap of {max_paths()} per "
            "run (DEEPREAD_INGEST_MAX_PATHS); name their folder instead"
        )
    return paths


def _too_long(paths: list[str]) -> tuple[list[str], list[dict[str, str]]]:
    """``paths`` split into those of a possible length and failures for the others."""
    ok = [p for p in paths if len(p) <= MAX_PATH_CHARS]
    return ok, [
        {"path": brief(p), "reason": f"a path of {len(p)} characters; at most {MAX_PATH_CHARS}"}
        for p in paths
        if len(p) > MAX_PATH_CHARS
    ]


#: Progress events after which a file needs nothing more (stored, unchanged, a copy of a
#: stored document): what a run that stops later must not undo.
SETTLED = frozenset({"stored", "skip", "same"})


def _store_failed(
    exc: StoreError, unsettled: list[str], refused: list[dict[str, str]]
) -> IngestOutput:
    """What a run the store stopped answers: which files were not stored, and that the
    same request, sent again once the store is free, stores them (what was stored before
    it stopped is skipped as unchanged)."""
    why = (
        f"the store could not be written: {exc}. Nothing more was stored; documents sent "
        "as content keep their earlier version. Send the same request again once the "
        "store is free: what was stored is skipped as unchanged"
    )
    return {
        "documents": [],
        "duplicates": [],
        "failures": refused + [{"path": p, "reason": f"not stored: {exc}"} for p in unsettled],
        "unsupported": [],
        "error": why,
    }


class IngestNode(Protocol):
    """The ingest node: files in, what was stored and what failed out."""

    def __call__(self, state: IngestInput, runtime: Runtime[IngestContext]) -> IngestOutput: ...


def _admitted(
    paths: list[str], served: bool, unsupported: list[Path], errors: list[str]
) -> tuple[list[str], list[dict[str, str]]]:
    """``paths`` split into the files the run may read and failures: a served graph reads
    only under ``DEEPREAD_INGEST_ROOT``, and nothing without it (said in ``errors``)."""
    root = current_settings().ingest_root
    if served and not root:
        if paths:
            errors.append(NO_ROOT)
        return [], [{"path": p, "reason": NO_ROOT} for p in paths]
    return files_under_root(paths, root, unsupported)


def _unopened(
    state: IngestInput, exc: Exception, allowed: list[str], refused: list[dict[str, str]]
) -> IngestOutput:
    """The output of a run whose collection could not be opened (a bad name, a store in
    use): every file it names failed, with why."""
    sent = [
        f.get("name", f"files[{i}]") if isinstance(f, dict) else f"files[{i}]"
        for i, f in enumerate(state.get("files") or [])
    ]
    return {
        "documents": [],
        "error": str(exc),
        "unsupported": [],
        "failures": refused + [{"path": p, "reason": str(exc)} for p in allowed + sent],
    }


def _output(
    result: IngestResult | None,
    shown: Callable[[Path | str], str],
    failures: list[dict[str, str]],
    unsupported: list[Path],
    errors: list[str],
) -> IngestOutput:
    """What the run stored, found already stored, and could not store (``failures`` and
    ``unsupported`` those found before the ingest ran), each file named by ``shown``."""
    documents = [] if result is None else result.documents + result.skipped
    if result is not None:
        failures = failures + [{"path": shown(f.path), "reason": f.reason} for f in result.failures]
        unsupported = unsupported + result.unsupported
    out: IngestOutput = {
        "documents": [document_summary(d, shown(d.source)) for d in documents],
        "duplicates": [
            {"path": shown(c.path), "doc_id": c.document.doc_id, "source": shown(c.document.source)}
            for c in (result.duplicates if result else [])
        ],
        "failures": failures,
        "unsupported": [str(p) for p in unsupported],
    }
    if errors:
        out["error"] = "; ".join(errors)
    return out


def make_ingest(resources: Resources, *, served: bool = False) -> IngestNode:
    """The node; ``served``: paths only under ``DEEPREAD_INGEST_ROOT``, none without it."""

    @resources.leasing
    def ingest(state: IngestInput, runtime: Runtime[IngestContext]) -> IngestOutput:
        context = runtime.context or IngestContext()
        write = get_stream_writer()
        try:
            paths, too_long = _too_long(_paths(state))
        except UploadRefused as exc:
            return {"documents": [], "failures": [], "unsupported": [], "error": str(exc)}
        unsupported: list[Path] = []
        errors: list[str] = []
        allowed, refused = _admitted(paths, served, unsupported, errors)
        try:
            index = resources.index(context)
        except (ValueError, StoreError) as exc:  # a bad collection name, a store in use
            return _unopened(state, exc, allowed, refused)
        try:
            uploads, upload_failures = save_uploads(
                state.get("files"), upload_dir(index.store, index.name)
            )
        except UploadRefused as exc:
            uploads, upload_failures = [], []
            errors.append(str(exc))
        names = {key: u.name for u in uploads for key in (str(u.path), str(u.path.resolve()))}

        def shown(path: Path | str) -> str:
            """A document sent as content is named as the client named it."""
            return names.get(str(path), str(path))

        settled: set[Path] = set()  # files stored, unchanged or copies: none lost

        def progress(event: str, path: Path, done: int, total: int) -> None:
            if event in COST_EVENTS:  # (what prices the time left: a client is told files)
                return
            if event in SETTLED:
                settled.add(Path(path).resolve())
            write({"ingest": event, "file": shown(path), "done": done, "total": total})

        todo = allowed + [str(u.path) for u in uploads]
        try:
            result = (
                index.ingest_report(
                    todo,
                    progress=progress,
                    ocr_model=context.ocr_model or None,
                    vision_model=context.vision_model or None,
                    describe_model=context.describe_model or None,
                    workers=1,
                )
                if todo
                else None
            )
        except BaseException as exc:
            # The run stopped (the store busy or gone, the model unusable, the run
            # cancelled): every document not stored yet keeps the version it had.
            unsettled = [p for p in todo if Path(p).resolve() not in settled]
            settle(uploads, {Path(p).resolve() for p in unsettled})
            if not isinstance(exc, StoreError):
                raise
            return _store_failed(exc, [shown(p) for p in unsettled], too_long + refused)
        # A document sent as content that failed leaves no file behind (the one it
        # replaced comes back): the folder holds what the collection was built from.
        settle(uploads, {Path(f.path).resolve() for f in (result.failures if result else [])})
        failures = (
            too_long + refused + [{"path": f.path, "reason": f.reason} for f in upload_failures]
        )
        return _output(result, shown, failures, unsupported, errors)

    return ingest
