"""Several processes writing to one SQLite file at once all succeed: transactions take the write
lock when they begin (IMMEDIATE) and wait for it (busy timeout) instead of failing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WRITERS = 4
EACH = 150


def manage(env, *args) -> str:
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


@pytest.fixture
def file_env(tmp_path):
    """The production settings on a database file of its own."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "talkingrock.settings",
        "TALKINGROCK_DATA_DIR": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
    }
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django.contrib.auth import get_user_model\n"
        f"for n in range({WRITERS}): get_user_model().objects.create_user(f'writer{{n}}')",
    )
    return env


def test_concurrent_writers_on_one_file_all_succeed(file_env):
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.writer", f"writer{n}", str(EACH)],
            cwd=ROOT,
            env=file_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    for writer in writers:
        assert writer.stdout.readline().strip() == "ready"
    for writer in writers:
        writer.stdin.write("go\n")
        writer.stdin.flush()
    results = [writer.communicate(timeout=120) for writer in writers]

    for writer, (_, stderr) in zip(writers, results, strict=True):
        assert writer.returncode == 0, stderr
    counts = manage(
        file_env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django.db import connection\n"
        "from memories.models import Memory\n"
        "from memories import sql\n"
        "connection.cursor().execute(sql.INTEGRITY_CHECK_FTS)\n"
        "print(Memory.objects.count(), Memory.objects.values('owner').distinct().count())",
    )
    assert counts.split() == [str(WRITERS * EACH), str(WRITERS)]
