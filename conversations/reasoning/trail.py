"""The why, read back: which memories shaped a classification and how, what context a request
would be read with, and everything one memory has shaped (its influence chain)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from conversations.models import Classification, Message
from conversations.reasoning.context import gather
from memories.models import Memory, RecallHit

STAGES = ("classify", "decompose", "verify")


def _influences(stages: dict[int, str]) -> list[dict[str, Any]]:
    """The influences on these trails (recall id → the stage it served)."""
    rows = (
        RecallHit.objects.filter(recall_id__in=list(stages))
        .exclude(influence_type="")
        .select_related("memory", "recall")
        .order_by("recall__created_at", "rank")
    )
    return [
        {
            "stage": stages[hit.recall_id],
            "memory_id": hit.memory_id,
            "memory": " ".join(hit.memory.content.split())[:200] if hit.memory else None,
            "conversation_id": hit.memory.conversation_id if hit.memory else None,
            "influence_type": hit.influence_type,
            "score": hit.influence_score,
            "reason": hit.influence,
        }
        for hit in rows
    ]


def resolved(classification: Classification) -> str:
    """What a vague request was taken to mean ("“the calendar thing” is Fix the recurring events
    bug"), when a memory other than a correction said so; else ""."""
    hit = (
        RecallHit.objects.filter(
            recall_id=classification.recall_id, influence_type="disambiguation"
        )
        .exclude(memory__source=Memory.Source.CORRECTION)
        .first()
    )
    return hit.influence if hit else ""


def get_classification(owner, classification_id: int) -> Classification:
    return Classification.objects.select_related("message").get(pk=classification_id, owner=owner)


def explain_classification(owner, classification_id: int) -> dict[str, Any]:
    """How a request was read and why: the reading, the steps and the check when they were run,
    and every memory that shaped a stage, with how."""
    found = get_classification(owner, classification_id)
    trails = {found.recall_id: STAGES[0]} | {found.trails.get(s): s for s in STAGES[1:]}
    return {
        "id": found.pk,
        "request": found.request,
        "classification": found.label,
        "destination": found.destination,
        "consumer": found.consumer,
        "semantics": found.semantics,
        "confidence": found.confidence,
        "needs_clarification": found.needs_clarification,
        "clarification_question": found.clarification,
        "reasoning": found.reasoning,
        "engine": found.engine,
        "steps": found.steps,
        "verification": found.verification,
        "corrected_by": found.corrected_by_id,
        "outcome": found.outcome,
        "message_id": found.message_id,
        "memories": _influences({pk: stage for pk, stage in trails.items() if pk}),
    }


def reasoning_context(
    owner, query: str, *, context_type: str = "classification", include_active=True, top_k=5
) -> dict[str, Any]:
    """What a stage would read ``query`` with: the recalled memories that clear the floor and,
    on request, the open threads that bear on it."""
    purpose = {"classification": "classify", "decomposition": "decompose"}.get(
        context_type, "verify"
    )
    context = gather(
        owner, query, purpose=f"context:{purpose}", top_k=top_k, include_active=include_active
    )
    return {
        "query": query,
        "context_type": context_type,
        "recall_id": context.found.recall_id,
        "memories": [
            {
                "id": hit.memory_id,
                "content": " ".join(hit.memory.content.split()),
                "why": hit.why,
                "correction": hit.memory.source == Memory.Source.CORRECTION,
            }
            for hit in context.hits
        ],
        "open_threads": [
            {"memory_id": item.memory_id, "type": item.type, "text": item.text, "share": share}
            for item, share in context.items
        ],
        "vague": context.vague,
    }


def influence_chain(owner, memory_id: int, *, limit: int = 20) -> list[dict[str, Any]]:
    """Everything the member's memory shaped, newest first: the replies that rest on it and the
    readings (classify, decompose, verify) it influenced, each with how."""
    memory = Memory.objects.get(pk=memory_id, owner=owner)
    rows = (
        RecallHit.objects.filter(memory=memory, recall__owner=owner)
        .filter(Q(recall__purpose="chat") | ~Q(influence_type=""))
        .exclude(recall__purpose__startswith="context:")
        .select_related("recall")
        .order_by("-recall__created_at", "-recall_id")[: limit * 4]
    )
    rows = list(rows)
    chat_recalls = [hit.recall_id for hit in rows if hit.recall.purpose == "chat"]
    replies = {
        reply.recall_id: reply
        for reply in Message.objects.filter(recall_id__in=chat_recalls, conversation__owner=owner)
    }
    messages = {hit.recall.message_id for hit in rows if hit.influence_type}
    readings = dict(
        Classification.objects.filter(owner=owner, message_id__in=messages).values_list(
            "message_id", "pk"
        )
    )
    chain = []
    for hit in rows:
        recall = hit.recall
        entries = []
        reply = replies.get(recall.pk)
        used = [u for u in reply.memories_used if u.get("id") == memory.pk] if reply else []
        if used:  # found by the chat's recall, and the reply rests on it
            reason = used[0].get("why", "")
            entries.append(
                {"kind": "reply", "stage": "chat", "reason": reason, "reply_id": reply.pk}
            )
        if hit.influence_type:
            entries.append(
                {
                    "kind": "reasoning",
                    "stage": "classify" if recall.purpose == "chat" else recall.purpose,
                    "influence_type": hit.influence_type,
                    "score": hit.influence_score,
                    "reason": hit.influence,
                    "classification_id": readings.get(recall.message_id),
                }
            )
        for entry in entries:
            chain.append(
                entry
                | {
                    "when": recall.created_at.isoformat(),
                    "request": recall.query[:200],
                    "recall_id": recall.pk,
                    "message_id": recall.message_id,
                    "conversation_id": recall.conversation_id,
                }
            )
        if len(chain) >= limit:
            break
    return chain[:limit]
