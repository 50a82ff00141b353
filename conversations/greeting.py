"""The greeting when no conversation is open (seed 003, "Startup Greeting")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from memories import threads
from memories.models import MemoryItem
from narratives import services as narratives
from narratives.models import Narrative


@dataclass
class Greeting:
    open_threads: list[MemoryItem]
    waiting_ons: list[MemoryItem]
    recent_decisions: list[MemoryItem]
    stale_tasks: list[MemoryItem]
    stale_days: int
    left_off: Narrative | None = None  # the latest narrative: where the member left off

    @property
    def empty(self) -> bool:
        return not (
            self.open_threads or self.waiting_ons or self.recent_decisions or self.stale_tasks
        )


def greeting(owner, *, now=None) -> Greeting:
    now = now or timezone.now()
    config = settings.TALKINGROCK_CONVERSATIONS
    items = threads.kept_items(owner)
    stale_days = config["stale_task_days"]
    return Greeting(
        open_threads=list(
            items.filter(type="question_opened", is_active=True).order_by("-created_at")[:20]
        ),
        waiting_ons=list(
            items.filter(type="waiting_on", is_active=True).order_by("created_at")[:20]
        ),
        # The current decisions: one a later conversation replaced is history, shown beside
        # the decision that replaced it ("previously: butcher block, changed 12 Nov").
        recent_decisions=list(
            items.filter(
                type="decision",
                valid_to=None,
                created_at__gte=now - timedelta(days=config["recent_decision_days"]),
            )
            .prefetch_related("supersedes")
            .order_by("-created_at")[:20]
        ),
        stale_tasks=list(
            items.filter(
                type="task", is_active=True, created_at__lte=now - timedelta(days=stale_days)
            ).order_by("created_at")[:20]
        ),
        stale_days=stale_days,
        left_off=narratives.latest(owner),
    )
