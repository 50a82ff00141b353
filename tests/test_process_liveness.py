"""Whether the process that holds a piece of work still lives (talkingrock/jobs.py, on psutil):
a compression or a consolidation run taken by a killed worker is taken over at once."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from talkingrock import jobs


def test_this_process_is_alive_and_named_by_host_pid_and_start():
    me = jobs.process_identity()

    host, pid, started = me.rsplit(":", 2)
    assert host == socket.gethostname() and int(pid) > 0 and float(started) > 0
    assert jobs.process_gone(me) is False


def test_a_killed_process_is_gone_and_a_reused_pid_is_not_mistaken_for_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        host, _, started = jobs.process_identity().rsplit(":", 2)
        identity = f"{host}:{child.pid}:{jobs._started(jobs.psutil.Process(child.pid))}"
        assert jobs.process_gone(identity) is False
        # The same pid, started at another moment, is another process.
        assert jobs.process_gone(f"{host}:{child.pid}:{float(started) - 100:.2f}") is True
        child.kill()
        # Killed but not yet reaped (a zombie) counts as gone, once the signal has landed.
        for _ in range(200):
            if jobs.process_gone(identity):
                break
            time.sleep(0.05)
        assert jobs.process_gone(identity) is True
    finally:
        child.kill()
        child.wait()
    assert jobs.process_gone(identity) is True


def test_another_machine_or_a_malformed_identity_cannot_be_told():
    assert jobs.process_gone("another-host:1:123.00") is None
    assert jobs.process_gone("not an identity") is None
    assert jobs.process_gone(f"{socket.gethostname()}:-4:1") is None
