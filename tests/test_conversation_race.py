"""Two tabs racing: separate processes on one SQLite file start or close at the same moment.
Exactly one open conversation results, and no tab gets an error."""

from __future__ import annotations

import subprocess
import sys

from tests import test_concurrency
from tests.test_concurrency import ROOT, manage

file_env = test_concurrency.file_env  # the fixture: production settings on a file of its own

TABS = 4


def race(env, action: str) -> list[str]:
    tabs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.tab", "writer0", action],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(TABS)
    ]
    for tab in tabs:
        assert tab.stdout.readline().strip() == "ready"
    for tab in tabs:
        tab.stdin.write("go\n")
        tab.stdin.flush()
    answers = []
    for tab in tabs:
        out, err = tab.communicate(timeout=120)
        assert tab.returncode == 0, err
        answers.append(out.strip())
    return answers


def count(env, query: str) -> str:
    return manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        f"from conversations.models import Conversation, Message\nprint({query})",
    ).strip()


def test_tabs_racing_to_start_share_one_conversation(file_env):
    answers = race(file_env, "start")
    ids = {answer.split()[0] for answer in answers}
    assert len(ids) == 1, answers  # every tab landed in the same conversation
    assert count(file_env, "Conversation.objects.exclude(status='archived').count()") == "1"
    assert count(file_env, "Message.objects.count()") == str(TABS)  # no message lost


def test_tabs_racing_to_close_close_it_once(file_env):
    race(file_env, "start")
    answers = race(file_env, "close")
    assert all(not answer.startswith("refused") for answer in answers), answers
    assert {answer.split()[1] for answer in answers} == {"compressing"}
    assert count(file_env, "Conversation.objects.count()") == "1"
