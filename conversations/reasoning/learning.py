"""Learning from outcomes (seed 003, phase 5): a correction in chat is stored at once, demotes
the memory that misled and reinforces the one meant, so the next request like it is read the
member's way without waiting for the conversation to close; approvals and rejections are noted
in the conversation, where the compression reads them."""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from conversations import services as conversation_services
from conversations.models import Classification, Conversation, Message
from conversations.reasoning.offline import vague_phrase
from memories import services as memory_services
from memories.models import InfluenceType, Memory, RecallHit
from memories.recall import recall
from narratives import services as narratives

# "no, I meant…", "not that one", "I mean the kitchen one", "wrong one: …", "actually I meant…"
_OPENS = re.compile(
    r"^\s*(?:no\b|nope\b|nah\b|not (?:that|the|this)\b|(?:actually,?\s+)?i meant?\b|"
    r"wrong (?:one|thing)\b|that'?s not what i meant\b)",
    re.I,
)
_MEANT = re.compile(
    r"\bi mean(?:t)?\s+(?P<meant>[^,;.!?]+?)(?:,?\s+not\s+(?P<not>[^,;.!?]+))?\s*[.!?]*$", re.I
)
_NOT_BUT = re.compile(
    r"\bnot\s+(?P<not>[^,;.!?]+?)\s*[,;:]\s*(?:but\s+|i meant?\s+)?(?P<meant>[^,;.!?]+?)\s*[.!?]*$",
    re.I,
)
OUTCOMES = ("approved", "rejected")


def parse_correction(text: str) -> tuple[str, str] | None:
    """(what was meant, what was not) of a correction, or None when the text is not one."""
    if not _OPENS.search(text):
        return None
    for pattern in (_MEANT, _NOT_BUT):
        if match := pattern.search(text.strip()):
            meant = match["meant"].strip()
            if meant:
                return meant, (match["not"] or "").strip()
    return None


def last_reading(conversation: Conversation, before: Message) -> Classification | None:
    """The reading of the member's previous message in this conversation."""
    return (
        Classification.objects.filter(
            message__conversation=conversation,
            message__role=Message.Role.USER,
            message__position__lt=before.position,
        )
        .order_by("-message__position")
        .first()
    )


def _misled_by(classification: Classification) -> list[int]:
    trails = [classification.recall_id, *classification.trails.values()]
    return list(
        RecallHit.objects.filter(
            recall_id__in=[t for t in trails if t],
            influence_type=InfluenceType.DISAMBIGUATION,
        )
        .exclude(memory__source=Memory.Source.CORRECTION)
        .values_list("memory_id", flat=True)
    )


def store_immediate_correction(
    owner, classification: Classification, *, meant: str, not_meant: str = ""
) -> dict[str, Any]:
    """Keep the correction as a memory now (a fact: 'By “the calendar thing”, Maya means the
    kitchen calendar, not the school one.'), linked from the reading it corrects; demote the
    memory that misled the reading and reinforce the one that holds what was meant."""
    said = vague_phrase(classification.request)
    name = owner.get_short_name() or owner.get_username()
    content = (
        f"By “{said}”, {name} means {meant}" + (f", not {not_meant}" if not_meant else "") + "."
    )
    misled = _misled_by(classification)
    meant_hits = [
        hit
        for hit in recall(owner, meant, k=5).strong
        if hit.memory.source != Memory.Source.CORRECTION and hit.memory_id not in misled
    ]
    with transaction.atomic():
        correction = memory_services.memory_store(
            owner=owner,
            content=content,
            source=Memory.Source.CORRECTION,
            kind=Memory.Kind.FACT,
            tags="correction",
            subject=said[:200],
            relation="meaning",
            narrative_id=narratives.latest_id(owner),  # the active link's stamp
        )
        Classification.objects.filter(pk=classification.pk).update(corrected_by=correction)
        for memory_id in misled:
            memory_services.memory_demote(owner=owner, memory_id=memory_id)
        confirmed = meant_hits[0].memory_id if meant_hits else None
        if confirmed is not None:
            memory_services.memory_reinforce(owner=owner, memory_id=confirmed)
    return {
        "correction_id": correction.pk,
        "corrects": classification.pk,
        "said": said,
        "meant": meant,
        "not_meant": not_meant,
        "demoted": misled,
        "reinforced": confirmed,
    }


def learn_from_outcome(
    owner, classification: Classification, *, outcome: str, note: str = ""
) -> dict[str, Any]:
    """An approval or rejection of a reading: noted on it, its memories reinforced (approved) or
    the one that misled demoted (rejected), and a system message in the member's open
    conversation that the compression reads at close."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of: {', '.join(OUTCOMES)}.")
    trails = [classification.recall_id, *classification.trails.values()]
    shaped = list(
        RecallHit.objects.filter(recall_id__in=[t for t in trails if t])
        .exclude(influence_type="")
        .values_list("memory_id", flat=True)
        .distinct()
    )
    line = (
        f"Outcome: reading “{classification.request[:200]}” as {classification.label} was {outcome}"
    )
    line += f": {note.strip()}" if note.strip() else "."
    with transaction.atomic():
        Classification.objects.filter(pk=classification.pk).update(outcome=outcome)
        if outcome == "approved":
            for memory_id in shaped:
                memory_services.memory_reinforce(owner=owner, memory_id=memory_id)
        else:
            for memory_id in _misled_by(classification):
                memory_services.memory_demote(owner=owner, memory_id=memory_id)
        conversation = conversation_services.open_conversation(owner)
        noted = None
        if conversation is not None and conversation.status == Conversation.Status.ACTIVE:
            noted = conversation_services.append(
                conversation, role=Message.Role.SYSTEM, content=line
            ).pk
    return {"classification_id": classification.pk, "outcome": outcome, "message_id": noted}
