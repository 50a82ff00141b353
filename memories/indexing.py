"""The write path after a memory is stored (seed 002): embed it, build its contextual key
(memories/context.py), extract its entities, link them. Runs in the background (``request_indexing``) and in ``manage.py reembed``.

A memory is pending while ``indexed_hash`` differs from ``content_hash``, so editing a memory
re-indexes it and running twice does nothing. The model and the extractor run outside any
transaction; each batch is then written in one short transaction (TECH_NOTES §4: never hold the
write lock across slow work). A row edited meanwhile keeps its new hash and is picked up again.
The model embeds each batch in a thread of its own while the names of that batch are read and
the batch before is written (docs/benchmarks.md: re-indexing 10k, 129 → 146 a second).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from memories import context, vector_search, vectors
from memories import entities as entity_rules
from memories.models import Entity, Memory, MemoryItem, Mention
from talkingrock import embeddings, jobs

# Texts per model call and per write transaction: enough for length-sorting to cut padding.
BATCH_SIZE = 256
_QUEUED_KEY = "memories:index-queued:{owner_id}:{part}"


@dataclass(frozen=True)
class Pending:
    id: int
    owner_id: int
    content: str
    content_hash: str
    kind: str = Memory.Kind.MEMORY

    @property
    def is_evidence(self) -> bool:
        return self.kind in Memory.EVIDENCE


def parts() -> int:
    """Into how many parts a member's pending memories are cut (by id), one task for each: as
    many as the worker has processes, so that one member's import is embedded on every core."""
    return max(1, int(settings.Q_CLUSTER.get("workers", 1)))


def request_indexing(*, owner_id: int) -> None:
    """Ask for the owner's pending memories to be indexed once the transaction commits, one task
    for each part (``parts``).

    One queued task serves every store made before it starts: the task clears the flag before it
    looks for pending rows, so a store that lands after that look queues a task of its own.
    """
    for part in range(parts()):
        if cache.add(_QUEUED_KEY.format(owner_id=owner_id, part=part), True, timeout=600):
            jobs.enqueue("memories.tasks.index_memories", owner_id, part, owner_id=owner_id)


def index_member(owner_id: int, part: int) -> int:
    """Index one part of the member's pending memories, as the worker does: one process at a
    time for each part (``jobs.one_at_a_time``), so that two workers never embed the same rows.
    A task that finds another indexing the part leaves the rows to it, and that one looks again
    before it stops."""
    return jobs.one_at_a_time(
        f"index-member-{owner_id}-part-{part}",
        lambda: index_memories(owner_id=owner_id, part=part),
    )


def members_pending() -> list[int]:
    """The members with memories waiting to be indexed (the sweep's list)."""
    rows = Memory.everything.exclude(indexed_hash=F("content_hash")).order_by("owner_id")
    return list(rows.values_list("owner_id", flat=True).distinct())


_FIELDS = ("id", "owner_id", "content", "content_hash", "kind")


def _pending(
    *, owner_id: int | None, after_id: int, everything: bool, limit: int, part: int | None = None
) -> list[Pending]:
    """Memories and what was said (evidence), both embedded the same way; of one part only, if
    ``part`` is given (the ids that leave it over when divided by ``parts()``)."""
    rows = Memory.everything.filter(pk__gt=after_id)
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    if part is not None:
        rows = rows.alias(part=F("pk") % parts()).filter(part=part)
    if not everything:
        rows = rows.exclude(indexed_hash=F("content_hash"))
    return [Pending(*row) for row in rows.order_by("pk").values_list(*_FIELDS)[:limit]]


def pending_count(*, owner_id: int | None = None, everything: bool = False) -> int:
    rows = Memory.everything.all()
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    return rows.count() if everything else rows.exclude(indexed_hash=F("content_hash")).count()


def _write_mentions(batch: list[Pending], found: list[list[entity_rules.ExtractedEntity]]):
    ids = [item.id for item in batch]
    Mention.objects.filter(memory_id__in=ids).delete()
    wanted = {
        (item.owner_id, e.normalized): e for item, es in zip(batch, found, strict=True) for e in es
    }
    known = {
        (entity.owner_id, entity.normalized): entity
        for entity in Entity.objects.filter(
            owner_id__in={owner for owner, _ in wanted},
            normalized__in={normalized for _, normalized in wanted},
        )
    }
    new = [
        Entity(owner_id=owner, name=e.name, normalized=normalized, kind=e.kind)
        for (owner, normalized), e in wanted.items()
        if (owner, normalized) not in known
    ]
    Entity.objects.bulk_create(new, ignore_conflicts=True)
    if new:  # ignore_conflicts leaves the pks unset: read them back
        known.update(
            {
                (entity.owner_id, entity.normalized): entity
                for entity in Entity.objects.filter(
                    owner_id__in={entity.owner_id for entity in new},
                    normalized__in={entity.normalized for entity in new},
                )
            }
        )
    Mention.objects.bulk_create(
        Mention(
            entity=known[(item.owner_id, e.normalized)],
            memory_id=item.id,
            surface=e.name,
            addressed=e.addressed,
        )
        for item, es in zip(batch, found, strict=True)
        for e in es
    )


def _entities(batch: list[Pending]) -> list[list[entity_rules.ExtractedEntity]]:
    """The names in each memory's text, and the people its conversation's compression found
    (they are people for certain, and the narrative may not name them all; not a weekday or a
    "Maya and Sam" a reading took for one). What was said
    (evidence) names no entities: the memories kept from it do, once reviewed, and raw chat
    would fill the people page with weekdays and half sentences."""
    people: dict[int, list[entity_rules.ExtractedEntity]] = defaultdict(list)
    items = MemoryItem.objects.filter(memory_id__in=[item.id for item in batch], type="person")
    for memory_id, data in items.values_list("memory_id", "data"):
        name = " ".join(str(data.get("name", "")).split())[:200]
        if entity_rules.worth_listing(name) and (normalized := entity_rules.normalize(name)):
            people[memory_id].append(entity_rules.ExtractedEntity(name, normalized, "person"))
    found = []
    for item in batch:
        if item.is_evidence:
            found.append([])
            continue
        merged = {e.normalized: e for e in entity_rules.extract(item.content)}
        merged |= {e.normalized: e for e in people[item.id]}
        found.append(list(merged.values()))
    return found


def refresh_mentions(memory_ids: list[int]) -> None:
    """Recompute the mentions of these memories (their items changed; their text did not)."""
    batch = [
        Pending(*row) for row in Memory.objects.filter(pk__in=memory_ids).values_list(*_FIELDS)
    ]
    with transaction.atomic():
        _write_mentions(batch, _entities(batch))


def _embed(batch: list[Pending]):
    """The batch's vectors (in the model's thread: it touches no database)."""
    return embeddings.embed([item.content for item in batch])


def index_batch(batch: list[Pending]) -> int:
    """Embed and extract one batch, then write it; answers how many memories were written."""
    return _write(batch, _embed(batch), _entities(batch))


def _write(batch: list[Pending], embedded, found: list[list[entity_rules.ExtractedEntity]]) -> int:
    """Write one batch's vectors, contextual keys and mentions in one short transaction."""
    computed = list(zip(batch, embedded, found, strict=True))
    with transaction.atomic():
        # Only rows whose text is still what was embedded: a row deleted or edited meanwhile is
        # skipped here and, if edited, indexed again on the next run.
        current = set(
            Memory.everything.filter(pk__in=[item.id for item in batch]).values_list(
                "pk", "content_hash"
            )
        )
        computed = [row for row in computed if (row[0].id, row[0].content_hash) in current]
        vector_search.replace_vectors(
            [(item.id, item.owner_id, embeddings.to_blob(vector)) for item, vector, _ in computed]
        )
        written = defaultdict(list)
        for item, _, _ in computed:
            written[item.owner_id].append(item.id)
        vectors.record_writes(set(written), written)
        # Their contextual keys, and those of the memories told just after them.
        context.rebuild([item.id for item, _, _ in computed])
        _write_mentions([item for item, _, _ in computed], [found for _, _, found in computed])
        Memory.everything.bulk_update(
            [Memory(pk=item.id, indexed_hash=item.content_hash) for item, _, _ in computed],
            ["indexed_hash"],
        )
    return len(computed)


def index_memories(
    *,
    owner_id: int | None = None,
    everything: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
    part: int | None = None,
) -> int:
    """Index every pending memory (every memory with ``everything``; one part of them with
    ``part``); answers the count."""
    if owner_id is not None and part is not None:
        cache.delete(_QUEUED_KEY.format(owner_id=owner_id, part=part))

    def after(after_id: int) -> list[Pending]:
        return _pending(
            owner_id=owner_id, after_id=after_id, everything=everything, limit=batch_size, part=part
        )

    done = 0
    # The model embeds in a thread of its own while this one reads the batch's names and writes
    # the batch before: torch lets go of the GIL in its products, so the two share both cores
    # (torch itself still computes on one thread).
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding") as model:
        batch = after(0)
        vectors = model.submit(_embed, batch) if batch else None
        while batch:
            found = _entities(batch)
            embedded = vectors.result()
            following = after(batch[-1].id)
            vectors = model.submit(_embed, following) if following else None
            done += _write(batch, embedded, found)
            batch = following
            if progress:
                progress(done)
    return done
