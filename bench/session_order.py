"""How long recall's neighbour step takes to read the rows of the sessions its candidates are in
(``memories.search.conversation_order``), for a member who stores through sessions.

Usage (from the project root)::

    .venv/bin/python bench/session_order.py [--memories 40000] [--per-session 100] [--ids 300]

A fresh database under a temporary ``TALKINGROCK_DATA_DIR`` (the real settings, backend and
migrations) gets one member with ``--memories`` confirmed memories, ``--per-session`` to a
session, written in bulk (no embeddings: the step reads no vectors), and ``ANALYZE``d. Then
``--ids`` of them, picked with a fixed seed, are looked up 20 times after 3 warm-ups; it prints
the median and the query plan's steps on the memories table.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=40_000)
    parser.add_argument("--per-session", type=int, default=100)
    parser.add_argument("--ids", type=int, default=300)
    args = parser.parse_args(argv)

    data_dir = Path(tempfile.mkdtemp(prefix="talkingrock-sessions-"))
    os.environ["TALKINGROCK_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    sys.path.insert(0, str(ROOT))
    try:
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.db import connection

        from memories import search
        from memories.acts import ensure_your_story
        from memories.models import Memory

        call_command("migrate", verbosity=0)
        member = get_user_model().objects.create_user("sessions", password="bench-only")
        act = ensure_your_story(owner=member)
        Memory.everything.bulk_create(
            (
                Memory(
                    owner=member,
                    act=act,
                    content=f"note {n}",
                    session=f"session {n // args.per_session}",
                    status=Memory.Status.CONFIRMED,
                    source="agent",
                )
                for n in range(args.memories)
            ),
            batch_size=2000,
        )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        every = list(Memory.everything.filter(owner=member).values_list("pk", flat=True))
        ids = random.Random(1).sample(every, min(args.ids, len(every)))

        def once() -> float:
            started = time.perf_counter()
            search.conversation_order(owner_id=member.pk, ids=ids, include_archived=False)
            return 1000 * (time.perf_counter() - started)

        for _ in range(3):
            once()
        median = statistics.median(once() for _ in range(20))
        plan = [
            step
            for step in search.explain_conversation_order(owner_id=member.pk)
            if " m " in f" {step} "
        ]
        print(
            f"{args.memories:,} memories, {args.per_session} to a session, {len(ids)} candidates, "
            f"load average {os.getloadavg()[0]:.2f}: conversation_order median {median:.1f} ms"
        )
        print("plan on the memories table:", "; ".join(plan))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
