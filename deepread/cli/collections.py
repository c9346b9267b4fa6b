"""What a store holds, and taking documents out: ``deepread collections`` and ``deepread rm``.

``collections`` lists every collection of the store with its documents, paragraphs and
size on disk (the embedded engine's folder; a Qdrant server does not say, so ``null``).
``rm DOC…`` removes documents by ``doc_id`` or by the path of the file they were ingested
from; every name is checked before anything is removed, so a typo in the third removes
nothing (exit 2, naming what exists). Neither command creates a collection: an unknown
one is exit 2 with the names of those that exist.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepread.cli.common import EXIT_OK, emit, open_index, reading_index, store_of
from deepread.terminal import say

if TYPE_CHECKING:  # annotations only: the CLI loads the store when a command runs
    from deepread.records.documents import Document


def register(
    sub: argparse._SubParsersAction,
    common: argparse.ArgumentParser,
    store_options: argparse.ArgumentParser,
) -> None:
    p = sub.add_parser(
        "collections",
        parents=[store_options],
        help="list the store's collections: documents, paragraphs, size",
    )
    p.set_defaults(func=cmd_collections)

    p = sub.add_parser(
        "rm", parents=[common], help="remove documents (by doc_id or file path) from a collection"
    )
    p.add_argument(
        "docs", nargs="+", metavar="DOC", help="a doc_id, or the path of a file that was ingested"
    )
    p.set_defaults(func=cmd_rm)


def known_collections(store: str) -> list[str]:
    from deepread.corpus.index import Index
    from deepread.environment.settings import current

    settings = current()
    return Index.list_collections(
        store, api_key=settings.qdrant_api_key, timeout=settings.qdrant_timeout
    )


def require_collection(store: str, name: str) -> None:
    """A :class:`~deepread.records.errors.UsageError` unless ``name`` exists in
    ``store`` (nothing is created)."""
    from deepread.records.errors import UsageError
    from deepread.records.locations import check_collection_name

    check_collection_name(name)
    known = known_collections(store)
    if name not in known:
        there = ", ".join(repr(n) for n in known) or "none yet"
        raise UsageError(f"no collection {name!r} in store {store}; collections there: {there}")


def human_bytes(n: int | None) -> str:
    if n is None:
        return "—"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def cmd_collections(args: argparse.Namespace) -> int:
    from deepread.records.locations import folder_bytes, is_url

    store = store_of(args)
    rows: list[dict[str, Any]] = []
    for name in known_collections(store):
        with reading_index(args, collection=name) as idx:
            docs = idx.documents()
        size = (
            None if is_url(store) else folder_bytes(Path(store).expanduser() / "collections" / name)
        )
        rows.append(
            {
                "name": name,
                "documents": len(docs),
                "paragraphs": sum(d.n_para for d in docs),
                "bytes": size,
            }
        )
    if args.json:
        emit({"store": store, "collections": rows})
        return EXIT_OK
    if not rows:
        say(f"no collections in store {store} yet; create one with deepread ingest", err=True)
        return EXIT_OK
    width = max(len(r["name"]) for r in rows)
    say(f"{'collection':<{width}}  documents  paragraphs       size")
    for r in rows:
        say(
            f"{r['name']:<{width}}  {r['documents']:>9}  {r['paragraphs']:>10}  "
            f"{human_bytes(r['bytes']):>9}"
        )
    return EXIT_OK


def cmd_rm(args: argparse.Namespace) -> int:
    from deepread.records.errors import CoordinateError
    from deepread.text.hygiene import storable

    store = store_of(args)
    require_collection(store, args.collection)
    with open_index(args) as idx:
        wanted: list[Document] = []
        for name in args.docs:
            if name.isascii() and name.isdigit():
                doc = idx.toc(int(name))[0]  # unknown: exit 2 naming the doc_ids
            else:  # the path as ingest stored it (resolved, undecodable bytes kept)
                source = storable(str(Path(name).expanduser().resolve()))
                doc = next((d for d in idx.documents() if d.source == source), None)
            if doc is None:
                stored = ", ".join(f"({d.doc_id}) {d.source}" for d in idx.documents()[:10])
                raise CoordinateError(
                    f"no document was ingested from {name!r} into "
                    f"collection {args.collection!r}; its documents: "
                    f"{stored or 'none'}"
                )
            if doc.doc_id not in {d.doc_id for d in wanted}:
                wanted.append(doc)
        for doc in wanted:  # every name checked first: a typo removes nothing
            idx.remove(doc.doc_id)
    if args.json:
        emit(
            {
                "collection": args.collection,
                "removed": [
                    {"doc_id": d.doc_id, "title": d.title, "source": d.source} for d in wanted
                ],
            }
        )
        return EXIT_OK
    for d in wanted:
        say(f"removed ({d.doc_id}) {d.title} — {d.source}")
    return EXIT_OK
