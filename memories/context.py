"""Contextual keys (issue 12): a memory read with what was said just before it.

A short turn ("haha yes, the blue one") means little alone. Each memory that belongs to a
conversation or a session gets a second key: its own vector plus half of each of the two memories
told just before it there, normalised. Recall scores a memory by the nearer of its two keys.

The key is built from vectors already stored, with no model call, so it costs the write path a
few milliseconds per batch and no embedding. bench/context_keys.py measured the alternative,
embedding the three turns' text: no better on the development chats, and two and a half times
the model time of the memories themselves. The key is built when a memory is indexed
(``indexing.index_batch``, hence ``reembed``) for the memory and the ones after it whose window
holds it, and again for the memories after one that is deleted. A memory with nothing told
before it has no contextual key.
"""

from __future__ import annotations

import threading
from collections import defaultdict

import numpy as np
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce

from memories import vector_search, vectors
from memories.models import Memory

BEFORE = 2  # memories told just before this one that its key holds
WEIGHT = 0.5  # each of them counts half as much as the memory itself

# owner id, conversation id, session, and whether it is what was said (evidence): a conversation's
# messages are read with the messages before them, its memories with the memories before them.
Group = tuple[int, int | None, str, bool]


def _group_of(
    owner_id: int, conversation_id: int | None, session: str, kind: str = Memory.Kind.MEMORY
) -> Group | None:
    said = kind in Memory.EVIDENCE
    if conversation_id is not None:
        return (owner_id, conversation_id, "", said)
    if session:
        return (owner_id, None, session, said)
    return None


def _members(group: Group) -> list[int]:
    """The group's memories in the order they were told (drafts included: a draft is replaced or
    confirmed in place, and its deletion rebuilds what follows it)."""
    owner_id, conversation_id, session, said = group
    rows = Memory.everything.filter(owner_id=owner_id)
    rows = rows.filter(kind__in=Memory.EVIDENCE) if said else rows.exclude(kind__in=Memory.EVIDENCE)
    if conversation_id is not None:
        rows = rows.filter(conversation_id=conversation_id)
    else:
        rows = rows.filter(conversation=None, session=session)
    rows = rows.annotate(when=Coalesce("happened_at", "created_at")).order_by("when", "pk")
    return list(rows.values_list("pk", flat=True))


def windows_of(order: list[int], changed: set[int]) -> dict[int, list[int]]:
    """For each memory of ``order`` whose window holds a changed one (itself or one of the
    ``BEFORE`` before it): the memories told just before it."""
    found = {}
    for position, memory_id in enumerate(order):
        if any(m in changed for m in order[max(0, position - BEFORE) : position + 1]):
            found[memory_id] = order[max(0, position - BEFORE) : position]
    return found


def key_of(own: np.ndarray, before: list[np.ndarray]) -> np.ndarray:
    key = own + WEIGHT * np.sum(before, axis=0)
    return (key / np.linalg.norm(key)).astype(np.float32)


def _write(windows: dict[int, list[int]]) -> int:
    """Compute and store the keys of these windows; answers how many were written."""
    needed = set(windows) | {m for before in windows.values() for m in before}
    own = vector_search.own_vectors(sorted(needed))
    rows, removed, written = [], [], defaultdict(list)
    for memory_id, before in windows.items():
        if memory_id not in own:
            continue  # not embedded yet: indexing it builds its key
        owner_id, blob = own[memory_id]
        around = [np.frombuffer(own[m][1], dtype=np.float32) for m in before if m in own]
        if around:
            vector = key_of(np.frombuffer(blob, dtype=np.float32), around)
            rows.append((memory_id, owner_id, vector.tobytes()))
        else:
            removed.append(memory_id)
        written[owner_id].append(memory_id)
    vector_search.replace_context_vectors(rows, removed=removed)
    vectors.record_writes(set(written), written)
    return len(rows)


def rebuild(memory_ids: list[int]) -> int:
    """Inside the transaction that wrote these memories' vectors: their keys, and the keys of the
    memories after them whose windows hold them."""
    changed: dict[Group, set[int]] = defaultdict(set)
    rows = Memory.everything.filter(pk__in=memory_ids)
    for pk, owner_id, conversation_id, session, kind in rows.values_list(
        "pk", "owner_id", "conversation_id", "session", "kind"
    ):
        if group := _group_of(owner_id, conversation_id, session, kind):
            changed[group].add(pk)
    windows = {}
    for group, ids in changed.items():
        windows |= windows_of(_members(group), ids)
    return _write(windows)


def rebuild_groups(groups: set[Group]) -> int:
    """Every key of these conversations and sessions (after a deletion in them)."""
    windows = {}
    for group in groups:
        order = _members(group)
        windows |= windows_of(order, set(order))
    with transaction.atomic():
        return _write(windows)


def rebuild_everything(*, owner_id: int | None = None) -> int:
    """Every key (``manage.py reembed`` does it through indexing; this builds them for memories
    indexed before contextual keys existed)."""
    rows = Memory.everything.filter(Q(conversation__isnull=False) | ~Q(session=""))
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    groups = {
        _group_of(*row)
        for row in rows.values_list("owner_id", "conversation_id", "session", "kind")
    }
    return rebuild_groups({group for group in groups if group})


# Deletions: the memories after a deleted one lose a neighbour. Rebuilt once the deleting
# transaction commits, once per conversation or session, however many rows it deleted.
_deleted = threading.local()


def memory_deleted(instance: Memory) -> None:
    group = _group_of(instance.owner_id, instance.conversation_id, instance.session, instance.kind)
    if group is None:
        return
    pending = _deleted.__dict__.setdefault("groups", set())
    pending.add(group)
    transaction.on_commit(_after_deletions)


def _after_deletions() -> None:
    groups = _deleted.__dict__.pop("groups", set())
    if groups:
        rebuild_groups(groups)
