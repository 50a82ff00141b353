"""Several processes writing to one SQLite file at once all succeed: transactions take the write
lock when they begin (IMMEDIATE) and wait for it (busy timeout) instead of failing."""

from __future__ import annotations

from tests.support.processes import MEMBERS, in_lockstep, shell

EACH = 150


def test_concurrent_writers_on_one_file_all_succeed(file_env):
    in_lockstep(
        file_env, [["tests.support.writer", f"writer{n}", str(EACH)] for n in range(MEMBERS)]
    )

    counts = shell(
        file_env,
        "from memories.models import Memory\n"
        "from memories.housekeeping import integrity_check, member_ids\n"
        "assert all(integrity_check(owner) == [] for owner in member_ids())\n"
        "print(Memory.objects.count(), Memory.objects.values('owner').distinct().count())",
    )
    assert counts.split() == [str(MEMBERS * EACH), str(MEMBERS)]
