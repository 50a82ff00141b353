"""Two tabs racing: separate processes on one SQLite file start, send or close at the same
moment. Exactly one open conversation results, every message is kept and answered, and no tab
gets an error."""

from __future__ import annotations

import json

from tests.support.processes import in_lockstep, shell

TABS = 4


def race(env, action: str, tabs: int = TABS) -> list[str]:
    return in_lockstep(env, [["tests.support.tab", "writer0", action]] * tabs)


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


def test_two_messages_sent_at_once_are_both_stored_in_order_and_both_answered(file_env):
    # Before: one of the two answered 500 (UNIQUE constraint failed: conversation, position) in
    # 12 of 12 trials, and its message was never answered.
    answers = race(file_env, "send", tabs=2)

    assert not any(answer.startswith("refused") for answer in answers), answers
    assert len({answer.split()[0] for answer in answers}) == 1  # one conversation
    messages = json.loads(
        count(
            file_env,
            "__import__('json').dumps(list(Message.objects.order_by('position')"
            ".values_list('position', 'role', 'pk', 'reply_to_id')))",
        )
    )
    assert [position for position, *_ in messages] == [0, 1, 2, 3]
    said = {pk: position for position, role, pk, _ in messages if role == "user"}
    replies = [(position, reply_to) for position, role, _, reply_to in messages if role != "user"]
    assert len(said) == len(replies) == 2
    assert sorted(reply_to for _, reply_to in replies) == sorted(said)  # each answered once
    assert all(position > said[reply_to] for position, reply_to in replies)
