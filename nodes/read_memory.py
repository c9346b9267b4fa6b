"""Read-region memory: what the model has already been shown, per collection, section and
document version — the thread's memory that marks or skips what was read, and reports
coverage.

Per thread, persisted across turns: per collection and ``(doc_id, sec_id)``, merged
inclusive intervals of paragraphs shown (keys ``scope/doc:sec``, see :func:`region_scope`),
and the version of each document they were shown from (``read_versions``: a document
written again is shown again). The reducers (:func:`merge_regions`, :func:`merge_versions`)
are the state channels'; the rest is what nodes compute with them.
"""

from __future__ import annotations

import bisect
import hashlib
from pathlib import Path
from typing import Any

from deepread.records.locations import is_url

Regions = dict[str, list[list[int]]]  # "doc_id:sec_id" -> [[start, end], ...] sorted, merged


def section_key(doc_id: int, sec_id: int) -> str:
    """The key of a section in a view of one collection's memory (:func:`view`)."""
    return f"{doc_id}:{sec_id}"


def region_scope(store: str, collection: str) -> str:
    """Which collection read-region memory is about: ``collection@<store digest>``.

    Coordinates are only unique within a collection — ``[1:1:0]`` of collection ``a`` and
    of ``b`` are different paragraphs, as are those of two stores' ``docs`` — so a thread
    that reads several keeps one memory per scope. The store is a digest (a location may
    be a URL with secrets; the state is shown to clients), of the resolved directory or
    the URL as given.
    """
    where = store if is_url(store) else str(Path(store).expanduser().resolve())
    return f"{collection}@{hashlib.sha256(where.encode('utf-8')).hexdigest()[:10]}"


def index_scope(index: Any) -> str:
    """:func:`region_scope` of an open ``Index`` (its store and collection name)."""
    return region_scope(index.store, index.name)


def region_key(doc_id: int, sec_id: int, scope: str) -> str:
    """The key of a section in the thread's read-region memory: ``scope/doc:sec``."""
    return f"{scope}/{section_key(doc_id, sec_id)}"


def view(regions: Regions | None, scope: str, without: set[int] | None = None) -> Regions:
    """The memory of one collection, keyed ``doc:sec`` (what the nodes work with).

    Keys of other scopes are left out (and those of the documents ``without``: changed
    since they were shown, :func:`changed_documents`), and so are the unscoped ``doc:sec`` keys that
    threads written before memory was scoped hold: which collection they meant is not
    known, so they count as not shown — such a paragraph is shown again when asked for,
    and cited only once it is (never a pointer to another collection's text).
    """
    prefix = f"{scope}/"
    return {
        k[len(prefix) :]: [list(iv) for iv in v]
        for k, v in (regions or {}).items()
        if k.startswith(prefix) and not (without and region_doc(k) in without)
    }


def scoped(regions: Regions, scope: str) -> Regions:
    """A view's memory keyed for the thread's state (the inverse of :func:`view`)."""
    return {f"{scope}/{k}": v for k, v in regions.items()}


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Sort and merge inclusive integer intervals (adjacent ones join)."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def merge_regions(current: Regions | None, update: Regions | None) -> Regions:
    """Reducer: the union of two read-region maps; a key ``update`` maps to ``None`` is
    forgotten (:func:`forget`)."""
    out = {k: [list(iv) for iv in v] for k, v in (current or {}).items()}
    for key, intervals in (update or {}).items():
        if intervals is None:
            out.pop(key, None)
            continue
        out[key] = merge_intervals(out.get(key, []) + [list(iv) for iv in intervals])
    return out


# -- which version of a document its read regions were shown from -----------------------
#
# A document written again under its doc_id (a re-ingest of a changed file, another
# process's write) or removed and its doc_id given to a new one keeps its coordinates,
# not its text: the memory of what the model was shown of it no longer says what the
# model saw. ``read_versions`` records, per ``scope/doc``, the committed version of the
# document (``Index.versions``) its paragraphs were shown from; a turn forgets the
# memory of every document whose version is no longer that one (the ``toc`` node), so
# its paragraphs are shown again, never pointed at as "shown above". Within a turn, an
# executor that finds a document changed since it was shown leaves its memory out of
# what it sees and marks its version mixed (:data:`MIXED`), which the next turn forgets.

#: A document shown from two versions within one turn: forgotten at the next turn.
MIXED = ""


def version_key(doc_id: int, scope: str) -> str:
    """The key of a document in ``read_versions``: ``scope/doc``."""
    return f"{scope}/{doc_id}"


def merge_versions(
    current: dict[str, str] | None, update: dict[str, str | None] | None
) -> dict[str, str]:
    """Reducer: ``current`` updated by ``update``; a key mapped to ``None`` is dropped."""
    out = dict(current or {})
    for key, version in (update or {}).items():
        if version is None:
            out.pop(key, None)
        else:
            out[key] = version
    return out


def changed_documents(state: Any, scope: str, versions: dict[int, str]) -> set[int]:
    """The documents of ``scope`` the thread's memory holds regions of whose version now
    (``versions``: doc_id → committed version; absent when removed) is not the one they
    were shown from — or was never recorded (a thread from before versions were)."""
    shown = state.get("read_versions") or {}
    prefix = f"{scope}/"
    docs = {region_doc(k) for k in state.get("read_regions") or {} if k.startswith(prefix)}
    return {
        d
        for d in docs
        if (seen := shown.get(version_key(d, scope))) in (None, MIXED) or seen != versions.get(d)
    }


def forget(state: Any, scope: str, docs: set[int]) -> dict[str, Any]:
    """The state update forgetting what the memory holds of ``docs`` in ``scope``."""
    if not docs:
        return {}
    prefix = f"{scope}/"
    regions = {
        k: None
        for k in state.get("read_regions") or {}
        if k.startswith(prefix) and region_doc(k) in docs
    }
    return {
        "read_regions": regions,
        "read_versions": {version_key(d, scope): None for d in docs},
    }


def shown_versions(
    state: Any, scope: str, docs: set[int], versions: dict[int, str], changed: set[int]
) -> dict[str, str]:
    """The ``read_versions`` update for ``docs`` just shown from ``versions``: their
    version, or :data:`MIXED` for a document shown before from another version this turn
    (``changed``) or recorded with another."""
    shown = state.get("read_versions") or {}
    out: dict[str, str] = {}
    for d in docs:
        key, now = version_key(d, scope), versions.get(d, MIXED)
        seen = shown.get(key)
        out[key] = MIXED if d in changed or (seen is not None and seen != now) else now
    return out


def subtract_regions(regions: Regions, removed: Regions | None) -> Regions:
    """``regions`` without the paragraphs of ``removed``."""
    out: Regions = {}
    for key, intervals in regions.items():
        cut = removed.get(key) if removed else None
        if not cut:
            out[key] = [list(iv) for iv in intervals]
            continue
        kept: list[list[int]] = []
        for start, end in intervals:
            pieces = [[start, end]]
            for a, b in cut:
                pieces = [
                    q
                    for p, e in pieces
                    for q in ([[p, min(e, a - 1)]] if p <= min(e, a - 1) else [])
                    + ([[max(p, b + 1), e]] if max(p, b + 1) <= e else [])
                ]
            kept += pieces
        if kept:
            out[key] = merge_intervals(kept)
    return out


def region_doc(key: str) -> int:
    """The doc_id of a read-region key: of a view's ``doc:sec`` and of the thread's
    scoped ``scope/doc:sec`` alike (a scope is ``collection@digest``, never holding a
    ``/``)."""
    return int(key.rsplit("/", 1)[-1].split(":")[0])


def was_read(regions: Regions, doc_id: int, sec_id: int, para_idx: int) -> bool:
    """Whether ``para_idx`` lies in one of the section's intervals — sorted and merged,
    as :func:`merge_regions` keeps them — found by bisection: a check of every cited
    paragraph costs a logarithm of the intervals, not their number."""
    intervals = regions.get(section_key(doc_id, sec_id))
    if not intervals:
        return False
    i = bisect.bisect_right(intervals, para_idx, key=lambda iv: iv[0]) - 1
    return i >= 0 and intervals[i][0] <= para_idx <= intervals[i][1]


def regions_of(coords: list[tuple[int, int, int]]) -> Regions:
    """The read regions covering ``coords``."""
    out: Regions = {}
    for doc_id, sec_id, para_idx in coords:
        out.setdefault(section_key(doc_id, sec_id), []).append([para_idx, para_idx])
    return {k: merge_intervals(v) for k, v in out.items()}


def coords_of(regions: Regions, docs: list[int] | None = None) -> set[tuple[int, int, int]]:
    """The paragraph coordinates ``regions`` (a :func:`view`) cover (the inverse of
    :func:`regions_of`), only those of ``docs`` when given."""
    out: set[tuple[int, int, int]] = set()
    for key, spans in regions.items():
        doc_id, sec_id = map(int, key.split(":"))
        if docs is None or doc_id in docs:
            out.update((doc_id, sec_id, p) for a, b in spans for p in range(a, b + 1))
    return out
