"""Tests that run the app as separate processes on one database file, as production does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MEMBERS = 4  # writer0 … writer3 in every file_env household


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


def file_env(data_dir: Path) -> dict[str, str]:
    """The production settings on a database file of its own, migrated, with four members."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "talkingrock.settings",
        "TALKINGROCK_DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
    }
    manage(env, "migrate", "--noinput", "-v", "0")
    shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        f"for n in range({MEMBERS}): get_user_model().objects.create_user(f'writer{{n}}')",
    )
    return env


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
