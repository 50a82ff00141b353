"""A pass for one member, recorded (when it ran, what it did) and exclusive: a second run of the
same pass for the same member while one is under way does nothing (the 30-second schedule can
fire while a slow model call is still answering). A run whose worker died is taken over once
it is older than ``stale_minutes``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memories.models import ConsolidationRun


class Run:
    CONSOLIDATE = ConsolidationRun.Pass.CONSOLIDATE
    TEMPORAL = ConsolidationRun.Pass.TEMPORAL
    MERGE = ConsolidationRun.Pass.MERGE
    DREAM = ConsolidationRun.Pass.DREAM

    def __init__(self, row: ConsolidationRun):
        self.row = row
        self.counts: Counter[str] = Counter()

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] += n

    @property
    def summary(self) -> dict[str, int]:
        return dict(self.counts)

    @classmethod
    @contextmanager
    def start(cls, owner_id: int, kind: str, *, engine: str = "") -> Iterator[Run | None]:
        stale = timezone.now() - timedelta(
            minutes=settings.TALKINGROCK_CONSOLIDATION["stale_minutes"]
        )
        with transaction.atomic():  # IMMEDIATE: the check and the claim are one step
            busy = ConsolidationRun.objects.filter(
                owner_id=owner_id, kind=kind, finished_at=None, started_at__gt=stale
            ).exists()
            row = (
                None
                if busy
                else ConsolidationRun.objects.create(owner_id=owner_id, kind=kind, engine=engine)
            )
        if row is None:
            yield None
            return
        run = cls(row)
        try:
            yield run
        except Exception as error:
            row.error = f"{type(error).__name__}: {error}"[:2000]
            raise
        finally:
            row.summary, row.finished_at = run.summary, timezone.now()
            row.save(update_fields=["summary", "finished_at", "error"])


def last_runs(owner_id: int) -> dict[str, ConsolidationRun | None]:
    """Each pass's latest run for the member (None when it never ran)."""
    return {
        kind: ConsolidationRun.objects.filter(owner_id=owner_id, kind=kind).first()
        for kind in ConsolidationRun.Pass.values
    }
