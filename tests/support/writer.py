"""One writer process for tests/test_concurrency.py: many short read-then-write transactions.

Usage: python -m tests.support.writer USERNAME COUNT   (TALKINGROCK_DATA_DIR picks the file)
"""

from __future__ import annotations

import sys

import django


def main(username: str, count: int) -> None:
    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from memories import indexing, services
    from memories.models import Memory

    # This process proves concurrent writes; with no worker running, each store would also embed
    # its memory inline, which only makes the test slower (the model is not what is tested).
    indexing.request_indexing = lambda **kwargs: None

    member = get_user_model().objects.get(username=username)
    print("ready", flush=True)
    sys.stdin.readline()  # every writer starts on the same signal
    for n in range(count):
        # Read, then write, in one transaction: the pattern that fails at once under DEFERRED.
        with transaction.atomic():
            seen = Memory.objects.filter(owner=member).count()
            services.memory_store(owner=member, content=f"{username} note {n} after {seen}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
