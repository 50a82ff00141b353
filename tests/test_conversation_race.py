"""Two tabs racing: separate processes on one SQLite file start or close at the same moment.
Exactly one open conversation results, and no tab gets an error."""

from __future__ import annotations

from tests.support.processes import in_lockstep, shell

TABS = 4


def race(env, action: str) -> list[str]:
    return in_lockstep(env, [["tests.support.tab", "writer0", action]] * TABS)


def count(env, query: str) -> str:
    return shell(env, f"from conversations.models import Conversation, Message\nprint({query})")


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
