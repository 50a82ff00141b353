"""django-q2 entry points for memories: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from memories import indexing, services
from memories.consolidation import passes

log = logging.getLogger(__name__)


def index_memories(owner_id: int | None = None) -> int:
    """Embed and extract entities for pending memories (one member's, or everyone's when the
    periodic sweep calls it, which also catches work a killed worker left behind)."""
    done = indexing.index_memories(owner_id=owner_id)
    if done:
        log.info("indexed %s memories (owner %s)", done, owner_id or "all")
    return done


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
