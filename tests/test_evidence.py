"""What was said stays findable (issue 22, point 1): every message a member writes, and the
assistant's replies below them, is evidence in that member's own keyword and vector indexes from
the moment it is stored, linked to its conversation and time; recall, search_memories, the search
page and answers find it beside memories, a reviewed memory first; another member's messages
change nothing a member sees; a conversation that goes takes its messages out of the indexes.

Real SQLite with FTS5 and sqlite-vec, the real embedder."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from conversations import services
from conversations.models import Conversation
from memories import evidence, vector_search
from memories.models import Memory
from memories.recall import recall
from talkingrock.tools import call_tool

SAID = "the tiler is ruth okonkwo, she charges 40 an hour and can start on the 14th"


def said(owner, *lines: str) -> Conversation:
    conversation = None
    for line in lines:
        conversation, _ = services.add_message(owner=owner, content=line)
    return conversation


def fts_ids(owner_id: int, word: str) -> list[int]:
    table = f"memory_fts_{owner_id}"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH %s", [f'"{word}"'])
        return [row[0] for row in cursor.fetchall()]


def test_a_message_is_evidence_in_the_members_keyword_index_at_once(alice):
    conversation = said(alice, SAID)

    row = Memory.everything.get(message__conversation=conversation)
    assert (row.kind, row.owner, row.conversation) == (Memory.Kind.SAID, alice, conversation)
    assert row.happened_at == conversation.messages.get().created_at
    assert fts_ids(alice.pk, "okonkwo") == [row.pk]  # no indexing task needed for keywords
    # Evidence is not a memory anyone browses or reviews.
    assert not Memory.objects.filter(pk=row.pk).exists()


def test_recall_finds_what_was_said_and_says_where_and_when(alice, index):
    conversation = said(alice, SAID)
    index(alice)

    found = recall(alice, "how much does the tiler charge", k=5)

    hit = next(h for h in found.strong if h.memory.message_id)
    assert hit.memory.conversation_id == conversation.pk
    assert any(reason.startswith("you said it in conversation") for reason in hit.why)
    assert f"conversation {conversation.pk}, " in " ".join(hit.why)


def test_a_reviewed_memory_outranks_the_raw_message_that_answers_as_well(alice, remember, index):
    said(alice, SAID)
    kept = remember("The tiler is Ruth Okonkwo; she charges 40 an hour and can start on the 14th.")
    index(alice)

    found = recall(alice, "who is the tiler and what does she charge", k=5)

    ids = [h.memory_id for h in found.strong]
    message = Memory.everything.get(kind=Memory.Kind.SAID).pk
    assert ids.index(kept.pk) < ids.index(message)


def test_the_assistants_reply_ranks_below_the_members_own_words(alice, index):
    conversation, _ = services.add_message(owner=alice, content="the boiler code is 4471")
    services.add_message(owner=alice, content="Noted: the boiler code is 4471.", role="assistant")
    index(alice)

    found = recall(alice, "boiler code", k=5)

    kinds = [h.memory.kind for h in found.strong if h.memory.conversation_id == conversation.pk]
    assert kinds.index(Memory.Kind.SAID) < kinds.index(Memory.Kind.REPLY)


def test_search_memories_and_the_search_page_show_where_it_was_said(alice, alice_client, index):
    conversation = said(alice, SAID)
    index(alice)

    results = call_tool(alice, "search_memories", query="ruth the tiler")["results"]
    row = next(r for r in results if r["kind"] == "said")
    assert row["said_in"]["conversation_id"] == conversation.pk
    assert row["said_in"]["by"] == "you"
    assert row["said_in"]["text"].startswith(f"said by you in conversation {conversation.pk}, ")

    for mode in ("keywords", "meaning"):
        page = alice_client.get(reverse("memories:search"), {"q": "ruth tiler", "mode": mode})
        html = page.content.decode()
        assert "You said it in" in html, mode
        message = conversation.messages.get()
        assert f"/conversations/{conversation.pk}/#message-{message.pk}" in html, mode


def test_another_members_messages_change_nothing_a_member_sees(alice, bob, index, monkeypatch):
    now = timezone.make_aware(dt.datetime(2026, 11, 23, 12, 0))
    monkeypatch.setattr(timezone, "now", lambda: now)
    said(bob, "the boiler man zoltan comes tuesday", "violin lesson moved to thursday")
    index(bob)

    def seen():
        with transaction.atomic():
            answer = [
                call_tool(bob, "search_memories", query=q, limit=10)
                for q in ("boiler zoltan", "violin thursday", "tiler")
            ]
            transaction.set_rollback(True)
        return answer

    before = seen()
    assert any(a["results"] for a in before)
    said(alice, *(f"boiler zoltan violin thursday tiler {n}" for n in range(30)))
    index(alice)

    assert seen() == before


def test_a_conversation_that_goes_takes_its_messages_out_of_the_indexes(alice, index):
    conversation = said(alice, SAID, "and the grout is charcoal grey")
    index(alice)
    ids = list(Memory.everything.filter(conversation=conversation).values_list("pk", flat=True))
    assert len(ids) == 2 and vector_search.vector_count(owner_id=alice.pk) >= 2
    assert fts_ids(alice.pk, "charcoal")

    conversation.delete()

    assert not Memory.everything.filter(pk__in=ids).exists()
    assert fts_ids(alice.pk, "charcoal") == [] and fts_ids(alice.pk, "okonkwo") == []
    assert not vector_search.own_vectors(ids)


def test_evidence_find_is_the_members_own(alice, bob):
    said(alice, SAID)
    said(bob, "bob's tiler is called frank")

    assert [m.content for m in evidence.find(owner=alice, query="tiler")] == [SAID]
    assert [m.content for m in evidence.find(owner=bob, query="tiler")] == [
        "bob's tiler is called frank"
    ]
    assert evidence.find(owner=alice, query="") == []


@pytest.mark.parametrize("query", ["how much an hour", "ruth okonkwo"])
def test_an_offline_answer_quotes_the_message_with_when_it_was_said(alice, index, query):
    said(alice, SAID)
    services.request_close(conversation=services.open_conversation(alice))
    index(alice)
    conversation = Conversation.objects.get(owner=alice)
    services.resume(conversation=conversation)

    reply = call_tool(alice, "send_message", content=f"the tiler: {query}?")["reply"]

    assert "you said on" in reply and ("40" in reply or "Ruth" in reply.title()), reply
