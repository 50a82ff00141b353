"""Narratives (seed 000): the chain, its tools, immutability, stamping, the running narrative,
the bounded context and "where was I?"."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from conversations import chat, review, running, services
from conversations.models import Message
from memories.housekeeping import missing_triggers
from memories.models import Memory
from narratives import services as narratives
from narratives import sql as narrative_sql
from narratives.models import ImmutableError, Narrative
from talkingrock.tools import ToolError, call_tool
from tests.support.ollama_stub import Timeout


def link(owner, summary, *, previous=None, memory_ids=(), topic="", **fields):
    return narratives.create(
        owner=owner,
        summary=summary,
        previous=previous,
        memory_ids=memory_ids,
        topic=topic,
        **fields,
    )


# --- the tools ----------------------------------------------------------------------------------


def test_the_chain_is_walked_back_and_forward_through_the_tools(alice, remember):
    oak = remember("We chose the oak worktop.")
    quote = remember("Marta's quote is 4,200 euros.")

    def update(summary, ids, previous, topic="kitchen"):
        return call_tool(
            alice,
            "narrative_update",
            summary=summary,
            memory_ids=ids,
            previous_narrative_id=previous,
            topic=topic,
        )["narrative"]

    first = update("Alice started planning the kitchen.", [], None)
    second = update("She chose oak for the worktop.", [oak.pk], first["id"])
    third = update("The quote came in at 4,200 euros, so the work can start.", [quote.pk, oak.pk],
                   second["id"])  # fmt: skip
    assert first["previous_narrative_id"] is None and first["starts_topic"] is True
    assert second["starts_topic"] is False and third["memory_ids"] == [quote.pk, oak.pk]

    # Back: follow previous_narrative_id from the latest (session recovery) to the start.
    walked, cursor = [], call_tool(alice, "narrative_search")["narratives"][0]
    while True:
        walked.append(cursor["id"])
        if cursor["previous_narrative_id"] is None:
            break
        cursor = call_tool(alice, "narrative_search", id=cursor["previous_narrative_id"])[
            "narratives"
        ][0]
    assert walked == [third["id"], second["id"], first["id"]]
    # Forward: continued_by, from the start to the latest.
    cursor = call_tool(alice, "narrative_search", id=first["id"])["narratives"][0]
    assert cursor["continued_by"] == [second["id"]]
    forward = call_tool(alice, "narrative_search", id=second["id"])["narratives"][0]
    assert forward["continued_by"] == [third["id"]]


def test_keyword_and_latest_modes_answer_newest_first(alice):
    old = link(alice, "The boiler needs replacing before winter.", topic="boiler")
    newer = link(alice, "Leo's party will be at the park.", previous=old, topic="party")
    newest = link(alice, "The boiler man comes on Tuesday.", previous=newer, topic="boiler")
    found = call_tool(alice, "narrative_search", query="boiler")
    assert found["mode"] == "keyword"
    assert [n["id"] for n in found["narratives"]] == [newest.pk, old.pk]
    assert call_tool(alice, "narrative_search", query="party")["narratives"][0]["id"] == newer.pk
    latest = call_tool(alice, "narrative_search")
    assert latest["mode"] == "latest" and [n["id"] for n in latest["narratives"]] == [newest.pk]
    assert call_tool(alice, "narrative_search", query="zeppelin")["narratives"] == []


@pytest.mark.parametrize("query", ['"((boiler', "*", "boiler AND OR NOT", "NEAR(", "-", "💥"])
def test_a_malformed_query_never_breaks_the_search(alice, query):
    boiler = link(alice, "The boiler needs replacing before winter.")
    answer = call_tool(alice, "narrative_search", query=query)
    assert answer["mode"] == "keyword"
    expected = [boiler.pk] if "boiler" in query else []
    assert [n["id"] for n in answer["narratives"]] == expected


@pytest.mark.parametrize(
    ("summary", "message"),
    [
        ("", "needs a summary"),
        ("   ", "needs a summary"),
        ("We chose oak. Then we changed our minds.", "one sentence"),
        ("x" * 301, "300 characters"),
    ],
)
def test_a_bad_summary_is_refused_with_the_reason(alice, summary, message):
    with pytest.raises(ToolError) as refused:
        call_tool(
            alice,
            "narrative_update",
            summary=summary,
            memory_ids=[],
            previous_narrative_id=None,
            topic="",
        )
    assert refused.value.status == 400 and message in refused.value.message
    assert not Narrative.objects.exists()


def test_an_abbreviation_is_still_one_sentence(alice):
    narrative = link(alice, "Saw Dr. Novak about the knee, e.g. the MRI on Friday.")
    assert narrative.summary.startswith("Saw Dr. Novak")


def test_unknown_ids_are_refused_as_not_found(alice):
    base = {"summary": "A step.", "memory_ids": [], "previous_narrative_id": None, "topic": ""}
    for wrong in ({"memory_ids": [999_999]}, {"previous_narrative_id": 999_999}):
        with pytest.raises(ToolError) as refused:
            call_tool(alice, "narrative_update", **(base | wrong))
        assert refused.value.status == 404, wrong
    with pytest.raises(ToolError) as refused:
        call_tool(alice, "narrative_search", id=999_999)
    assert refused.value.status == 404 and "No narrative with id 999999" in refused.value.message
    assert not Narrative.objects.exists()


# --- immutability and stamping ---------------------------------------------------------------


def test_a_narrative_cannot_be_changed_by_the_model_or_by_sql(alice):
    narrative = link(alice, "Alice chose green for the hallway.", topic="hallway")
    narrative.summary = "Alice chose blue."
    with pytest.raises(ImmutableError):
        narrative.save()
    with pytest.raises(DatabaseError, match="narratives are immutable"), transaction.atomic():
        Narrative.objects.filter(pk=narrative.pk).update(summary="Alice chose blue.")
    with pytest.raises(DatabaseError, match="narratives are immutable"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE narratives_narrative SET topic = 'x' WHERE id = %s", [narrative.pk]
            )
    narrative.refresh_from_db()
    assert (narrative.summary, narrative.topic) == ("Alice chose green for the hallway.", "hallway")


def test_migrate_restores_dropped_narrative_triggers_and_indexes_what_they_missed(alice):
    with connection.cursor() as cursor:
        for name in narrative_sql.TRIGGERS:
            cursor.execute(f"DROP TRIGGER {name}")  # what Django's table remake does
    missed = link(alice, "Stored while the courtyard triggers were gone.")
    assert narratives.search_narratives(alice, query="courtyard").narratives == []

    call_command("migrate", verbosity=0)

    assert missing_triggers(ddl=narrative_sql) == []
    assert narratives.search_narratives(alice, query="courtyard").narratives == [missed]
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Narrative.objects.filter(pk=missed.pk).update(topic="changed")


def test_deleting_a_member_takes_their_chain(db):
    member = get_user_model().objects.create_user("carol")
    first = link(member, "Carol started a chain.")
    link(member, "And continued it.", previous=first)
    member.delete()  # the chain's SET NULL on previous is allowed by the trigger
    assert not Narrative.objects.exists()


def test_memories_stored_while_a_narrative_is_active_carry_it(alice, alice_client, remember):
    """The callers stamp the active link (memory_store itself knows nothing of narratives): an
    agent's store, the web form; a plain service call is left unstamped."""
    before = call_tool(alice, "memory_store", content="Stored before any narrative.")
    narrative = link(alice, "Alice is planning the kitchen.")
    by_agent = call_tool(alice, "memory_store", content="The kitchen needs a new tap.")
    alice_client.post(reverse("memories:create"), {"content": "Tiles from the yard sale."})
    by_hand = Memory.objects.get(content="Tiles from the yard sale.")
    unstamped = remember("Imported from a file.")
    stamps = Memory.objects.filter(pk__in=[before["id"], by_agent["id"]]).order_by("pk")
    assert [m.narrative for m in stamps] == [None, narrative]
    assert by_hand.narrative == narrative and unstamped.narrative is None


# --- the running narrative ------------------------------------------------------------------


def turn(owner, said: str) -> Message:
    conversation, message = services.add_message(owner=owner, content=said)
    return chat.respond(conversation=conversation, message=message)


def test_the_same_topic_continues_and_a_new_one_starts_offline(alice):
    assert running.advance(turn(alice, "We decided to paint the hallway green.").pk).startswith(
        "narrative"
    )
    first = narratives.latest(alice)
    assert first.previous is None and first.starts_topic and first.engine == "offline"
    assert "decided to paint the hallway green" in first.summary

    running.advance(turn(alice, "I need to buy two tins of dark green paint for the hallway.").pk)
    same = narratives.latest(alice)
    assert same.previous == first and not same.starts_topic and same.topic == first.topic

    running.advance(turn(alice, "My dad has a cardiology appointment at the hospital.").pk)
    shifted = narratives.latest(alice)
    assert shifted.previous == same and shifted.starts_topic  # a new topic still points back
    assert shifted.topic != first.topic and "cardiology" in shifted.topic


def test_a_members_next_link_is_written_under_their_lock(alice, monkeypatch):
    """The task worker runs two processes: two turns' tasks for one member must not both continue
    the same link, so the link is read and written holding the member's lock (waited for)."""
    reply = turn(alice, "We decided to paint the hallway green.")
    seen = []
    real_held, real_create = running.jobs.held, narratives.create

    @contextmanager
    def held(name, *, wait=False):
        seen.append(("lock", name, wait))
        with real_held(name, wait=wait) as mine:
            yield mine
        seen.append(("unlock", name, wait))

    monkeypatch.setattr(running.jobs, "held", held)
    monkeypatch.setattr(
        narratives, "create", lambda **kw: seen.append(("create",)) or real_create(**kw)
    )
    assert running.advance(reply.pk).startswith("narrative")
    name = f"narrative-member-{alice.pk}"
    assert seen == [("lock", name, True), ("create",), ("unlock", name, True)]


def test_a_turn_that_moves_nothing_adds_no_link(alice):
    running.advance(turn(alice, "We decided to paint the hallway green.").pk)
    assert running.advance(turn(alice, "ok, thanks").pk) == "unchanged"  # small talk
    assert running.advance(turn(alice, "We decided to paint the hallway green.").pk) == "unchanged"
    assert Narrative.objects.count() == 1


def test_the_model_writes_the_link_and_only_offered_memories_are_kept(
    alice, remember, index, ollama
):
    oak = remember("We chose the oak worktop for the kitchen.")
    index(alice)
    ollama.answer("Noted.")  # the chat reply
    reply = turn(alice, "What did we choose for the kitchen worktop?")
    offered = [entry["id"] for entry in reply.memories_used]
    assert oak.pk in offered
    ollama.answer(
        {
            "summary": "Alice checked the worktop choice: oak.",
            "memory_ids": [oak.pk, 999_999],
            "topic": "kitchen",
            "same_topic": True,
        }
    )
    running.advance(reply.pk)
    narrative = narratives.latest(alice)
    assert narrative.engine == "ollama:llama3.2:3b" and narrative.topic == "kitchen"
    assert [link.memory_id for link in narrative.links.all()] == [oak.pk]  # not the invented id
    assert narrative.starts_topic  # "same topic" means nothing without a current link
    request = ollama.chats[-1]
    assert (
        request["format"] == running.SCHEMA and "oak worktop" in request["messages"][1]["content"]
    )


def test_the_model_says_whether_the_topic_continues(alice, ollama):
    start = link(alice, "Alice is planning the kitchen.", topic="kitchen")
    for same, topic in ((True, "kitchen"), (False, "dad's health")):
        ollama.answer("Noted.")
        reply = turn(alice, "Something was said.")
        ollama.answer(
            {"summary": f"Step on {topic}.", "memory_ids": [], "topic": topic, "same_topic": same}
        )
        running.advance(reply.pk)
    shifted = narratives.latest(alice)
    continued = shifted.previous
    assert continued.previous == start and not continued.starts_topic
    assert shifted.starts_topic and shifted.topic == "dad's health"  # and it still points back


def test_a_model_outage_writes_the_link_offline(alice, ollama):
    ollama.answer("Noted.")
    reply = turn(alice, "We decided to paint the hallway green.")
    ollama.answer(Timeout(), Timeout())
    running.advance(reply.pk)
    assert narratives.latest(alice).engine == "offline"


def test_two_sentences_from_the_model_fall_back_to_the_rules(alice, ollama):
    ollama.answer("Noted.")
    reply = turn(alice, "We decided to paint the hallway green.")
    two = {"summary": "Green. Then blue.", "memory_ids": [], "topic": "hall", "same_topic": False}
    ollama.answer(two)
    running.advance(reply.pk)
    assert narratives.latest(alice).engine == "offline"


# --- compaction and recovery ------------------------------------------------------------------


def test_the_context_stays_bounded_while_the_conversation_grows(alice, remember, settings):
    settings.TALKINGROCK_NARRATIVES = {
        **settings.TALKINGROCK_NARRATIVES,
        "context_token_budget": 1000,
    }
    budget = 1000 * chat.CHARS_PER_TOKEN
    for n in range(5):
        remember(f"Memory {n}: " + "the kitchen plan in some detail " * 10)
    link(alice, "Alice is planning the kitchen, step by step.", topic="kitchen")
    conversation, _ = services.add_message(owner=alice, content="Let us plan the kitchen.")
    sizes = {}
    for n in range(1, 201):
        role = Message.Role.USER if n % 2 else Message.Role.ASSISTANT
        message = services.append(conversation, role=role, content=f"Turn {n}: " + "words " * 60)
        if (n in (10, 50, 100, 200) and role == Message.Role.USER) or n in (11, 51, 101, 199):
            context = chat.compose(conversation, message, [])
            sizes[n] = sum(len(part["content"]) for part in context)
            assert sizes[n] <= budget, n
            assert "Alice is planning the kitchen" in context[0]["content"]  # the narrative
            assert context[-1]["content"] == message.content  # the newest turn, whole
            assert "Let us plan the kitchen." not in [part["content"] for part in context[1:]]
    assert max(sizes.values()) - min(sizes.values()) < budget // 4  # flat, not growing


def test_one_huge_message_is_clipped_to_fit(alice):
    conversation, message = services.add_message(owner=alice, content="word " * 1999)
    context = chat.compose(conversation, message, [])
    budget = chat._narrative_config("context_token_budget") * chat.CHARS_PER_TOKEN
    assert sum(len(part["content"]) for part in context) <= budget


def test_a_new_conversation_starts_where_the_last_one_left_off(alice, capture):
    first, _ = services.add_message(owner=alice, content="We decided to paint the hallway green.")
    services.request_close(conversation=first)
    with capture(execute=True):
        services.confirm_close(conversation=first)
    first.refresh_from_db()
    kept = review.confirm(conversation=first)
    final = narratives.latest(alice)
    assert final.conversation == first and final.engine == "close"
    assert kept[0].narrative == final  # the conversation's memory carries its final link
    kept[0].refresh_from_db()
    assert kept[0].narrative == final  # in the database too
    assert kept[0].pk in [link.memory_id for link in final.links.all()]

    second, message = services.add_message(owner=alice, content="Hello again")
    reply = chat.respond(conversation=second, message=message)
    assert reply.content.startswith(f"Where you left off: {final.summary}")
    system = chat.compose(second, message, [])[0]["content"]
    assert final.summary in system  # the model is caught up in one query, too
