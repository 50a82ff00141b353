"""django-q2 entry points for conversations: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from django import db
from django.contrib.auth import get_user_model

from conversations import chat, compression, importing, reasoning, running, services
from conversations.models import Message
from talkingrock import jobs, warmup

log = logging.getLogger(__name__)


def compress(conversation_id: int) -> str:
    outcome = compression.compress(conversation_id)
    log.info("compression of conversation %s: %s", conversation_id, outcome)
    return outcome


def import_conversations(import_id: int) -> str:
    outcome = importing.work(import_id)
    log.info("import %s: %s", import_id, outcome)
    return outcome


def sweep() -> list[int]:
    """Requeue compressions a killed worker left behind, and give back queue entries a dead
    cluster had taken. Runs every minute, and in every worker as it starts (conversations/apps.py),
    so recovery begins as soon as a worker is alive."""
    released = jobs.release_orphaned_tasks()
    if released:
        log.warning("released %s queued tasks a stopped worker had taken", released)
    requeued = services.sweep_stalled()
    if requeued:
        log.warning("requeued stalled compressions: %s", requeued)
    return requeued


def sweep_on_spawn(sender=None, proc_name: str = "", **kwargs) -> None:
    """django-q2's post_spawn, in a worker process that has just started: recover at once,
    then load the models the tasks need."""
    try:
        sweep()
    except Exception:  # never keep a worker from starting
        log.exception("The start-up sweep failed; the scheduled one will try again.")
    finally:
        db.connections.close_all()  # the worker opens its own when it takes a task
    warmup.warm()


def ensure_schedules(sender=None, **kwargs) -> None:
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="conversations.sweep",
        defaults={
            "func": "conversations.tasks.sweep",
            "schedule_type": Schedule.MINUTES,
            "minutes": 1,
            "repeats": -1,
        },
    )


def reply(message_id: int) -> int | None:
    """Write the reply to a member's message (once: a second run finds it written)."""
    message = (
        Message.objects.select_related("conversation__owner")
        .filter(pk=message_id, role=Message.Role.USER)
        .first()
    )
    if message is None:
        return None  # deleted with its conversation meanwhile
    return chat.respond(conversation=message.conversation, message=message).pk


def refresh_themes(owner_id: int) -> int:
    """Ask the model for the themes of a member's Your Story (kept a day); none when it is off."""
    owner = get_user_model().objects.filter(pk=owner_id).first()
    if owner is None:
        return 0
    return len(reasoning.refresh_themes(owner) or [])


def advance_narrative(reply_id: int) -> str:
    """After each turn: the running narrative's next link."""
    return running.advance(reply_id)
