"""Writing observations: create, update (a history row when the text changes), enrich, merge and
edit; each embeds its text first, outside any transaction, then writes briefly. And reading: the
member's observations nearest to a vector, and the facts that are waiting for consolidation."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories.consolidation import sql
from memories.models import Memory, Mention, Observation, ObservationChange
from talkingrock import embeddings

Change = ObservationChange.Kind


def facts_of(owner_id: int) -> QuerySet[Memory]:
    """What consolidation reads: the member's kept, current memories, except conversations'
    narratives (their facts are extracted apart) and corrections of a reading."""
    return Memory.objects.filter(
        owner_id=owner_id,
        status=Memory.Status.CONFIRMED,
        archived_at=None,
    ).exclude(
        Q(kind=Memory.Kind.MEMORY, source=Memory.Source.CONVERSATION)
        | Q(source=Memory.Source.CORRECTION)
    )


def with_mentions(facts: QuerySet[Memory]) -> QuerySet[Memory]:
    """The facts with their mentions and each mention's entity, in one query each. (Not
    ``prefetch_related("mentions__entity")``: for a member with over a thousand entities Django
    asks SQLite for one OR per entity, beyond SQLite's expression depth of 1,000.)"""
    return facts.prefetch_related(
        Prefetch("mentions", queryset=Mention.objects.select_related("entity"))
    )


def pending(owner_id: int) -> QuerySet[Memory]:
    """The member's indexed facts not yet consolidated, in the order they were stored (only
    indexed ones: their vector and their entities are what they are weighed by)."""
    return (
        facts_of(owner_id)
        .filter(consolidated_at=None, indexed_hash=F("content_hash"))
        .order_by("created_at", "id")
    )


def pending_owner_ids() -> set[int]:
    """Members with at least one indexed fact waiting for consolidation."""
    waiting = (
        Memory.objects.filter(
            consolidated_at=None,
            status=Memory.Status.CONFIRMED,
            archived_at=None,
            indexed_hash=F("content_hash"),
        )
        .exclude(Q(kind=Memory.Kind.MEMORY, source=Memory.Source.CONVERSATION))
        .exclude(source=Memory.Source.CORRECTION)
    )
    return set(waiting.values_list("owner_id", flat=True).distinct())


def when(fact: Memory):
    return fact.happened_at or fact.created_at


def newest_facts(observation: Observation, n: int) -> list[Memory]:
    """The observation's ``n`` newest facts, in the order they happened."""
    ordered = observation.facts.order_by(Coalesce("happened_at", "created_at").desc(), "-id")
    return list(ordered[:n])[::-1]


def _newest(facts: Iterable[Memory]):
    moments = [when(fact) for fact in facts]
    return max(moments) if moments else None


def _write_vector(observation: Observation, vector: np.ndarray) -> None:
    sql.replace_vectors(
        "observation", [(observation.pk, observation.owner_id, embeddings.to_blob(vector))]
    )


def _record(observation, kind, previous, facts, reason="") -> ObservationChange:
    change = ObservationChange.objects.create(
        observation=observation,
        kind=kind,
        previous_text=previous,
        new_text=observation.text,
        reason=reason[:2000],
        happened_at=_newest(facts),
    )
    change.facts.set(facts)
    return change


def _count(observation: Observation) -> None:
    observation.evidence_count = observation.facts.count()


@dataclass(frozen=True)
class Draft:
    """An observation to write: its text and what it is about."""

    text: str
    kind: str = Observation.Kind.STATE
    subject: str = ""
    relation: str = ""
    entity_id: int | None = None


def create(
    owner_id: int, draft: Draft, facts: Sequence[Memory], *, engine: str, reason="", vector=None
) -> Observation:
    """``vector``: the text's embedding when the caller has it (a fact's own words)."""
    vector = embeddings.embed_one(draft.text) if vector is None else vector
    with transaction.atomic():
        observation = Observation.objects.create(
            owner_id=owner_id,
            text=draft.text,
            kind=draft.kind,
            subject=draft.subject[:200],
            relation=draft.relation[:100],
            entity_id=draft.entity_id,
            engine=engine,
        )
        observation.facts.set(facts)
        _count(observation)
        observation.save(update_fields=["evidence_count"])
        _record(observation, Change.CREATED, "", facts, reason)
        _write_vector(observation, vector)
    return observation


def update(
    observation: Observation,
    text: str,
    facts: Sequence[Memory],
    *,
    engine: str,
    reason="",
    vector=None,
) -> Observation:
    """New text from new facts: the old text goes into the history, the vector is rewritten
    (``vector``: the text's embedding when the caller has it)."""
    if text == observation.text:
        return enrich(observation, facts, reason=reason)
    vector = embeddings.embed_one(text) if vector is None else vector
    with transaction.atomic():
        previous = observation.text
        observation.text, observation.engine = text, engine
        observation.updated_at = timezone.now()
        observation.facts.add(*facts)
        _count(observation)
        observation.save(update_fields=["text", "engine", "updated_at", "evidence_count"])
        _record(observation, Change.UPDATED, previous, facts, reason)
        _write_vector(observation, vector)
    return observation


def enrich(observation: Observation, facts: Sequence[Memory], *, reason="") -> Observation:
    """More evidence for what the observation already says."""
    with transaction.atomic():
        observation.facts.add(*facts)
        _count(observation)
        observation.updated_at = timezone.now()
        observation.save(update_fields=["evidence_count", "updated_at"])
        _record(observation, Change.ENRICHED, observation.text, facts, reason)
    return observation


def merge(
    keeper: Observation, other: Observation, *, text: str, engine: str, reason=""
) -> Observation:
    """``other`` joins ``keeper``: its facts and its history move over, it is kept as merged
    (never shown again), and the keeper is re-embedded with its (possibly new) text."""
    vector = embeddings.embed_one(text)
    with transaction.atomic():
        facts = list(other.facts.all())
        previous = keeper.text
        keeper.text, keeper.engine, keeper.updated_at = text, engine, timezone.now()
        keeper.facts.add(*facts)
        _count(keeper)
        keeper.save(update_fields=["text", "engine", "updated_at", "evidence_count"])
        ObservationChange.objects.filter(observation=other).update(observation=keeper)
        _record(keeper, Change.MERGED, previous, facts, reason or f"Merged with “{other.text}”.")
        Observation.objects.filter(pk=other.pk).update(
            merged_into=keeper, updated_at=keeper.updated_at
        )
        _write_vector(keeper, vector)
    return keeper


def edit(observation: Observation, text: str) -> Observation:
    """The member rewrote it: their words, with the old ones in the history."""
    text = text.strip()
    if not text or text == observation.text:
        return observation
    vector = embeddings.embed_one(text)
    with transaction.atomic():
        previous = observation.text
        observation.text, observation.user_edited = text, True
        observation.updated_at = timezone.now()
        observation.save(update_fields=["text", "user_edited", "updated_at"])
        _record(observation, Change.EDITED, previous, [], "Edited by the member.")
        _write_vector(observation, vector)
    return observation


# --- reading ------------------------------------------------------------------------------------


def live(owner_id: int) -> QuerySet[Observation]:
    return Observation.objects.filter(owner_id=owner_id, dismissed=False, merged_into=None)


def nearest(owner_id: int, vector: np.ndarray, k: int = 5) -> list[tuple[Observation, float]]:
    """The member's ``k`` live observations nearest to ``vector``, with cosine similarity."""
    found = sql.nearest(
        "observation", owner_id=owner_id, vector=embeddings.to_blob(vector), k=k * 2 + 5
    )
    rows = live(owner_id).in_bulk([row_id for row_id, _ in found])
    pairs = [(rows[row_id], 1.0 - distance) for row_id, distance in found if row_id in rows]
    return pairs[:k]


def vectors_of(owner_id: int, observations: Sequence[Observation]) -> np.ndarray:
    """The observations' stored vectors, in order, as an (n, 384) array."""
    blobs = sql.vectors("observation", owner_id=owner_id, ids=[o.pk for o in observations])
    return (
        np.stack([np.frombuffer(blobs[o.pk], dtype=np.float32) for o in observations])
        if observations
        else np.zeros((0, embeddings.DIMENSIONS), dtype=np.float32)
    )
