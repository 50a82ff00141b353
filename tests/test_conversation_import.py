"""Conversations brought in from elsewhere with their dates (issue 22, point 5): Talking Rock's
own JSON, ChatGPT's conversations.json and Claude's export (small files written for these tests,
tests/data/imports/), each lived through close → compress → review as of its own day; a
re-import is recognised; a bad file is refused whole with the reason and changes nothing.

Real SQLite, the real embedder; the worker's task runs inline here (the test settings), and
tests/test_conversation_import_worker.py runs one through a real django-q2 cluster."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from conversations import importing
from conversations.models import Conversation, ConversationImport, Message
from memories.models import Memory, MemoryItem
from memories.porting import ImportFormatError
from memories.recall import recall
from talkingrock.tools import ToolError, call_tool

FILES = Path(__file__).parent / "data" / "imports"


def export(name: str):
    return json.loads((FILES / f"{name}.json").read_text())


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.fixture
def imported(alice, django_capture_on_commit_callbacks):
    """Import a file through the tool, its work done by the (inline) worker task."""

    def run(name: str, owner=None) -> dict:
        with django_capture_on_commit_callbacks(execute=True):
            answer = call_tool(owner or alice, "import_conversation", data=export(name))
        return call_tool(owner or alice, "get_import", import_id=answer["import_id"])

    return run


def counts() -> tuple[int, ...]:
    return (
        Conversation.objects.count(),
        Message.objects.count(),
        Memory.everything.count(),
        MemoryItem.objects.count(),
        ConversationImport.objects.count(),
    )


# --- reading each format --------------------------------------------------------------------


def test_each_format_is_read_with_each_message_at_its_own_time():
    source, ours = importing.read(export("talkingrock"))
    assert source == "talkingrock"
    assert [t.title for t in ours] == ["Dentist and pickups", "Pickup changes"]  # oldest first
    assert [at(m.at) for m in ours[0].messages][:3] == [
        datetime(2026, 3, 2, 19, 12, tzinfo=UTC),
        datetime(2026, 3, 2, 19, 12, 30, tzinfo=UTC),
        datetime(2026, 3, 2, 19, 14, tzinfo=UTC),
    ]

    source, chatgpt = importing.read(export("chatgpt"))
    assert source == "chatgpt"
    kitchen = chatgpt[0]
    # The branch that leads to current_node: the edited first question and the tool's output are
    # not in it, nor the empty system message.
    assert [m.role for m in kitchen.messages] == ["user", "assistant", "user", "assistant"]
    assert kitchen.messages[0].content.startswith("dave the contractor came by today")
    assert at(kitchen.messages[2].at) == datetime(2026, 3, 14, 18, 2, tzinfo=UTC)
    assert kitchen.key == "chatgpt:6610f0c2-9d1e-4e8a-9b1c-2f4f1b0c7a11"

    source, claude = importing.read(export("claude"))
    assert source == "claude"
    lessons = claude[0]
    assert lessons.title == "Piano lessons"
    # The assistant's text is in its content parts when "text" is empty.
    assert lessons.messages[1].content.startswith("Every other Saturday at 9")
    assert at(lessons.messages[2].at) == datetime(2026, 2, 10, 20, 3, tzinfo=UTC)


def test_a_message_longer_than_the_app_takes_is_kept_whole_in_pieces(settings):
    settings.TALKINGROCK_CONVERSATIONS = {
        **settings.TALKINGROCK_CONVERSATIONS,
        "max_message_chars": 60,
    }
    long = " ".join(f"Sentence {n} is about the garden." for n in range(12))
    data = {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [
            {"messages": [{"role": "user", "content": long, "at": "2026-01-05T10:00:00Z"}]}
        ],
    }
    _, [transcript] = importing.read(data)
    pieces = [m.content for m in transcript.messages]
    assert len(pieces) > 1 and all(len(p) <= 60 for p in pieces)
    assert " ".join(pieces) == long


# --- living them through, as of their day ---------------------------------------------------


def test_an_import_keeps_each_conversation_with_its_dates_and_reads_it_as_of_then(alice, imported):
    report = imported("talkingrock")

    assert report["status"] == "done", report
    assert [c["state"] for c in report["conversations"]] == ["imported", "imported"]
    march = Conversation.objects.get(owner=alice, imported_from="talkingrock:week-of-march-2")
    assert march.status == Conversation.Status.ARCHIVED
    assert march.started_at == datetime(2026, 3, 2, 19, 12, tzinfo=UTC)
    assert march.archived_at == datetime(2026, 3, 2, 19, 15, tzinfo=UTC)
    assert [m.created_at for m in march.messages.all()][-1] == datetime(
        2026, 3, 2, 19, 15, tzinfo=UTC
    )
    # Its memory and facts are as old as the conversation, not as the import.
    memory = march.memories.get(kind=Memory.Kind.MEMORY)
    assert memory.status == Memory.Status.CONFIRMED
    assert memory.created_at == datetime(2026, 3, 2, 19, 15, tzinfo=UTC)
    # "the 8th" and "tmrw" are read against the day they were said (2 March), beside the words.
    facts = {f.content: f for f in march.memories.filter(kind=Memory.Kind.FACT)}
    dentist = next(f for text, f in facts.items() if "dentist" in text.casefold())
    assert "on the 8th at 10:30" in dentist.content  # the member's words, not a date spliced in
    assert dentist.happened_at.date() == date(2026, 3, 8)
    tasks = [i for i in memory.items.all() if i.type == "task"]
    plumber = next(t for t in tasks if "plumber" in t.text.casefold())
    assert (plumber.data.get("due") or plumber.data.get("on")) == "2026-03-03", plumber.data
    # What was said is evidence from then on, at its own time.
    said = Memory.everything.get(message=march.messages.get(position=0))
    assert said.kind == Memory.Kind.SAID and said.happened_at == march.started_at


def test_the_later_conversation_replaces_the_earlier_value_and_the_answer_says_so(alice, imported):
    imported("talkingrock")

    april = Conversation.objects.get(owner=alice, imported_from="talkingrock:pickup-april")
    three = Memory.objects.get(owner=alice, kind=Memory.Kind.FACT, content__icontains="3pm, i do")
    assert three.valid_to is not None, "the 3pm fact was replaced by April's"
    replacing = april.memories.filter(kind=Memory.Kind.FACT)
    assert three.superseded_by_id in {f.pk for f in replacing}

    reply = call_tool(alice, "send_message", content="when is the school pickup?")["reply"]
    assert "3:30" in reply and "before: 3pm" in reply.replace("3 pm", "3pm"), reply


def test_a_conversation_from_before_never_replaces_what_was_said_later(alice, imported):
    # April's conversation is imported first, on its own: March's, imported afterwards, is
    # older and must not replace it.
    data = export("talkingrock")
    april, march = data["conversations"]
    for conversation in (april, march):
        call_tool_import(alice, {**data, "conversations": [conversation]})
    later = Memory.objects.get(owner=alice, kind=Memory.Kind.FACT, content__icontains="3:30")
    assert later.valid_to is None
    assert not Memory.objects.filter(superseded_by=later).exists() or all(
        m.created_at < later.created_at for m in Memory.objects.filter(superseded_by=later)
    )
    earlier = Memory.objects.get(owner=alice, kind=Memory.Kind.FACT, content__icontains="3pm, i do")
    assert earlier.superseded_by_id is None


def call_tool_import(owner, data):
    job = importing.queue(owner=owner, data=data, enqueue=False)
    assert importing.run(job.pk) == ConversationImport.Status.DONE


def test_chatgpt_and_claude_exports_import_with_their_dates(alice, imported):
    chatgpt = imported("chatgpt")
    claude = imported("claude")

    assert chatgpt["source"] == "chatgpt" and claude["source"] == "claude"
    assert {c["state"] for c in chatgpt["conversations"] + claude["conversations"]} == {"imported"}
    kitchen = Conversation.objects.get(
        owner=alice, imported_from="chatgpt:6610f0c2-9d1e-4e8a-9b1c-2f4f1b0c7a11"
    )
    assert kitchen.started_at == datetime(2026, 3, 14, 18, 1, tzinfo=UTC)
    assert kitchen.messages.count() == 4
    assert kitchen.title == "Kitchen remodel"  # the export's own title is kept
    lessons = Conversation.objects.get(owner=alice, imported_from__startswith="claude:")
    assert lessons.started_at == datetime(2026, 2, 10, 20, 0, tzinfo=UTC)
    assert lessons.title == "Piano lessons"
    # What was said in them is found, said when it was said.
    found = recall(alice, "how much does the piano teacher charge", k=5)
    said = [h for h in found.hits if h.memory.message_id]
    assert said and said[0].memory.happened_at.date() == date(2026, 2, 10)
    # The schedule stays recurring, beside the words.
    lesson = Memory.objects.get(owner=alice, kind=Memory.Kind.FACT, content__icontains="saturday")
    assert "every other saturday" in lesson.content.casefold()
    assert "FREQ=WEEKLY;INTERVAL=2" in json.dumps(lesson.details), lesson.details


def test_importing_the_same_file_again_is_recognised_not_duplicated(alice, imported):
    imported("chatgpt")
    before = counts()

    again = imported("chatgpt")

    assert again["status"] == "done"
    assert {c["state"] for c in again["conversations"]} == {"already imported"}
    assert counts()[:4] == before[:4]  # only the import's own record is new
    assert counts()[4] == before[4] + 1


def test_another_members_conversations_are_theirs_alone(alice, bob, imported):
    imported("claude")
    imported("claude", owner=bob)  # the same file, another member: imported for them too

    assert Conversation.objects.filter(imported_from__startswith="claude:").count() == 2
    job = ConversationImport.objects.filter(owner=alice).get()
    with pytest.raises(ToolError) as refused:
        call_tool(bob, "get_import", import_id=job.pk)
    assert refused.value.status == 404


# --- bad files ------------------------------------------------------------------------------

BAD = {
    "not an export": {"conversations": []},
    "unknown version": {"format": "talkingrock.conversations", "version": 7, "conversations": []},
    "a message without a time": {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [{"messages": [{"role": "user", "content": "hello"}]}],
    },
    "a time that is no time": {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [
            {"messages": [{"role": "user", "content": "hi", "at": "the 3rd of never"}]}
        ],
    },
    "an unknown role": {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [
            {"messages": [{"role": "robot", "content": "hi", "at": "2026-01-01T00:00:00Z"}]}
        ],
    },
    "a huge ChatGPT time": [
        {
            "mapping": {
                "a": {
                    "message": {
                        "author": {"role": "user"},
                        "create_time": 10**30,
                        "content": {"content_type": "text", "parts": ["hi"]},
                    },
                    "parent": None,
                    "children": [],
                }
            },
            "current_node": "a",
        }
    ],
    "a Claude message that is not text": [
        {"uuid": "x", "chat_messages": [{"sender": "human", "text": ["a", "list"]}]}
    ],
    "a list of neither": [{"title": "x"}],
    "nothing the member said": [
        {
            "uuid": "y",
            "chat_messages": [
                {"sender": "assistant", "text": "hello", "created_at": "2026-01-01T00:00:00Z"}
            ],
        }
    ],
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_file_is_refused_with_the_reason_and_changes_nothing(alice, case):
    before = counts()
    with pytest.raises(ToolError) as refused:
        call_tool(alice, "import_conversation", data=BAD[case])
    assert refused.value.status == 400 and refused.value.message
    assert counts() == before


def test_a_half_good_file_imports_nothing(alice):
    data = export("talkingrock")
    data["conversations"][1]["messages"][2]["at"] = "yesterday-ish"
    before = counts()
    with pytest.raises(ImportFormatError, match="conversation 2, message 3"):
        importing.queue(owner=alice, data=data)
    assert counts() == before


# --- the upload on the Conversations page, and manage.py ------------------------------------


def upload(client, content: bytes, name="conversations.json"):
    return client.post(
        reverse("conversations:import-upload"),
        {"file": SimpleUploadedFile(name, content, content_type="application/json")},
    )


def test_the_upload_takes_an_export_and_shows_how_it_goes(
    alice, alice_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice_client, (FILES / "claude.json").read_bytes())
    job = ConversationImport.objects.get(owner=alice)
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()

    page = alice_client.get(job.get_absolute_url())
    assert page.status_code == 200
    text = page.content.decode()
    assert "Piano lessons" in text and "10 Feb 2026" in text and "done" in text
    archive = alice_client.get(reverse("conversations:archive")).content.decode()
    assert "Tuesday 10 February 2026" in archive and "imported" in archive


@pytest.mark.parametrize(
    "content, said",
    [
        (b"\xff\xfe not text", "This file is not text"),
        (b"{ not json", "it breaks off at line 1, character 3"),
        (json.dumps([{"title": "x"}]).encode(), "This file is a list, but not of ChatGPT"),
        (json.dumps({"hello": "world"}).encode(), "not a conversations export"),
    ],
)
def test_a_bad_upload_is_refused_on_the_page_and_changes_nothing(alice_client, content, said):
    before = counts()
    response = upload(alice_client, content)
    assert response.status_code == 400
    assert said in response.content.decode()
    assert counts() == before


def test_an_upload_larger_than_allowed_is_refused_before_it_is_read(alice_client, settings):
    settings.TALKINGROCK_CONVERSATIONS = {
        **settings.TALKINGROCK_CONVERSATIONS,
        "max_import_bytes": 100,
    }
    response = upload(alice_client, (FILES / "chatgpt.json").read_bytes())
    assert response.status_code == 400 and "at most" in response.content.decode()
    assert not ConversationImport.objects.exists()


def test_another_members_import_page_is_not_found(alice, bob_client, imported):
    report = imported("claude")
    for name in ("conversations:import", "conversations:import-retry"):
        url = reverse(name, args=[report["import_id"]])
        response = bob_client.post(url) if name.endswith("retry") else bob_client.get(url)
        assert response.status_code == 404


def test_manage_py_imports_a_file_and_says_what_it_did(alice):
    out = StringIO()
    call_command("import_conversations", str(FILES / "chatgpt.json"), user="alice", stdout=out)
    assert "2 imported, 0 already there, of 2" in out.getvalue()

    out = StringIO()
    call_command("import_conversations", str(FILES / "chatgpt.json"), user="alice", stdout=out)
    assert "0 imported, 2 already there" in out.getvalue()

    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_conversations", str(FILES / ".." / "imports"), user="alice")
