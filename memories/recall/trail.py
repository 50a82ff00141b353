"""A recall made for a purpose leaves a trail (``Recall`` + ``RecallHit``), so "why?" has an
answer later, and the memories it returned together grow co-recall links."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from memories.models import MemoryLink, Recall, RecallHit
from memories.recall.results import RecallResult
from memories.recall.steps import config


@transaction.atomic
def leave_trail(
    owner, result: RecallResult, *, purpose, conversation, message, parameters, duration_ms
) -> int:
    trail = Recall.objects.create(
        owner=owner,
        query=result.query,
        purpose=purpose,
        conversation=conversation,
        message=message,
        parameters=parameters | ({"window": result.window.as_dict()} if result.window else {}),
        duration_ms=duration_ms,
    )
    RecallHit.objects.bulk_create(
        RecallHit(
            recall=trail,
            memory_id=hit.memory_id,
            rank=position,
            score=hit.score,
            components=hit.components,
            influence="; ".join(hit.why)[:200],
        )
        for position, hit in enumerate(result.hits, start=1)
    )
    strengthen_links(owner, [hit.memory_id for hit in result.hits[: config("link_top")]])
    return trail.pk


def strengthen_links(owner, memory_ids: list[int]) -> None:
    """Memories returned together grow a link (both directions), +1 each time (seed 001, v2)."""
    pairs = [(a, b) for a in memory_ids for b in memory_ids if a != b]
    if not pairs:
        return
    now = timezone.now()
    existing = MemoryLink.objects.filter(Q(memory_id__in=memory_ids) & Q(related_id__in=memory_ids))
    known = set(existing.values_list("memory_id", "related_id"))
    existing.update(strength=F("strength") + 1, updated_at=now)
    MemoryLink.objects.bulk_create(
        MemoryLink(owner=owner, memory_id=a, related_id=b, updated_at=now)
        for a, b in pairs
        if (a, b) not in known
    )
