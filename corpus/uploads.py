"""Documents sent as content: a name plus text or base64 bytes, checked and capped.

A remote client of a served ``ingest`` graph has no paths on the server, so it sends the
documents themselves. Each one is written, under its own name, to an upload folder beside
the store (``<store>/uploads/<collection>/``), and then goes through the same pipeline as
a path: the same parser, the same "unchanged" skip by content hash, the same per-file
failure lines. Sending a name again replaces that document.

What is refused, each as that file's failure naming the field: a name with a folder part,
a hidden name or an unsupported type; neither or both of ``text`` and ``content_base64``;
bytes that are not base64; content over the per-file cap. More files than the per-run cap
refuses the whole request. The caps are the operator's, from the environment.
"""

from __future__ import annotations

import base64
import binascii
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepread.corpus.files import IngestFailure
from deepread.corpus.parsing import SUPPORTED_SUFFIXES
from deepread.environment.settings import current as current_settings
from deepread.stores.location import sidecar_dir

#: Bytes one document sent as content may have (after base64 decoding).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: Documents one run may send as content.
MAX_FILES = 50
MAX_NAME = 200


@dataclass(slots=True)
class Upload:
    """A document sent as content, saved where the pipeline reads it."""

    name: str
    path: Path


class UploadRefused(ValueError):
    """The request as a whole is over a cap (the message names the field and the cap)."""


def _cap(env: str, default: int) -> int:
    raw = current_settings().ingest_caps.get(env.removeprefix("DEEPREAD_INGEST_MAX_").lower())
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise UploadRefused(f"{env}={raw!r} is not a whole number of bytes/files") from None
    return max(value, 0)


def max_file_bytes() -> int:
    return _cap("DEEPREAD_INGEST_MAX_FILE_BYTES", MAX_FILE_BYTES)


def max_files() -> int:
    return _cap("DEEPREAD_INGEST_MAX_FILES", MAX_FILES)


def upload_dir(store: str, collection: str) -> Path:
    """Where documents sent as content to ``collection`` are kept."""
    return sidecar_dir(store) / "uploads" / collection


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: a file name such as 'notes.md' is required")
    if len(name) > MAX_NAME:
        raise ValueError(f"name: at most {MAX_NAME} characters")
    if name != Path(name).name or "\\" in name or "\x00" in name or name in (".", ".."):
        raise ValueError(f"name: {name!r} must be a bare file name, without folders")
    if name.startswith("."):
        raise ValueError(f"name: {name!r} must not start with '.'")
    if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
        raise ValueError(f"name: {name!r} has no supported type "
                         f"({' '.join(SUPPORTED_SUFFIXES)})")
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
            raise ValueError(f"content_base64: over the cap of {cap} bytes per file "
                             "(DEEPREAD_INGEST_MAX_FILE_BYTES)")
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("content_base64: not valid base64") from None
        field = "content_base64"
    if len(data) > cap:
        raise ValueError(f"{field}: {len(data)} bytes, over the cap of {cap} bytes per file "
                         "(DEEPREAD_INGEST_MAX_FILE_BYTES)")
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
        raise UploadRefused(f"files: {len(files)} documents, over the cap of {limit} per run "
                            "(DEEPREAD_INGEST_MAX_FILES)")
    uploads: list[Upload] = []
    failures: list[IngestFailure] = []
    names: set[str] = set()
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
        except ValueError as exc:  # every message starts with the field it is about
            sep = "" if str(exc).startswith(":") else "."
            failures.append(IngestFailure(label, f"files[{i}]{sep}{exc}"))
            continue
        names.add(name)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        # written whole or not at all: a half-written file must never be ingested
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            failures.append(IngestFailure(name, f"could not be saved: {exc.strerror or exc}"))
            continue
        uploads.append(Upload(name, path))
    return uploads, failures
