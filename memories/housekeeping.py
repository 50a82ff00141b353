"""The indexes' upkeep: each member's keyword index, the guards that run after ``migrate``, and
the django-q2 schedules."""

from __future__ import annotations

import logging

from django.conf import settings

from memories import context, sql, vector_search
from memories.models import Memory

log = logging.getLogger(__name__)


def _triggers(using: str) -> set[str]:
    return set(sql.column(sql.TRIGGER_NAMES, using=using))


def missing_triggers(using: str = "default", ddl=sql) -> list[str]:
    """Household-wide triggers of ``ddl`` (a module like memories/sql.py) that are not there."""
    present = _triggers(using)
    return [name for name in ddl.TRIGGERS if name not in present]


def restore_triggers(ddl, using: str = "default") -> list[str]:
    """Re-create the triggers of ``ddl`` that a table remake dropped, then rebuild what they
    maintain.

    Django's SQLite schema editor remakes a table (CREATE new, copy, DROP, RENAME) for many field
    changes, and the DROP silently takes the triggers with it (TECH_NOTES §2.1). ``CREATE_ALL``
    is idempotent: every statement is IF NOT EXISTS (and an FTS 'rebuild', where it has one).
    """
    missing = missing_triggers(using, ddl)
    if not missing:
        return []
    sql.run(ddl.CREATE_ALL, using=using)
    log.warning("Re-created missing index triggers %s.", missing)
    return missing


# --- each member's keyword index ------------------------------------------------------------


def missing_member_objects(owner_id: int, using: str = "default") -> list[str]:
    """What of the member's index is not there: its table and any of its triggers."""
    present = _triggers(using)
    missing = [name for name in sql.member_triggers(owner_id) if name not in present]
    if not sql.column(sql.TABLE_EXISTS, [sql.member_fts(owner_id)], using=using)[0]:
        missing.insert(0, sql.member_fts(owner_id))
    return missing


def ensure_member_index(owner_id: int, using: str = "default") -> list[str]:
    """Create whatever of the member's index is missing and rebuild it from their rows (rows
    written while a trigger was gone were never indexed). Returns what was missing."""
    missing = missing_member_objects(owner_id, using)
    if missing:
        statements = [*sql.create_member_index(owner_id), *sql.rebuild_member_index(owner_id)]
        sql.run(statements, using=using)
    return missing


def drop_member_index(owner_id: int, using: str = "default") -> None:
    sql.run(sql.drop_member_index(owner_id), using=using)


def member_ids(using: str = "default") -> list[int]:
    return sql.column(sql.MEMBER_IDS, using=using)


def rebuild_member_index(owner_id: int, using: str = "default") -> None:
    """Empty the member's index and fill it again from their rows."""
    if not ensure_member_index(owner_id, using):  # (a missing index was just built)
        sql.run(sql.rebuild_member_index(owner_id), using=using)


def rebuild_fts(using: str = "default") -> None:
    """Rebuild every member's keyword index from their rows."""
    for owner_id in member_ids(using):
        rebuild_member_index(owner_id, using)


def integrity_check(owner_id: int, using: str = "default") -> list[str]:
    """What is wrong with the member's index: FTS5's own check raises ("database disk image is
    malformed") when the index is inconsistent; the rows it holds must be exactly the member's."""
    sql.run(sql.integrity_check_member_index(owner_id), using=using)
    indexed = sql.column(sql.member_index_rowids(owner_id), using=using)
    rows = list(
        Memory.objects.using(using)
        .filter(owner_id=owner_id)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    problems = []
    if missing := sorted(set(rows) - set(indexed)):
        problems.append(f"not indexed: {missing[:10]}")
    if stray := sorted(set(indexed) - set(rows)):
        problems.append(f"indexed but not the member's: {stray[:10]}")
    return problems


def restore_fts_triggers(
    sender=None, using: str = "default", ddl_modules=(), **kwargs
) -> list[str]:
    """post_migrate guard: the household-wide triggers (memories/sql.py's, and those of each of
    ``ddl_modules``: consolidation's own sql.py, passed in by the app) and every member's index,
    whole."""
    restored = restore_triggers(sql, using)
    for ddl in ddl_modules:
        restored += restore_triggers(ddl, using)
    for owner_id in member_ids(using):
        restored += ensure_member_index(owner_id, using)
    if restored:
        log.warning("Restored keyword index objects %s and rebuilt what they missed.", restored)
    return restored


def ensure_context_keys(sender=None, using: str = "default", **kwargs) -> int:
    """post_migrate guard: memories embedded before contextual keys existed get theirs, once
    (when there are vectors but no key at all)."""
    if (
        using != "default"
        or vector_search.context_vector_count()
        or not vector_search.vector_count()
    ):
        return 0
    built = context.rebuild_everything()
    if built:
        log.warning("Built %d contextual keys for memories indexed before they existed.", built)
    return built


def member_created(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """post_save receiver for users: a new member's keyword index, before their first memory."""
    if created:
        ensure_member_index(instance.pk, kwargs.get("using") or "default")


def member_deleted(sender, instance, **kwargs) -> None:
    """post_delete receiver for users: their rows are gone (cascade), so is their index."""
    drop_member_index(instance.pk, kwargs.get("using") or "default")


# --- schedules --------------------------------------------------------------------------------


def ensure_schedules(sender=None, **kwargs) -> None:
    """Keep the django-q2 schedules in step with settings: the prune check (cron), consolidation
    (every 30 s, and the daily passes), and the sweep that indexes memories no queued task
    reached (a worker killed mid-batch)."""
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
    consolidation = settings.TALKINGROCK_CONSOLIDATION
    Schedule.objects.update_or_create(
        name="memories.consolidate",
        defaults={
            "func": "memories.tasks.consolidate",
            "schedule_type": Schedule.CRON,
            "cron": consolidation["schedule"],
            "repeats": -1,
        },
    )
    Schedule.objects.update_or_create(
        name="memories.consolidate_daily",
        defaults={
            "func": "memories.tasks.consolidate_daily",
            "schedule_type": Schedule.CRON,
            "cron": consolidation["daily_schedule"],
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
