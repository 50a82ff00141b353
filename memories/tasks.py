"""django-q2 entry points for memories: thin, safe to run twice."""

from __future__ import annotations

import logging

from memories import services

log = logging.getLogger(__name__)


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
