"""The web server as `make run` serves it: gunicorn, configured by gunicorn.conf.py (the app,
household/asgi.py, on its ASGI workers), on a free loopback port and a database of its own."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.processes import ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served(env: dict[str, str], log: Path) -> Iterator[str]:
    """gunicorn started as scripts/serve.sh starts it; its base url once it answers. Its log
    goes to ``log`` (a file: a pipe nobody reads would fill up and stall the server)."""
    port = free_port()
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=output,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_booted(process, log)
        # The socket is bound and a worker booted: the first request waits in the listen
        # backlog while the workers load the models (gunicorn.conf.py, post_worker_init).
        httpx.get(f"{url}/accounts/login/", timeout=120).raise_for_status()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_until_booted(process: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    """Until gunicorn says a worker has booted, or fail with its log if it exits first or says
    nothing in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if "Booting worker" in log.read_text():
            return
        try:  # between looks at the log, wait on the process: its exit ends the wait at once
            process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
    pytest.fail(f"gunicorn did not start (exit {process.poll()}):\n{log.read_text()}")
