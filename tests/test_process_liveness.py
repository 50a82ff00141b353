"""Whether the process that holds a piece of work still lives (talkingrock/jobs.py, on psutil):
a compression or a consolidation run taken by a killed worker is taken over at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import psutil

from talkingrock import jobs


def test_this_process_is_alive_and_named_by_host_pid_and_start():
    me = jobs.process_identity()

    host, pid, started = me.rsplit(":", 2)
    assert host == socket.gethostname() and int(pid) > 0 and float(started) > 0
    assert jobs.process_gone(me) is False


def test_a_killed_process_is_gone_and_a_reused_pid_is_not_mistaken_for_it():
    # A child that waits on its stdin until it is killed.
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        host, _, started = jobs.process_identity().rsplit(":", 2)
        identity = f"{host}:{child.pid}:{jobs._started(psutil.Process(child.pid))}"
        assert jobs.process_gone(identity) is False
        # The same pid, started at another moment, is another process.
        assert jobs.process_gone(f"{host}:{child.pid}:{float(started) - 100:.2f}") is True
        child.kill()
        # Wait until it has died without reaping it (WNOWAIT): a zombie still holds its pid,
        # and counts as gone.
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        assert jobs.process_gone(identity) is True
    finally:
        child.kill()
        child.wait()
    assert jobs.process_gone(identity) is True


def test_another_machine_or_a_malformed_identity_cannot_be_told():
    assert jobs.process_gone("another-host:1:123.00") is None
    assert jobs.process_gone("not an identity") is None
    assert jobs.process_gone(f"{socket.gethostname()}:-4:1") is None
