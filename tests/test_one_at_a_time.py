"""Work that one process at a time may run (talkingrock.jobs.one_at_a_time): the task worker runs
two processes, and two tasks may ask for the same work at once (indexing one part of a member's
memories). One runs it; the other returns at once, and what it asked for is not lost."""

from __future__ import annotations

import subprocess
import sys

import pytest

from talkingrock import jobs


@pytest.fixture(autouse=True)
def _own_data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path


def test_a_second_caller_finds_the_lock_taken_and_does_nothing():
    ran = []
    with jobs.held("sweep") as mine:
        assert mine
        assert jobs.one_at_a_time("sweep", lambda: ran.append(1) or 1) == 0
    assert ran == []
    with jobs.held("sweep") as mine:
        assert mine  # let go at the end of the block


def test_what_is_asked_while_the_work_runs_is_run_again_by_the_one_running():
    calls = []

    def work() -> int:
        calls.append(len(calls))
        if len(calls) == 1:  # another process asks while this one runs: it returns at once
            assert jobs.one_at_a_time("index", lambda: 100) == 0
        return 1

    assert jobs.one_at_a_time("index", work) == 2
    assert calls == [0, 1]
    assert jobs.one_at_a_time("index", work) == 1  # nothing was left asked for


def test_locks_of_other_names_do_not_wait_on_each_other():
    with jobs.held("index-member-1-part-0") as first, jobs.held("index-member-1-part-1") as second:
        assert first and second


def test_a_killed_process_leaves_nothing_locked(tmp_path):
    (tmp_path / "locks").mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys\n"
            f"handle = open({str(tmp_path / 'locks' / 'index.lock')!r}, 'a')\n"
            "fcntl.flock(handle, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",  # holds it until killed (or its stdin closes)
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with jobs.held("index") as mine:
            assert not mine
    finally:
        holder.kill()
        holder.wait()
        holder.stdin.close()
        holder.stdout.close()
    with jobs.held("index") as mine:
        assert mine
