"""Background work: the django-q2 worker when one runs, inline when none does.

``enqueue`` waits for the surrounding transaction to commit (a task must see the rows it was
queued for), then hands the task to the worker. With no worker alive (a management command, a
dev server started without ``make run``), queued work would sit until one starts, so the task
runs inline instead. Whether a worker is alive comes from the cluster's own heartbeat, which
django-q2 keeps for a few seconds in the shared cache.

Work done for one member is queued in that member's group (``member-<id>``), so that Settings
can tell each member about their own failed work (``health``) and nobody about anyone else's.

The worker runs several processes (``Q_CLUSTER["workers"]``), so two tasks may start the same
work at once; ``one_at_a_time`` lets one of them do it and loses nothing the other asked for.
"""

from __future__ import annotations

import fcntl
import logging
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import psutil
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from django_q.conf import Conf
from django_q.models import Failure, OrmQ
from django_q.status import Stat
from django_q.tasks import async_task

log = logging.getLogger(__name__)

_HEARTBEAT_TTL = 5.0  # seconds a "worker alive" answer is trusted in this process
_last_seen = 0.0


def worker_running() -> bool:
    global _last_seen
    if time.monotonic() - _last_seen < _HEARTBEAT_TTL:
        return True
    try:
        alive = any(stat.status != "Stopped" for stat in Stat.get_all())
    except Exception:  # a broken cache is "no worker": the work then runs inline
        log.exception("Could not read the worker heartbeat; running the task inline.")
        alive = False
    if alive:
        _last_seen = time.monotonic()
    return alive


def member_group(owner_id: int) -> str:
    return f"member-{owner_id}"


def run_now_or_queue(func: str, *args, owner_id: int) -> None:
    if Conf.SYNC or worker_running():
        async_task(func, *args, group=member_group(owner_id))
    else:
        import_string(func)(*args)


def enqueue(func: str, *args, owner_id: int) -> None:
    """Run ``func`` (a dotted path) with these arguments once the current transaction commits,
    as work done for the member ``owner_id``."""
    transaction.on_commit(lambda: run_now_or_queue(func, *args, owner_id=owner_id), robust=True)


# --- one at a time -----------------------------------------------------------------------------


@contextmanager
def held(name: str, *, wait: bool = False) -> Iterator[bool]:
    """Whether this process now holds the lock ``name``, until the block ends; with ``wait`` it
    waits until it does, else it does not wait at all. The lock is ``flock`` on a file under
    ``DATA_DIR/locks``: the system lets go of it when its process dies, so a killed worker leaves
    nothing locked."""
    folder = settings.DATA_DIR / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def one_at_a_time(name: str, work: Callable[[], int]) -> int:
    """Run ``work`` (it answers how much it did) so that one process at a time runs it for
    ``name``. A call made while another process runs it asks that one to run it once more, and
    returns 0 at once: the one running sees the ask before it lets go, or after, and then goes
    round again itself (or leaves it to the caller that took the lock meanwhile)."""
    asked = f"jobs:asked:{name}"
    done = 0
    while True:
        cache.set(asked, True, timeout=None)
        with held(name) as mine:
            if not mine:
                return done
            while cache.get(asked):
                cache.delete(asked)
                done += work()
        if not cache.get(asked):
            return done


# --- how background work is going -------------------------------------------------------------

HEALTH_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class Health:
    """Background work as one member may see it: counts for the household, and only their own
    failures by name (a failed task's result is its traceback, which can quote what it read)."""

    worker_running: bool
    waiting: int  # queued for the worker, everyone's (a count says nothing about anyone)
    failed: int  # the member's own tasks that failed within HEALTH_WINDOW
    household_failed: int  # tasks for no one member (the schedules) that failed then
    last_failure: Failure | None  # the member's own latest, with its error


def health(owner_id: int) -> Health:
    since = timezone.now() - HEALTH_WINDOW
    recent = Failure.objects.filter(stopped__gte=since)
    own = recent.filter(group=member_group(owner_id))
    return Health(
        worker_running=worker_running(),
        waiting=OrmQ.objects.count(),
        failed=own.count(),
        household_failed=recent.exclude(group__startswith="member-").count(),
        last_failure=own.order_by("-stopped").first(),
    )


def error_line(failure: Failure) -> str:
    """The last line of a failed task's result: the exception, without the traceback."""
    lines = [line for line in str(failure.result or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no error was recorded"


# --- which process holds a piece of work ------------------------------------------------------
# A task that records who runs it lets anyone on the machine tell, at once, that it was lost:
# its process is gone. (django-q2 itself only re-delivers a task whose worker died after its
# ``retry`` time, six minutes here.)


def _started(process: psutil.Process) -> str:
    """When the process started, so that a reused pid is not mistaken for the process that
    died."""
    return f"{process.create_time():.2f}"


def process_identity() -> str:
    """This process, as "host:pid:start"."""
    me = psutil.Process()
    return f"{socket.gethostname()}:{me.pid}:{_started(me)}"


def process_gone(identity: str) -> bool | None:
    """True when the process ``identity`` names has ended, False while it runs, None when this
    machine cannot tell (another host, or not an identity)."""
    try:
        host, pid_text, started = identity.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return None
    if host != socket.gethostname() or pid <= 0:
        return None
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return True  # killed, waiting for its parent to reap it: gone for our purposes
        return bool(started) and _started(process) != started
    except psutil.NoSuchProcess:
        return True
    except psutil.AccessDenied:
        return False  # someone else's process: it exists


def release_orphaned_tasks() -> int:
    """Queue entries taken by a worker cluster that is no longer running come back at once.

    The ORM broker marks an entry taken by setting its ``lock`` to "taken at + retry"; an entry
    taken before the oldest running cluster was born can only have been taken by one that died
    (killed, or the machine restarted), and would otherwise wait out the rest of ``retry``."""
    births = [stat.tob for stat in Stat.get_all() if stat.status != "Stopped" and stat.tob]
    if not births:
        return 0
    now = timezone.now()
    taken_before = min(births) + timedelta(seconds=Conf.RETRY)
    return OrmQ.objects.filter(lock__gt=now, lock__lt=taken_before).update(lock=now)
