"""A digest of what the parsers make of each file, to show a refactor leaves it unchanged.

For every file of the given folders (by default its PDFs), the raw block stream
(``read_blocks``) and the structured document (``parse_file``) are written out as their
``repr()`` and hashed; a file the parsers refuse gives its ParseError's message instead.
Run it before and after a change that should not alter parsing (a module split, a
formatter over the tree) and compare the lines, or the folders ``--out`` writes:

    python bench/parse_digest.py DIR... [--glob '*.pdf'] [--out FOLDER] > before.txt
    (change the code)
    python bench/parse_digest.py DIR... [--glob '*.pdf'] [--out FOLDER] > after.txt
    diff before.txt after.txt            # nothing printed: byte-identical

Each line: sha256 (first 16 hex digits), characters, folder/file; the seconds each
file took go to stderr (they vary with the machine's load).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from deepread.corpus.parsing import ParseError, parse_file, read_blocks


def digest(path: Path) -> str:
    """The text compared: the blocks and the structure of ``path``, or why it failed."""
    try:
        return repr(read_blocks(path)) + "\n" + repr(parse_file(path))
    except ParseError as exc:
        return f"ParseError: {exc}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--glob", default="*.pdf", help="which files (default: *.pdf)")
    parser.add_argument("--out", type=Path, help="also write each file's text here")
    args = parser.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for folder in args.folders:
        for path in sorted(folder.glob(args.glob)):
            start = time.perf_counter()
            text = digest(path)
            seconds = time.perf_counter() - start
            name = f"{folder.name}/{path.name}"
            if args.out:
                (args.out / name.replace("/", "__")).with_suffix(".txt").write_text(text)
            sha = hashlib.sha256(text.encode()).hexdigest()[:16]
            print(f"{sha} {len(text)} {name}", flush=True)
            print(f"{seconds:6.1f} s  {name}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
