"""A process that holds an embedded collection: ``python hold_store.py STORE COLLECTION``.

It opens the collection (the embedded engine's lock), says ``held`` on stdout, and lets
go when a line arrives on its stdin — what a test of a second process waiting for the
store needs, without a model or a chat.
"""

from __future__ import annotations

import sys

import deepread

if __name__ == "__main__":
    store, collection = sys.argv[1], sys.argv[2]
    with deepread.Index.open(store=store, collection=collection) as index:
        index.documents()
        print("held", flush=True)
        sys.stdin.readline()
    print("released", flush=True)
