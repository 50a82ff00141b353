"""Guards that run after ``migrate``: FTS triggers and the prune schedule."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connections

from memories import sql

log = logging.getLogger(__name__)


def missing_triggers(using: str = "default", ddl=sql) -> list[str]:
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        present = {row[0] for row in cursor.fetchall()}
    return [name for name in ddl.TRIGGERS if name not in present]


def rebuild_fts(using: str = "default") -> None:
    with connections[using].cursor() as cursor:
        cursor.execute(sql.REBUILD_FTS)


def restore_triggers(ddl, using: str = "default") -> list[str]:
    """Re-create the triggers of ``ddl`` (a module like memories/sql.py) that a table remake
    dropped, then rebuild the index they missed.

    Django's SQLite schema editor remakes a table (CREATE new, copy, DROP, RENAME) for many field
    changes, and the DROP silently takes the triggers with it (TECH_NOTES §2.1). ``CREATE_ALL``
    is idempotent: every statement is IF NOT EXISTS, and it ends with the FTS 'rebuild'.
    """
    missing = missing_triggers(using, ddl)
    if not missing:
        return []
    with connections[using].cursor() as cursor:
        for statement in ddl.CREATE_ALL:
            cursor.execute(statement)
    log.warning("Re-created missing index triggers %s and rebuilt the index.", missing)
    return missing


def restore_fts_triggers(sender=None, using: str = "default", **kwargs) -> list[str]:
    return restore_triggers(sql, using)


def ensure_schedules(sender=None, **kwargs) -> None:
    """Keep the django-q2 schedules in step with settings: the prune check (cron) and the
    sweep that indexes memories no queued task reached (a worker killed mid-batch)."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="memories.prune",
        defaults={
            "func": "memories.tasks.prune",
            "schedule_type": Schedule.CRON,
            "cron": settings.TALKINGROCK_MEMORY["prune_schedule"],
            "repeats": -1,
        },
    )
    Schedule.objects.update_or_create(
        name="memories.index_sweep",
        defaults={
            "func": "memories.tasks.index_memories",
            "schedule_type": Schedule.MINUTES,
            "minutes": settings.TALKINGROCK_MEMORY["index_sweep_minutes"],
            "repeats": -1,
        },
    )
