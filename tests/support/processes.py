"""Tests that run the app as separate processes on one database file, as production does."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MEMBERS = 4  # writer0 … writer3 in every file_env household
DATABASE = "talkingrock.sqlite3"  # under TALKINGROCK_DATA_DIR (talkingrock/settings)


def manage(env, *args) -> str:
    """``manage.py`` in a process of its own; its stdout, or the test fails with its stderr."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def shell(env, code: str) -> str:
    return manage(env, "shell", "-v", "0", "-c", code).strip()


def _env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "talkingrock.settings",
        "TALKINGROCK_DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
    }


@cache
def _household() -> Path:
    """Once per test run: a data directory migrated by ``manage.py migrate`` with the four
    members, made as every file_env household was (about 7 s of processes)."""
    data_dir = Path(tempfile.mkdtemp(prefix="talkingrock-household-"))
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
    env = _env(data_dir)
    manage(env, "migrate", "--noinput", "-v", "0")
    shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        f"for n in range({MEMBERS}): get_user_model().objects.create_user(f'writer{{n}}')",
    )
    return data_dir


def file_env(data_dir: Path) -> dict[str, str]:
    """The production settings on a database file of its own, migrated, with four members: a
    copy of the run's one household (its database file with its write-ahead log, if one is
    left, and its secret key; not its cache)."""
    household = _household()
    for name in (DATABASE, f"{DATABASE}-wal", "secret_key"):
        if (household / name).exists():  # a write-ahead log left unmerged is read from
            shutil.copy2(household / name, data_dir / name)
    return _env(data_dir)


def in_lockstep(env, commands: list[list[str]], *, timeout: float = 120) -> list[str]:
    """Start ``python -m <command>`` processes; each prints "ready" once set up, then all are told
    "go" at the same moment. Answers each one's stdout; any that fails fails the test."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", *command],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    answers = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        assert process.returncode == 0, err
        answers.append(out.strip())
    return answers


def ended_process() -> str:
    """The identity of a process that has ended (see talkingrock.jobs.process_identity)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return f"{socket.gethostname()}:{child.pid}:"


def running_process() -> str:
    """The identity of a process that runs: the test runner's parent."""
    return f"{socket.gethostname()}:{os.getppid()}:"
