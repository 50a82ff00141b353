"""Structure on every path into the store (issue 12): ``memory_store`` takes ``happened_at`` and a
``session`` through the tool, the HTTP API, the command and both import formats; a session groups
memories for recall exactly as a conversation does; and one member's session is never another's.
Recall runs with the real embedding model."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from conversations.models import Conversation
from household import backup, restore
from memories import markdown, search
from memories.models import Memory
from memories.recall import recall
from talkingrock.tools import ToolError, call_tool

MONDAY = datetime(2026, 3, 9, 19, 30, tzinfo=UTC)
# A chat told in short turns, the answer meaning nothing alone: "the blue one!!".
CHAT = [
    "did u end up getting a bike",
    "yes!! went to the shop on saturday",
    "which one did you get in the end",
    "the blue one!!",
    "the dog chewed my trainers again btw",
    "noooo not again",
]
OTHER = [
    "dentist moved my appointment to thursday",
    "ugh thursdays are the worst",
    "the boiler man is coming at 8",
]
# Told again a week later: the later telling is the current one, on either path.
AGAIN = [
    "the dentist moved my appointment again, it's friday now",
    "at least fridays are quiet",
]


# --- every writer ---------------------------------------------------------------------------


def test_the_tool_stores_when_it_happened_and_its_session(alice):
    stored = call_tool(
        alice, "memory_store", content="the blue one!!", happened_at="2026-03-09", session="bikes"
    )
    memory = Memory.objects.get(pk=stored["id"])
    assert memory.session == "bikes" and stored["session"] == "bikes"
    assert memory.happened_at.date().isoformat() == "2026-03-09"
    assert stored["happened_at"].startswith("2026-03-09T00:00:00")

    with_time = call_tool(
        alice, "memory_store", content="x", happened_at="2026-03-09T19:30:00+01:00"
    )
    assert Memory.objects.get(pk=with_time["id"]).happened_at == datetime(
        2026, 3, 9, 18, 30, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"happened_at": "2026-13-01"}, "happened_at must be an ISO date"),
        ({"happened_at": "yesterday"}, "happened_at must be an ISO date"),
        ({"happened_at": "99999-01-01"}, "happened_at must be an ISO date"),
        ({"happened_at": "2026-03-09T10:00:00+99:00"}, "happened_at must be an ISO date"),
        ({"happened_at": 20260309}, "must be of type string"),
        ({"session": "s" * 201}, "longer than 200"),
        ({"session": ["a"]}, "must be of type string"),
    ],
)
def test_a_bad_date_or_session_is_a_clear_refusal_and_stores_nothing(alice, args, message):
    with pytest.raises(ToolError) as refused:
        call_tool(alice, "memory_store", content="kept?", **args)
    assert refused.value.status == 400 and message in str(refused.value)
    assert not Memory.objects.filter(owner=alice).exists()


def test_a_session_name_is_one_line_without_control_characters(alice):
    stored = call_tool(alice, "memory_store", content="x", session="  trip\x00 to\n  porto ")
    assert stored["session"] == "trip to porto"


def test_the_http_api_takes_both(client, alice, alice_token):
    response = client.post(
        reverse("api-tool", args=["memory_store"]),
        data=json.dumps({"content": "haha yes", "happened_at": "2026-03-09", "session": "s1"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {alice_token}",
    )
    assert response.status_code == 200, response.content
    assert response.json()["session"] == "s1"
    refused = client.post(
        reverse("api-tool", args=["memory_store"]),
        data=json.dumps({"content": "x", "happened_at": "not a date"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {alice_token}",
    )
    assert refused.status_code == 400 and "happened_at" in refused.json()["error"]


def test_the_command_stores_one_memory_with_both(alice):
    out = io.StringIO()
    call_command(
        "memories", "store", "the blue one!!", "--user", "alice", "--session", "bikes",
        "--happened-at", "2026-03-09T19:30:00", stdout=out,
    )  # fmt: skip
    memory = Memory.objects.get(owner=alice)
    assert memory.session == "bikes" and memory.happened_at == MONDAY
    assert f"[id:{memory.pk}]" in out.getvalue()
    with pytest.raises(CommandError, match="happened_at must be"):
        call_command("memories", "store", "x", "--user", "alice", "--happened-at", "soon")


def test_the_json_export_carries_both_and_restores_them(alice, bob, remember):
    remember("the blue one!!", session="bikes", happened_at=MONDAY)
    data = backup.export_backup(owner=alice)
    row = next(r for r in data["memories"] if r["content"] == "the blue one!!")
    assert row["session"] == "bikes" and row["happened_at"].startswith("2026-03-09T19:30")

    restore.import_data(owner=bob, data=json.loads(json.dumps(data, default=str)))
    copy = Memory.objects.get(owner=bob, content="the blue one!!")
    assert copy.session == "bikes" and copy.happened_at == MONDAY


def test_an_export_written_before_sessions_existed_still_imports(alice, bob, remember):
    remember("the blue one!!")
    data = json.loads(json.dumps(backup.export_backup(owner=alice), default=str))
    for row in data["memories"]:
        del row["session"]
    restore.import_data(owner=bob, data=data)
    assert Memory.objects.get(owner=bob).session == ""


def test_the_markdown_export_carries_the_session_and_reads_it_back(alice, bob, remember):
    remember('the "blue" one!!', session="bikes <3", happened_at=MONDAY)
    text = markdown.export_markdown(owner=alice)
    entries = markdown.parse_markdown(text)
    markdown.import_entries(owner=bob, entries=entries)
    copy = Memory.objects.get(owner=bob)
    assert copy.session == "bikes <3" and copy.happened_at == MONDAY


# --- a session is read as a conversation is --------------------------------------------------


def _as_sessions(owner, remember):
    for n, text in enumerate(CHAT):
        remember(text, owner=owner, session="chat-1", happened_at=MONDAY + timedelta(seconds=n))
    for n, text in enumerate(OTHER):
        when = MONDAY + timedelta(days=3, seconds=n)
        remember(text, owner=owner, session="chat-2", happened_at=when)
    for n, text in enumerate(AGAIN):
        when = MONDAY + timedelta(days=10, seconds=n)
        remember(text, owner=owner, session="chat-3", happened_at=when)


def _as_conversations(owner, remember):
    for turns, start in (
        (CHAT, MONDAY),
        (OTHER, MONDAY + timedelta(days=3)),
        (AGAIN, MONDAY + timedelta(days=10)),
    ):
        talk = Conversation.objects.create(
            owner=owner, status=Conversation.Status.ARCHIVED, started_at=start
        )
        for n, text in enumerate(turns):
            when = start + timedelta(seconds=n)
            remember(text, owner=owner, conversation=talk, happened_at=when)


QUESTIONS = [
    "what colour bike did they buy",
    "which bike in the end",
    "what did the dog chew",
    "when is the dentist",
]


def _ranked(owner):
    at = MONDAY + timedelta(days=12)
    return {
        question: [
            (Memory.objects.get(pk=hit.memory_id).content, round(hit.score, 6))
            for hit in recall(owner, question, k=6, at=at).hits
        ]
        for question in QUESTIONS
    }


def test_the_plain_path_with_sessions_ranks_as_the_conversation_path(alice, bob, remember, index):
    _as_sessions(alice, remember)
    _as_conversations(bob, remember)
    index(alice)
    index(bob)

    assert _ranked(alice) == _ranked(bob)
    dentist = _ranked(alice)["when is the dentist"]
    assert dentist[0][0] == AGAIN[0]  # the later telling first, on both paths


def test_a_sessions_turns_lift_each_other_and_say_so(alice, remember, index):
    _as_sessions(alice, remember)
    index(alice)

    result = recall(alice, "which bike did they get", k=6, at=MONDAY + timedelta(days=10))
    answer = Memory.objects.get(owner=alice, content="the blue one!!")
    hit = next(h for h in result.hits if h.memory_id == answer.pk)
    assert hit.components["conversation"]["id"] == "session:chat-1"
    assert "same session as" in " ".join(hit.why)


def test_without_a_session_the_same_turns_are_not_neighbours(alice, remember, index):
    for n, text in enumerate(CHAT):
        remember(text, happened_at=MONDAY + timedelta(seconds=n))
    index(alice)
    ids = list(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    assert search.conversation_order(owner_id=alice.pk, ids=ids, include_archived=False) == {}


# --- one member's session is never another's ---------------------------------------------------


def test_the_same_session_name_of_two_members_is_two_sessions(alice, bob, remember, index):
    _as_sessions(alice, remember)
    mine = remember("bob's own turn in a session of the same name", owner=bob, session="chat-1")
    index(alice)
    index(bob)

    order = search.conversation_order(owner_id=bob.pk, ids=[mine.pk], include_archived=False)
    assert order == {"session:chat-1": [mine.pk]}
    result = recall(bob, "which bike did they get", k=10)
    assert {hit.memory_id for hit in result.hits} <= {mine.pk}
    # Alice's ids asked for as Bob bring none of hers.
    theirs = list(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    assert search.conversation_order(owner_id=bob.pk, ids=theirs, include_archived=False) == {}
