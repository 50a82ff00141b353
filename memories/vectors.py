"""Exact nearest-neighbour search over a member's vectors, in this process's memory.

The vectors live in sqlite-vec (``memory_vec``, one partition per member) and stay the source of
truth. Its KNN is a brute-force scan with a scalar cosine loop (the PyPI wheel has no SIMD,
TECH_NOTES §1.1): 22 ms for a member with 40k memories, a third of recall's whole budget. The
same exact scan as one matrix product through BLAS takes about 2 ms, so each process keeps a copy
of the partitions it searches and brings it up to date before each search:

- every vector write bumps the member's ``VectorClock.tick`` inside the write transaction and
  stamps the memories with it, so the copy fetches only the rows written after its tick;
- a deleted memory bumps ``deletions``; the copy is then read again whole (deletes are rare).

Writers take the database's write lock before they read the clock (IMMEDIATE transactions), so
ticks are handed out in commit order and a reader that has seen tick N has every row up to N.
``TALKINGROCK_RECALL["vector_search"] = "sqlite-vec"`` searches sqlite-vec directly instead.

Past ``TWO_PASS_ROWS`` rows (a member whose messages are evidence too: 160k rows and as many
contextual keys for the largest in bench/recall_latency.py), reading every vector whole is
memory-bound: 40 ms a question. Such a partition also keeps each row in ``REDUCED`` dimensions
(its coordinates on the partition's own principal directions, fixed when it first grows past the
threshold), and a search reads those first, then scores its ``SHORTLIST`` best exactly: 13 ms
instead of 40.5, and recall's top 10 the same as with the full scan for 200 of the benchmark's
200 questions (bench/recall_latency.py checks it each run). Smaller partitions keep the single
exact scan.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import F

from memories import vector_search
from memories.models import Memory, VectorClock
from talkingrock.embeddings import DIMENSIONS

_lock = threading.Lock()

TWO_PASS_ROWS = 20_000
REDUCED = 128  # dimensions read by the first pass
# The rows the first pass hands to the exact one: this many, or this many per neighbour asked.
SHORTLIST = 2_000
SHORTLIST_PER_ASKED = 20
BASIS_SAMPLE = 20_000  # rows (own and contextual keys) the principal directions are found from


@dataclass
class Partition:
    ids: np.ndarray  # int64, the first ``size`` rows are in use
    matrix: np.ndarray  # float32 (capacity, 384), unit rows
    context: np.ndarray  # each row's contextual key (memories/context.py), else its own vector
    size: int
    tick: int
    deletions: int
    position: dict[int, int]
    # Past TWO_PASS_ROWS: the directions (DIMENSIONS × REDUCED) and every row's coordinates on
    # them, own and contextual, for the first pass of a search.
    basis: np.ndarray | None = None
    reduced: np.ndarray | None = None
    reduced_context: np.ndarray | None = None

    @classmethod
    def empty(cls, tick: int, deletions: int) -> Partition:
        empty = np.zeros((0, DIMENSIONS), np.float32)
        return cls(np.zeros(0, np.int64), empty, empty.copy(), 0, tick, deletions, {})

    def put(self, rows: list[tuple[int, bytes, bytes | None]]) -> None:
        """Write (memory id, blob, contextual blob or None) rows: replace the ones it has,
        append the rest."""
        new = [row for row in rows if row[0] not in self.position]
        if self.size + len(new) > len(self.ids):  # grow by half again: appends stay cheap
            capacity = max(int((self.size + len(new)) * 1.5), 64)
            self.ids = np.resize(self.ids, capacity)
            for name in ("matrix", "context", "reduced", "reduced_context"):
                if (current := getattr(self, name)) is not None:
                    grown = np.zeros((capacity, current.shape[1]), np.float32)
                    grown[: self.size] = current[: self.size]
                    setattr(self, name, grown)
        written = []
        for memory_id, blob, context in rows:
            row = self.position.get(memory_id)
            if row is None:
                row = self.position[memory_id] = self.size
                self.ids[row] = memory_id
                self.size += 1
            self.matrix[row] = np.frombuffer(blob, dtype=np.float32)
            self.context[row] = np.frombuffer(context or blob, dtype=np.float32)
            written.append(row)
        if self.basis is not None:
            self.reduced[written] = self.matrix[written] @ self.basis
            self.reduced_context[written] = self.context[written] @ self.basis
        elif self.size > TWO_PASS_ROWS:
            self._reduce()

    def _reduce(self) -> None:
        """Fix the partition's principal directions (from a fixed sample of its rows, own and
        contextual) and put every row's coordinates on them beside it."""
        sample = np.random.default_rng(0).choice(
            self.size, min(self.size, BASIS_SAMPLE // 2), replace=False
        )
        stacked = np.vstack([self.matrix[sample], self.context[sample]])
        _, _, directions = np.linalg.svd(stacked, full_matrices=False)
        self.basis = np.ascontiguousarray(directions[:REDUCED].T, dtype=np.float32)
        self.reduced = np.zeros((len(self.ids), REDUCED), np.float32)
        self.reduced_context = np.zeros((len(self.ids), REDUCED), np.float32)
        self.reduced[: self.size] = self.matrix[: self.size] @ self.basis
        self.reduced_context[: self.size] = self.context[: self.size] @ self.basis


# (database name, owner id) → partition; a test database and a real one never share an entry.
_partitions: dict[tuple[str, int], Partition] = {}


def _clock(owner_id: int) -> tuple[int, int]:
    row = VectorClock.objects.filter(owner_id=owner_id).values_list("tick", "deletions").first()
    return row or (0, 0)


def _read(owner_id: int, ids: list[int] | None) -> list[tuple[int, bytes, bytes | None]]:
    return vector_search.partition_rows(owner_id, ids)


def partition(owner_id: int) -> Partition:
    """The member's vectors as of now."""
    key = (connection.settings_dict["NAME"], owner_id)
    tick, deletions = _clock(owner_id)
    with _lock:
        current = _partitions.get(key)
        if current is None or current.deletions != deletions or tick < current.tick:
            current = Partition.empty(tick, deletions)
            current.put(_read(owner_id, None))
            _partitions[key] = current
        elif tick > current.tick:
            changed = list(
                Memory.everything.filter(owner_id=owner_id, vector_tick__gt=current.tick)
                .order_by()
                .values_list("pk", flat=True)
            )
            current.put(_read(owner_id, changed))
            current.tick = tick
        return current


def _similarity(
    part: Partition, rows, vector: np.ndarray, context: bool, *, reduced: bool = False
) -> np.ndarray:
    own, keys = (part.reduced, part.reduced_context) if reduced else (part.matrix, part.context)
    found = own[rows] @ vector
    return np.maximum(found, keys[rows] @ vector) if context else found


def nearest(
    part: Partition, *, vector: np.ndarray, k: int, context: bool = False
) -> list[tuple[int, float]]:
    """The partition's ``k`` memories nearest to ``vector``: (memory id, cosine distance). With
    ``context``, a memory is as near as the nearer of its own and its contextual key."""
    if not part.size:
        return []
    rows = slice(0, part.size)  # every row, read in place
    if part.basis is not None:  # the first pass, on the reduced coordinates: a shortlist
        shortlist = min(part.size, max(SHORTLIST, SHORTLIST_PER_ASKED * k))
        first = _similarity(part, rows, vector @ part.basis, context, reduced=True)
        rows = np.argpartition(-first, shortlist - 1)[:shortlist]
    ids = part.ids[rows]
    similarity = _similarity(part, rows, vector, context)
    k = min(k, len(ids))
    top = np.argpartition(-similarity, k - 1)[:k]
    top = top[np.lexsort((-ids[top], -similarity[top]))]
    return [(int(ids[i]), float(1 - similarity[i])) for i in top]


def distances(
    part: Partition, *, vector: np.ndarray, ids: list[int], context: bool = False
) -> dict[int, float]:
    """Cosine distance from ``vector`` to each of the partition's memories in ``ids`` (with
    ``context``, the nearer of its two keys)."""
    rows = [
        (memory_id, part.position[memory_id]) for memory_id in ids if memory_id in part.position
    ]
    if not rows:
        return {}
    similarity = _similarity(part, [row for _, row in rows], vector, context)
    return {memory_id: float(1 - s) for (memory_id, _), s in zip(rows, similarity, strict=True)}


def rows(part: Partition | None, owner_id: int, ids: list[int]) -> dict[int, np.ndarray]:
    """The vectors of ``ids`` (the member's own): from the partition when there is one, else read
    from the member's rows of memory_vec."""
    if part is not None:
        return {i: part.matrix[part.position[i]] for i in ids if i in part.position}
    return {i: np.frombuffer(blob, dtype=np.float32) for i, blob, _ in _read(owner_id, ids)}


def record_writes(owner_ids: set[int], memory_ids_by_owner: dict[int, list[int]]) -> None:
    """Inside the transaction that wrote these vectors: a new tick per member, stamped on them."""
    for owner_id in owner_ids:
        VectorClock.objects.get_or_create(owner_id=owner_id)
        VectorClock.objects.filter(owner_id=owner_id).update(tick=F("tick") + 1)
        tick = VectorClock.objects.values_list("tick", flat=True).get(owner_id=owner_id)
        Memory.everything.filter(pk__in=memory_ids_by_owner[owner_id]).update(vector_tick=tick)


def record_deletion(owner_id: int) -> None:
    VectorClock.objects.filter(owner_id=owner_id).update(deletions=F("deletions") + 1)


def forget() -> None:
    """Drop every cached partition (tests)."""
    with _lock:
        _partitions.clear()
