"""Documents sent as content: a name plus text or base64 bytes, checked and capped.

A remote client of a served ``ingest`` graph has no paths on the server, so it sends the
documents themselves. Each one is written, under its own name, to an upload folder beside
the store (``<store>/uploads/<collection>/``), and then goes through the same pipeline as
a path: the same parser, the same "unchanged" skip by content hash, the same per-file
failure lines. Sending a name again replaces that document.

What is refused, each as that file's failure naming the field: a name with a folder part,
a control character, a character that shows as nothing or as a blank other than a space
(a Hangul filler U+3164, a zero-width or em space: deepread.text.invisible), a hidden name
or an unsupported type; neither or both of ``text`` and
``content_base64``; bytes that are not base64; content over the per-file cap; content that
would take the collection's upload folder over its quota (bytes and files); a document of
more paragraphs than its text pays for (:mod:`deepread.corpus.paragraph_budget`). More files than
the per-run cap refuses the whole request. The caps are the operator's, from the
environment.

A document that fails (it does not parse, or cannot be stored — the store busy, the run
stopped) leaves no file behind: :func:`settle` removes it after the ingest, and puts back
the file it replaced, so the folder holds the documents the collection was built from —
and an upload folder left empty is removed, so a collection that was never created has
none. A replaced file is kept aside under a name of its own (``.previous-NAME.~N~``, the
newest the highest ``N``), never over an earlier one: when a run is killed before it
settles, the next upload of that name keeps both the file the killed run left and the one
it had set aside, and only a version that is stored lets every earlier one go.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepread.corpus.files import IngestFailure
from deepread.corpus.ingest_caps import CapError, ingest_cap
from deepread.corpus.paragraph_budget import TooManyParagraphs, check_before_parsing
from deepread.corpus.parsing import SUPPORTED_SUFFIXES
from deepread.records.locations import sidecar_dir
from deepread.text.hygiene import brief
from deepread.text.invisible import blank_looking

#: Bytes one document sent as content may have (after base64 decoding).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: Documents one run may send as content.
MAX_FILES = 50
#: Paths one run may name (files or folders on the server, under the ingest root).
MAX_PATHS = 1000
#: Longest path accepted (Linux's PATH_MAX).
MAX_PATH_CHARS = 4096
#: Bytes and files one collection's upload folder may hold (what it keeps on disk).
MAX_COLLECTION_BYTES = 1024 * 1024 * 1024
MAX_COLLECTION_FILES = 1000
MAX_NAME = 200
#: Unicode categories a file name may not hold: controls (line breaks, NUL, escape),
#: format characters (bidi overrides, zero-width), surrogates (no file system takes one),
#: private-use and unassigned code points, line and paragraph separators.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Prefixes of the folder's own hidden files: a document being written, a replaced one.
_PARTIAL, _PREVIOUS = ".upload-", ".previous-"
#: A replaced file's version, after its name: ``.previous-notes.md.~2~`` (no name a client
#: may send ends so: it would have no supported type).
_VERSION = re.compile(r"\.~(\d+)~")


@dataclass(slots=True)
class Upload:
    """A document sent as content, saved where the pipeline reads it."""

    name: str
    path: Path
    #: The document this one replaced (same name), kept aside until the outcome is known
    #: (earlier ones a killed run left are kept too: :func:`previous_versions`).
    previous: Path | None = None


class UploadRefused(ValueError):
    """The request as a whole is over a cap (the message names the field and the cap)."""


def _cap(env: str, default: int) -> int:
    try:
        return ingest_cap(env, default)
    except CapError as exc:
        raise UploadRefused(f"{exc} of bytes/files") from None


def max_file_bytes() -> int:
    return _cap("DEEPREAD_INGEST_MAX_FILE_BYTES", MAX_FILE_BYTES)


def max_files() -> int:
    return _cap("DEEPREAD_INGEST_MAX_FILES", MAX_FILES)


def max_paths() -> int:
    """Paths one run of the ingest graph may name (each a failure line when refused, so
    a request of 100,000 paths would be answered with 100,000 lines)."""
    return _cap("DEEPREAD_INGEST_MAX_PATHS", MAX_PATHS)


def max_collection_bytes() -> int:
    return _cap("DEEPREAD_INGEST_MAX_COLLECTION_BYTES", MAX_COLLECTION_BYTES)


def max_collection_files() -> int:
    return _cap("DEEPREAD_INGEST_MAX_COLLECTION_FILES", MAX_COLLECTION_FILES)


def upload_dir(store: str, collection: str) -> Path:
    """Where documents sent as content to ``collection`` are kept."""
    return sidecar_dir(store) / "uploads" / collection


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: a file name such as 'notes.md' is required")
    if len(name) > MAX_NAME:
        raise ValueError(f"name: at most {MAX_NAME} characters")
    if name != Path(name).name or "\\" in name or name in (".", ".."):
        raise ValueError(f"name: {brief(name)} must be a bare file name, without folders")
    blank = blank_looking(name)
    if blank or any(unicodedata.category(c) in _INVISIBLE for c in name):
        raise ValueError(
            f"name: {brief(name)} must not hold control, invisible or blank-looking "
            "characters (a line break, NUL, escape, a bidi override, a lone "
            "surrogate, a zero-width or non-ASCII space, a Hangul filler…)"
            + (f"; it holds {', '.join(blank[:5])}" if blank else "")
        )
    if name.startswith("."):
        raise ValueError(f"name: {name!r} must not start with '.'")
    if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
        raise ValueError(f"name: {name!r} has no supported type ({' '.join(SUPPORTED_SUFFIXES)})")
    return name


def _content(item: dict[str, Any], cap: int) -> bytes:
    has_text, has_bytes = "text" in item, "content_base64" in item
    if has_text == has_bytes:
        raise ValueError("text: give exactly one of text and content_base64")
    if has_text:
        if not isinstance(item["text"], str):
            raise ValueError("text: must be a string")
        data = item["text"].encode("utf-8")
        field = "text"
    else:
        raw = item["content_base64"]
        if not isinstance(raw, str):
            raise ValueError("content_base64: must be a base64 string")
        if len(raw) > (cap // 3 + 1) * 4 + 4:  # refuse before decoding what is too big
            raise ValueError(
                f"content_base64: over the cap of {cap} bytes per file "
                "(DEEPREAD_INGEST_MAX_FILE_BYTES)"
            )
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("content_base64: not valid base64") from None
        field = "content_base64"
    if len(data) > cap:
        raise ValueError(
            f"{field}: {len(data)} bytes, over the cap of {cap} bytes per file "
            "(DEEPREAD_INGEST_MAX_FILE_BYTES)"
        )
    return data


def save_uploads(files: Any, folder: Path) -> tuple[list[Upload], list[IngestFailure]]:
    """Check ``files`` (``[{"name", "text" | "content_base64"}]``) and save the good ones.

    Raises :class:`UploadRefused` when the request itself is over a cap or malformed.
    """
    if files is None:
        return [], []
    if not isinstance(files, list):
        raise UploadRefused("files: must be a list of {name, text | content_base64}")
    limit, cap = max_files(), max_file_bytes()
    if len(files) > limit:
        raise UploadRefused(
            f"files: {len(files)} documents, over the cap of {limit} per run "
            "(DEEPREAD_INGEST_MAX_FILES)"
        )
    uploads: list[Upload] = []
    failures: list[IngestFailure] = []
    names: set[str] = set()
    held = _held(folder)  # the folder's documents and their sizes, for the quota
    for i, item in enumerate(files):
        label = f"files[{i}]"
        try:
            if not isinstance(item, dict):
                raise ValueError(": must be an object {name, text | content_base64}")
            name = _check_name(item.get("name"))
            label = name
            if name in names:
                raise ValueError("name: sent twice in one run")
            data = _content(item, cap)
            _check_quota(held, name, len(data))
            try:  # a flood of tiny paragraphs is refused before it costs a parse
                check_before_parsing(name, data.decode("utf-8", errors="replace"))
            except TooManyParagraphs as exc:
                raise ValueError(f"content: {exc}") from None
        except ValueError as exc:  # every message starts with the field it is about
            sep = "" if str(exc).startswith(":") else "."
            failures.append(IngestFailure(label, f"files[{i}]{sep}{exc}"))
            continue
        names.add(name)
        try:
            uploads.append(_save(folder, name, data))
        except OSError as exc:
            failures.append(IngestFailure(name, f"could not be saved: {exc.strerror or exc}"))
            continue
        held[name] = len(data)
    if not uploads:
        forget_if_empty(folder)
    return uploads, failures


def _held(folder: Path) -> dict[str, int]:
    """The documents ``folder`` holds, by name, with their sizes (its hidden files — a
    write or a replaced document left by a killed run — are not documents)."""
    if not folder.is_dir():
        return {}
    return {
        p.name: p.stat().st_size
        for p in folder.iterdir()
        if not p.name.startswith(".") and p.is_file()
    }


def _check_quota(held: dict[str, int], name: str, size: int) -> None:
    """``ValueError`` when saving ``name`` would take the folder over its quota."""
    after = {**held, name: size}
    limit, count = max_collection_bytes(), max_collection_files()
    if len(after) > count:
        raise ValueError(
            f"name: the collection already holds {len(held)} documents sent as "
            f"content, its quota (DEEPREAD_INGEST_MAX_COLLECTION_FILES)"
        )
    total = sum(after.values())
    if total > limit:
        raise ValueError(
            f"content: the collection's documents sent as content would take "
            f"{total} bytes, over its quota of {limit} bytes "
            "(DEEPREAD_INGEST_MAX_COLLECTION_BYTES)"
        )


def previous_versions(folder: Path, name: str) -> list[Path]:
    """The files set aside for ``name`` in ``folder``, oldest first (``.previous-NAME``, as
    earlier releases named the one they kept, before every numbered one)."""
    found: list[tuple[int, Path]] = []
    legacy = folder / f"{_PREVIOUS}{name}"
    if legacy.is_file():
        found.append((0, legacy))
    stem = f"{_PREVIOUS}{name}"
    try:
        entries = list(folder.iterdir())
    except OSError:  # no folder yet
        entries = []
    for entry in entries:
        rest = entry.name[len(stem) :] if entry.name.startswith(stem) else ""
        version = _VERSION.fullmatch(rest)
        if version:
            found.append((int(version.group(1)), entry))
    return [path for _, path in sorted(found)]


def _aside(folder: Path, name: str) -> Path:
    """Where the file now named ``name`` is set aside: after every earlier version."""
    kept = previous_versions(folder, name)
    last = _VERSION.fullmatch(kept[-1].name[len(_PREVIOUS) + len(name) :]) if kept else None
    return folder / f"{_PREVIOUS}{name}.~{int(last.group(1)) + 1 if last else 1}~"


def _save(folder: Path, name: str, data: bytes) -> Upload:
    """Write ``data`` as ``folder/name`` whole or not at all (a half-written file must
    never be ingested), keeping the document it replaces aside."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=_PARTIAL)
    previous: Path | None = None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if path.is_file():
            previous = _aside(folder, name)
            os.replace(path, previous)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        if previous is not None and not path.exists():
            os.replace(previous, path)
        raise
    return Upload(name, path, previous)


def settle(uploads: list[Upload], failed: set[Path]) -> None:
    """After the ingest: the file of a document that failed (``failed``: resolved paths)
    is removed and the newest version set aside comes back (earlier ones stay aside); a
    stored document's earlier versions are dropped. A folder left empty is removed."""
    for upload in uploads:
        kept = previous_versions(upload.path.parent, upload.name)
        if upload.path.resolve() in failed:
            upload.path.unlink(missing_ok=True)
            if kept:
                os.replace(kept[-1], upload.path)
        else:
            for version in kept:
                version.unlink(missing_ok=True)
    if uploads:
        forget_if_empty(uploads[0].path.parent)


def forget_if_empty(folder: Path) -> None:
    """Remove ``folder`` (and the ``uploads`` folder above it) when it holds nothing."""
    for path in (folder, folder.parent):
        try:
            path.rmdir()
        except OSError:  # not empty, or not there: nothing to forget
            return
