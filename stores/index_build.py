"""Building a collection's vector index beside it, in a process of its own, so that the
process holding the collection answers reads while it is built.

The embedded engine's ``optimize`` holds Python's lock for the whole build (30,000
paragraphs: 20.9 s here, docs/history/benchmarks-2026.md §49): run in the holder, it
stops every reader on the machine, since they all reach the collection through the
holder (:mod:`deepread.stores.edge`). So the holder flushes, copies the collection's
files into ``collections/.NAME.building-PID`` (a real copy — the engine rewrites some
files in place, so nothing may be shared with the live collection), and a child process
(this module, run with ``python -m``) loads the copy, builds it and closes it; meanwhile
the holder answers reads from the live files and holds writes back
(:mod:`deepread.stores.shard_gate`: a write would not be in the copy). Then, for a
moment and under the creation lock, it closes the live collection, moves it aside to
``.NAME.replaced``, renames the built copy into its place and opens it.

A holder killed at any point leaves the collection whole: before the first rename the
live one is untouched and the copy is stale (the next holder removes it); between the
two renames the collection is ``.NAME.replaced``, complete as flushed, and the next
holder puts it back (:func:`recover`); after them the built copy is the collection and
the one aside is removed.

When the build cannot be made beside (no room on the disk for the copy, no Python to
start, the child fails) it is made in the holder as before, and that is said on stderr.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

from deepread.records.locations import folder_bytes
from deepread.stores.disk_space import NoSpaceError, ensure_space
from deepread.stores.file_locks import creation_lock

#: The lines of a failed child's stderr said with the failure.
_TAIL = 6


def replaced_path(collection: Path) -> Path:
    """Where the live collection is moved aside while a built copy takes its place."""
    return collection.parent / f".{collection.name}.replaced"


def present(collection: Path) -> bool:
    """Whether the collection exists — in its place, or aside for the moment of a swap."""
    return (collection / "edge_config.json").is_file() or (
        replaced_path(collection) / "edge_config.json"
    ).is_file()


def recover(collection: Path) -> None:
    """Finish or undo a swap a killed holder left, and remove stale copies. Only under
    the engine lock (the caller's): then no other process builds or swaps."""
    replaced = replaced_path(collection)
    with creation_lock(collection):
        if replaced.exists():
            if (collection / "edge_config.json").is_file():
                shutil.rmtree(replaced, ignore_errors=True)  # the swap was done
            else:
                # killed between the renames: the one aside is the collection as flushed
                if collection.exists():
                    shutil.rmtree(collection)
                os.rename(replaced, collection)
    for stale in collection.parent.glob(f".{collection.name}.building-*"):
        shutil.rmtree(stale, ignore_errors=True)


#: Bytes copied at a time.
_CHUNK = 1 << 20


def copy_sparse(source: str, target: str) -> None:
    """Copy a file keeping its holes: the engine makes its vector files at full size and
    fills them as points come (766 MB on the disk for 1.2 GB of files over the 155
    filings), and a plain copy would write every hole out as zeros — into the copy that
    becomes the collection."""
    if not hasattr(os, "SEEK_DATA"):  # no way to find the holes here
        shutil.copy2(source, target)
        return
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        at = 0
        while at < size:
            try:
                start = os.lseek(src.fileno(), at, os.SEEK_DATA)
                end = os.lseek(src.fileno(), start, os.SEEK_HOLE)
            except OSError as exc:
                if exc.errno == errno.ENXIO:
                    break  # nothing but a hole from ``at`` to the end
                start, end = at, size  # a filesystem that cannot say: copy it all
            src.seek(start)
            dst.seek(start)
            left = end - start
            while left > 0 and (chunk := src.read(min(_CHUNK, left))):
                dst.write(chunk)
                left -= len(chunk)
            at = end
        dst.truncate(size)
    shutil.copystat(source, target)


def build_beside(collection: Path) -> Path | None:
    """A copy of the (flushed) collection with its vector index built by a child
    process, or ``None`` — said on stderr — when it could not be made that way."""
    copy = collection.parent / f".{collection.name}.building-{os.getpid()}"
    try:
        shutil.rmtree(copy, ignore_errors=True)
        ensure_space(collection.parent, folder_bytes(collection), "copying it to build its index")
        shutil.copytree(collection, copy, copy_function=copy_sparse)
        child = subprocess.run(
            [sys.executable, "-m", __name__, str(copy)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, NoSpaceError) as exc:
        why = str(exc)
    except BaseException:  # Ctrl-C: the child is ended by subprocess.run, its copy here
        shutil.rmtree(copy, ignore_errors=True)
        raise
    else:
        if child.returncode == 0:
            return copy
        tail = " / ".join(child.stderr.strip().splitlines()[-_TAIL:])
        why = f"the build process exited with {child.returncode}" + (f": {tail}" if tail else "")
    shutil.rmtree(copy, ignore_errors=True)
    print(
        f"deepread: the vector index of {collection} could not be built beside it ({why}); "
        "building it in this process — readers wait until it is done",
        file=sys.stderr,
        flush=True,
    )
    return None


def swap_in(collection: Path, built: Path) -> None:
    """Put the built copy in the collection's place, the live one aside (the caller
    has closed it). :func:`put_back` undoes it; :func:`drop_replaced` ends it."""
    with creation_lock(collection):
        os.rename(collection, replaced_path(collection))
        os.rename(built, collection)


def put_back(collection: Path) -> None:
    """Undo :func:`swap_in`: the collection as it was before the build comes back."""
    failed = collection.parent / f".{collection.name}.failed-{os.getpid()}"
    with creation_lock(collection):
        os.rename(collection, failed)
        os.rename(replaced_path(collection), collection)
    shutil.rmtree(failed, ignore_errors=True)


def drop_replaced(collection: Path) -> None:
    shutil.rmtree(replaced_path(collection), ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """The child: build the vector index of the copy at ``argv[0]`` and close it."""
    import qdrant_edge as qe

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m deepread.stores.index_build COLLECTION_COPY", file=sys.stderr)
        return 2
    path = Path(args[0])
    try:
        # the settings the holder opened it with, stored in the copy (stores/shard.py)
        shard = qe.EdgeShard.load(str(path))
        try:
            shard.optimize()
            shard.flush()
        finally:
            shard.close()
    except Exception as exc:  # the engine raises bare Exception; the parent says it
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
