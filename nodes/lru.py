"""A small thread-safe map that keeps its most recently used entries: the bound on the
process-wide memos of the nodes (token counts, document vocabularies, title vectors).

A memo in a long-lived server process that is keyed by what clients send or documents
hold must not grow with them; an ``Lru`` forgets the entry used least recently once it
holds ``size`` of them (or entries weighing ``size`` in all: the titles of TOCs). It is
never keyed by large texts themselves — a key is held as long as its entry — so callers
key by a digest.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """``get_or_make(key, make)``: the kept value, else ``make()`` kept and returned.

    ``size`` bounds the sum of the entries' ``weight`` (default 1 each: their number);
    a value heavier than ``size`` alone is returned but not kept.
    """

    def __init__(self, size: int, weight: Callable[[V], int] | None = None) -> None:
        self.size = size
        self._weight = weight or (lambda _value: 1)
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        value = make()  # outside the lock: making may be slow, and a race only repeats it
        weight = self._weight(value)
        if weight > self.size:
            return value
        with self._lock:
            if key in self._items:
                self._total -= self._items.pop(key)[1]
            self._items[key] = (value, weight)
            self._total += weight
            while self._total > self.size:
                self._total -= self._items.popitem(last=False)[1][1]
        return value

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._items)

    def __len__(self) -> int:
        return len(self._items)
