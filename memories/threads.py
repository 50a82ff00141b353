"""Open threads by hand: an open item (a task, a waiting-on, a question held) marked done or
dismissed by the member, and undone. A resolved item keeps when, how and by what it was closed
(a later conversation's memory, or the member's hand)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memories import sharing
from memories.models import Memory, MemoryItem

HOW = {"done": MemoryItem.Resolution.DONE, "dismissed": MemoryItem.Resolution.DISMISSED}


class ThreadError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def kept_items(owner):
    """The member's items in kept (confirmed) memories, with their memory and act."""
    return MemoryItem.objects.filter(
        memory__owner=owner, memory__status=Memory.Status.CONFIRMED
    ).select_related("memory", "memory__act")


def item_of(owner, item_id: int) -> MemoryItem:
    """One of the member's items in a kept memory; anyone else's answers as missing."""
    return MemoryItem.objects.select_related("memory", "resolved_by").get(
        pk=item_id, memory__owner=owner, memory__status=Memory.Status.CONFIRMED
    )


def resolve(*, owner, item_id: int, how: str) -> MemoryItem:
    """Mark an open item done or dismissed."""
    if how not in HOW:
        raise ThreadError("Say how it closed: done or dismissed.")
    with transaction.atomic():
        item = item_of(owner, item_id)
        if item.type not in MemoryItem.OPEN_TYPES:
            raise ThreadError(f"“{item.get_type_display()}” is not an open thread.")
        if not item.is_active:
            raise ThreadError("This thread is already closed; undo first to change how.")
        item.is_active = False
        item.resolution = HOW[how]
        item.resolved_at = timezone.now()
        item.resolved_by = None
        item.save(update_fields=["is_active", "resolution", "resolved_at", "resolved_by"])
        sharing.item_changed(item, actor=owner)
    return item


def make_current(*, owner, item_id: int) -> MemoryItem:
    """Undo a replacement: a decision marked as replaced is current again."""
    with transaction.atomic():
        item = item_of(owner, item_id)
        item.valid_to = None
        item.superseded_by = None
        item.save(update_fields=["valid_to", "superseded_by"])
    return item


def reopen(*, owner, item_id: int) -> MemoryItem:
    """Undo: the thread is open again, however it was closed."""
    with transaction.atomic():
        item = item_of(owner, item_id)
        if item.type not in MemoryItem.OPEN_TYPES:
            raise ThreadError(f"“{item.get_type_display()}” is not an open thread.")
        item.is_active = True
        item.resolution = ""
        item.resolved_at = None
        item.resolved_by = None
        item.save(update_fields=["is_active", "resolution", "resolved_at", "resolved_by"])
        sharing.item_changed(item, actor=owner)
    return item


def describe(item: MemoryItem) -> dict:
    """An item as the tools answer it: what it is, and when, how and by what it closed."""
    answer = {
        "item_id": item.pk,
        "type": item.type,
        "data": item.data,
        "memory_id": item.memory_id,
        "open": item.is_active,
    }
    if not item.is_active and item.type in MemoryItem.OPEN_TYPES:
        answer["resolved"] = {
            "how": item.resolution or MemoryItem.Resolution.CONVERSATION,
            "at": item.resolved_at.isoformat() if item.resolved_at else None,
            "by_memory_id": item.resolved_by_id,
            "by_conversation_id": item.resolved_by.conversation_id if item.resolved_by else None,
        }
    return answer
