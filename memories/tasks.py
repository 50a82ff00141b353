"""django-q2 entry points for memories: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from django import db
from django_q.tasks import async_task

from memories import housekeeping, indexing, services
from memories.consolidation import passes, runs
from talkingrock import jobs

log = logging.getLogger(__name__)


def index_memories(owner_id: int | None = None, part: int | None = None) -> int:
    """Embed and extract entities for pending memories: one part of one member's (as
    ``indexing.request_indexing`` queues it), every part of one member's, or everyone's when the
    periodic sweep calls it, which also catches work a killed worker left behind. One process
    at a time indexes each part."""
    members = [owner_id] if owner_id is not None else indexing.members_pending()
    cut = [part] if part is not None else range(indexing.parts())
    done = sum(indexing.index_member(member, each) for member in members for each in cut)
    if done:
        log.info("indexed %s memories (owner %s)", done, owner_id or "all")
    return done


def rebuild_keyword_index(owner_id: int) -> None:
    """Write a member's keyword index again from their rows: after rows they were shown leave it
    (a shared memory taken back, a shared act left), so its statistics count only what they hold
    (FTS5 keeps a deleted row's share of them until the index is written again)."""
    housekeeping.rebuild_member_index(owner_id)


def prune() -> int:
    """Scheduled size check: archives the bottom slice only when the database is too big."""
    report = services.prune()
    log.info(
        "prune: database %s bytes (limit %s), archived %s memories",
        report.database_bytes,
        report.max_bytes,
        len(report.archived_ids),
    )
    return len(report.archived_ids)


def consolidate() -> int:
    """Every 30 s: each member's pending facts into observations (one member at a time)."""
    done = passes.run("consolidate")
    return sum(sum(v for k, v in summary.items() if k != "busy") for summary in done.values())


def consolidate_daily() -> dict:
    """Once a day: the temporal pass, the merge, the dreams, in that order."""
    return passes.daily()


def resume_pass(kind: str, owner_id: int) -> dict:
    """Run one member's pass again (one a killed worker left unfinished)."""
    return passes.run(kind, [owner_id]).get(owner_id, {})


def resume_on_spawn(sender=None, proc_name: str = "", **kwargs) -> None:
    """django-q2's post_spawn, in a worker that has just started: consolidation passes a killed
    worker left unfinished are closed and queued again now, not at the next schedule."""
    try:
        for owner_id, kind in runs.close_dead():
            log.warning("resuming the %s pass for member %s: its worker stopped", kind, owner_id)
            async_task(
                "memories.tasks.resume_pass", kind, owner_id, group=jobs.member_group(owner_id)
            )
    except Exception:  # never keep a worker from starting
        log.exception("Could not resume consolidation passes; the schedule will.")
    finally:
        db.connections.close_all()  # the worker opens its own when it takes a task
