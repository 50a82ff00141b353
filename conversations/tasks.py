"""django-q2 entry points for conversations: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from conversations import compression, services

log = logging.getLogger(__name__)


def compress(conversation_id: int) -> str:
    outcome = compression.compress(conversation_id)
    log.info("compression of conversation %s: %s", conversation_id, outcome)
    return outcome


def sweep() -> list[int]:
    """Requeue compressions a killed worker left behind (older than the timeout)."""
    requeued = services.sweep_stalled()
    if requeued:
        log.warning("requeued stalled compressions: %s", requeued)
    return requeued


def ensure_schedules(sender=None, **kwargs) -> None:
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="conversations.sweep",
        defaults={
            "func": "conversations.tasks.sweep",
            "schedule_type": Schedule.MINUTES,
            "minutes": 5,
            "repeats": -1,
        },
    )
