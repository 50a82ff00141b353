"""A pass for one member, recorded (when it ran, what it did) and exclusive: a second run of the
same pass for the same member while one is under way does nothing (the 30-second schedule can
fire while a slow model call is still answering).

A run whose process has ended without finishing it (a worker killed mid-pass) is closed with
that said and taken over at once, as a lost compression is: each run records the process that
holds it, the next run of that pass checks it, and a worker that starts runs the dead runs'
passes again (memories.tasks.resume_on_spawn). A run whose process this machine cannot see is
taken over once it is older than ``stale_minutes``. Nothing is done twice either way: each fact
is stamped as it is consolidated, so the next run starts where the dead one stopped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memories.models import ConsolidationRun
from talkingrock import jobs


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
        me = jobs.process_identity()
        with transaction.atomic():  # IMMEDIATE: the check and the claim are one step
            close_dead(owner_id=owner_id, kind=kind)
            busy = ConsolidationRun.objects.filter(
                owner_id=owner_id, kind=kind, finished_at=None, started_at__gt=stale
            ).exists()
            row = (
                None
                if busy
                else ConsolidationRun.objects.create(
                    owner_id=owner_id, kind=kind, engine=engine, worker=me
                )
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


DIED = "The worker running it stopped (killed or restarted) before it finished; the next run took over."


def is_dead(run: ConsolidationRun) -> bool:
    """Unfinished, and the process that held it is known to have ended."""
    return run.finished_at is None and bool(run.worker) and jobs.process_gone(run.worker) is True


def close_dead(*, owner_id: int | None = None, kind: str | None = None) -> list[tuple[int, str]]:
    """Close the runs whose process ended under them, saying so; the (member, pass) of each, so
    that the caller can run the pass again."""
    unfinished = ConsolidationRun.objects.filter(finished_at=None).exclude(worker="")
    if owner_id is not None:
        unfinished = unfinished.filter(owner_id=owner_id)
    if kind is not None:
        unfinished = unfinished.filter(kind=kind)
    dead = [run for run in unfinished if is_dead(run)]
    ConsolidationRun.objects.filter(pk__in=[run.pk for run in dead], finished_at=None).update(
        finished_at=timezone.now(), error=DIED
    )
    return list(dict.fromkeys((run.owner_id, run.kind) for run in dead))


def last_runs(owner_id: int) -> dict[str, ConsolidationRun | None]:
    """Each pass's latest run for the member (None when it never ran)."""
    return {
        kind: ConsolidationRun.objects.filter(owner_id=owner_id, kind=kind).first()
        for kind in ConsolidationRun.Pass.values
    }
