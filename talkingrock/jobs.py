"""Background work: the django-q2 worker when one runs, inline when none does.

``enqueue`` waits for the surrounding transaction to commit (a task must see the rows it was
queued for), then hands the task to the worker. With no worker alive (a management command, a
dev server started without ``make run``), queued work would sit until one starts, so the task
runs inline instead. Whether a worker is alive comes from the cluster's own heartbeat, which
django-q2 keeps for a few seconds in the shared cache.
"""

from __future__ import annotations

import logging
import time

from django.db import transaction
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)

_HEARTBEAT_TTL = 5.0  # seconds a "worker alive" answer is trusted in this process
_last_seen = 0.0


def worker_running() -> bool:
    global _last_seen
    if time.monotonic() - _last_seen < _HEARTBEAT_TTL:
        return True
    from django_q.status import Stat

    try:
        alive = any(stat.status != "Stopped" for stat in Stat.get_all())
    except Exception:  # a broken cache is "no worker": the work then runs inline
        log.exception("Could not read the worker heartbeat; running the task inline.")
        alive = False
    if alive:
        _last_seen = time.monotonic()
    return alive


def run_now_or_queue(func: str, *args, **kwargs) -> None:
    from django_q.conf import Conf
    from django_q.tasks import async_task

    if Conf.SYNC or worker_running():
        async_task(func, *args, **kwargs)
    else:
        import_string(func)(*args, **kwargs)


def enqueue(func: str, *args, **kwargs) -> None:
    """Run ``func`` (a dotted path) with these arguments once the current transaction commits."""
    transaction.on_commit(lambda: run_now_or_queue(func, *args, **kwargs), robust=True)
