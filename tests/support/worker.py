"""A real django-q2 worker (``manage.py qcluster``) as its own process, its log read line by
line, killed with its whole process group at the end."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

from tests.support.processes import ROOT

PATIENCE = 90  # seconds a worker may take to start, load its models and finish one task


class Worker:
    """``manage.py qcluster`` in its own process group, its log read line by line."""

    def __init__(self, env):
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # kill() takes its children too
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line)

    def logs(self, text: str, timeout: float = PATIENCE) -> None:
        """Block until the worker logs a line containing ``text``."""
        deadline, seen = time.monotonic() + timeout, []
        while (left := deadline - time.monotonic()) > 0:
            try:
                seen.append(self.lines.get(timeout=left))
            except queue.Empty:
                break
            if text in seen[-1]:
                return
        log = "".join(seen[-20:])
        raise AssertionError(f"the worker did not log {text!r} within {timeout} s:\n{log}")

    def kill(self) -> None:
        """SIGKILL the whole cluster: no clean-up code of ours or django-q2's gets to run."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)
