"""The conversation lifecycle as services: transitions, compression offline and with a scripted
Ollama, review (confirm, edit, split, resume), thread resolution, greeting, faults."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.urls import reverse
from django.utils import timezone

from conversations import chat, compression, prompts, review, services, tasks
from conversations.greeting import greeting
from conversations.models import Classification, Conversation, Message
from conversations.services import TransitionError
from memories import acts
from memories.models import Act, Memory, MemoryItem, Mention, Recall, StateDelta
from memories.services import memory_query
from talkingrock import llm
from talkingrock.tools import ToolError, call_tool
from tests.support.ollama_stub import HTTP, Timeout, ToolCalls
from tests.support.processes import ended_process, running_process

Status, Stage = Conversation.Status, Conversation.Stage

RENOVATION = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "I need to order the tiles for the bathroom.",
    "We still can't decide whether to replace the boiler before winter.",
]


def talk(owner, *lines):
    conversation = None
    for line in lines:
        conversation, _ = services.add_message(owner=owner, content=line)
    return conversation


def close_and_compress(conversation, capture):
    services.request_close(conversation=conversation)
    with capture(execute=True):
        services.confirm_close(conversation=conversation)
    conversation.refresh_from_db()
    return conversation


# --- transitions -----------------------------------------------------------------------------


def test_a_first_message_starts_the_one_conversation(alice):
    conversation, message = services.add_message(owner=alice, content="Hello")
    again, second = services.add_message(owner=alice, content="Still me")
    assert again.pk == conversation.pk
    assert (message.position, second.position) == (0, 1)
    assert again.message_count == 2 and again.last_message_at == second.created_at


def test_the_database_refuses_a_second_open_conversation(alice):
    Conversation.objects.create(owner=alice)
    with pytest.raises(IntegrityError):
        Conversation.objects.create(owner=alice, status=Status.READY_TO_CLOSE)


def test_start_returns_the_open_conversation_instead_of_a_new_one(alice):
    first, created = services.start(owner=alice)
    second, created_again = services.start(owner=alice)
    assert created and not created_again and first.pk == second.pk


@pytest.mark.parametrize("content", ["", "   ", "\x00\x07", "x" * 10_001])
def test_empty_and_oversized_messages_are_refused_with_a_reason(alice, content):
    with pytest.raises(services.MessageError) as refused:
        services.add_message(owner=alice, content=content)
    assert "empty" in refused.value.message or "limit is 10,000" in refused.value.message
    assert not Message.objects.exists() and not Conversation.objects.exists()


@pytest.mark.parametrize("content", ["", "   ", "x" * 10_001])
def test_send_message_says_a_bad_message_is_a_bad_argument_not_a_bad_state(alice, content):
    with pytest.raises(ToolError) as refused:
        call_tool(alice, "send_message", content=content)

    assert refused.value.status == 400


def test_every_invalid_transition_says_why(alice, capture):
    conversation = talk(alice, "Hi there")
    with pytest.raises(TransitionError, match="done first"):
        services.confirm_close(conversation=conversation)
    with pytest.raises(TransitionError, match="Only a compression"):
        services.retry_compression(conversation=conversation)
    services.request_close(conversation=conversation)
    with pytest.raises(TransitionError, match="waiting to be closed"):
        services.add_message(owner=alice, content="one more thing")
    with pytest.raises(TransitionError, match="waiting to be closed"):
        services.set_paused(conversation=conversation, paused=True)
    conversation = close_and_compress(conversation, capture)
    assert conversation.review_ready
    assert services.request_close(conversation=conversation).review_ready  # a second tab's click
    with pytest.raises(TransitionError, match="being remembered"):
        services.set_paused(conversation=conversation, paused=True)
    review.confirm(conversation=conversation)
    for step in (services.resume, services.request_close, services.set_paused):
        kwargs = {"paused": True} if step is services.set_paused else {}
        with pytest.raises(TransitionError, match="archived"):
            step(conversation=conversation, **kwargs)
    with pytest.raises(TransitionError, match="already archived"):
        review.confirm(conversation=conversation)


def test_valid_transitions_round_trip(alice):
    conversation = talk(alice, "Hi")
    services.set_paused(conversation=conversation, paused=True)
    services.set_paused(conversation=conversation, paused=False)
    services.request_close(conversation=conversation)
    assert services.request_close(conversation=conversation).status == Status.READY_TO_CLOSE
    resumed = services.resume(conversation=conversation)
    assert resumed.status == Status.ACTIVE and resumed.closed_at is None


def test_closing_an_empty_conversation_archives_it_and_remembers_nothing(alice, capture):
    conversation, _ = services.start(owner=alice)
    services.request_close(conversation=conversation)
    with capture(execute=True) as queued:
        closed = services.confirm_close(conversation=conversation)
    assert closed.status == Status.ARCHIVED and closed.archived_at is not None
    assert queued == [] and not Memory.objects.exists()
    assert services.open_conversation(alice) is None


# --- compression and review, offline -----------------------------------------------------------


def test_offline_compression_runs_all_four_stages_and_waits_for_review(alice, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)

    assert conversation.status == Status.COMPRESSING and conversation.review_ready
    report = conversation.compression_report
    assert [report[s]["engine"] for s in ("entities", "narrative", "deltas")] == ["offline"] * 3
    assert report["embeddings"]["engine"] == "sentence-transformers"
    memory = review.draft_of(conversation)
    assert memory.status == Memory.Status.DRAFT and memory.extraction_engine == "offline"
    assert "decided to paint the hallway green" in memory.content
    kinds = {item.type for item in memory.items.all()}
    assert {"decision", "waiting_on", "task", "question_opened", "person"} <= kinds
    assert memory.indexed_hash == memory.content_hash  # stage 4 embedded it
    assert {d.type for d in memory.deltas.all()} >= {"new_waiting_on", "new_thread"}
    # A draft is invisible to search until the member confirms it.
    assert services_query(alice, "hallway green") == []


def services_query(owner, text):
    return [memory.pk for memory, _ in memory_query(owner=owner, query=text).hits]


def test_confirm_keeps_the_memory_applies_deltas_and_archives(alice, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    memory = review.draft_of(conversation)

    kept = review.confirm(conversation=conversation, narrative="Hallway green, tiles next.")

    memory.refresh_from_db()
    conversation.refresh_from_db()
    assert kept == [memory] and memory.status == Memory.Status.CONFIRMED
    assert memory.user_reviewed and memory.user_edited
    assert memory.original_content.startswith("Alice decided")
    assert conversation.status == Status.ARCHIVED and conversation.archived_at
    assert all(d.applied for d in memory.deltas.all())
    facts = list(memory.facts.all())
    assert facts and all(f.status == Memory.Status.CONFIRMED and f.act == memory.act for f in facts)
    # Found by search: the memory and the fact that says it in a sentence of its own.
    assert set(services_query(alice, "hallway green")) == {memory.pk} | {
        f.pk for f in facts if "hallway" in f.content
    }


def test_redirect_to_another_act(alice, capture):
    garden = Act.objects.create(owner=alice, title="Garden")
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    [memory] = review.confirm(conversation=conversation, destination=garden)
    assert memory.act == garden


def test_split_makes_one_memory_per_act_each_linked_to_the_conversation(alice, capture):
    house = Act.objects.create(owner=alice, title="House", description="renovation")
    work = Act.objects.create(owner=alice, title="Work")
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    draft = review.draft_of(conversation)
    waiting = draft.items.get(type="waiting_on")
    others = list(draft.items.exclude(pk=waiting.pk).values_list("pk", flat=True))

    kept = review.split(
        conversation=conversation,
        parts=[
            review.Part(act=house, text="The hallway goes green.", item_ids=others),
            review.Part(act=work, text="", item_ids=[waiting.pk]),
        ],
    )

    assert [m.act for m in kept] == [house, work]
    assert all(m.conversation_id == conversation.pk and m.status == "confirmed" for m in kept)
    assert kept[1].content.startswith("Waiting on: Alex")  # written from its items
    assert list(kept[1].items.values_list("pk", flat=True)) == [waiting.pk]
    conversation.refresh_from_db()
    assert conversation.status == Status.ARCHIVED


def test_a_split_keeps_each_parts_own_original_wording(alice, capture):
    house = Act.objects.create(owner=alice, title="House")
    work = Act.objects.create(owner=alice, title="Work")
    garden = Act.objects.create(owner=alice, title="Garden")
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    draft = review.draft_of(conversation)
    extracted = draft.content
    waiting = draft.items.get(type="waiting_on")

    kept = review.split(
        conversation=conversation,
        parts=[
            review.Part(act=house, text=extracted, item_ids=[]),  # kept as extracted
            review.Part(act=work, text="Alex owes us the contract.", item_ids=[]),
            review.Part(act=garden, text="", item_ids=[waiting.pk]),  # from its items
        ],
    )

    provenance = [(m.act, m.content, m.user_edited, m.original_content) for m in kept]
    assert provenance == [
        (house, extracted, False, ""),
        (work, "Alex owes us the contract.", True, extracted),
        (garden, review.text_for_items([waiting.pk]), False, ""),
    ]


def test_a_split_after_an_edit_keeps_the_engines_words_as_the_original(alice, capture):
    house = Act.objects.create(owner=alice, title="House")
    work = Act.objects.create(owner=alice, title="Work")
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    extracted = review.draft_of(conversation).content
    review.save_edits(conversation=conversation, narrative="Hallway green, Alex pending.")

    kept = review.split(
        conversation=conversation,
        parts=[
            review.Part(act=house, text="Hallway green, Alex pending.", item_ids=[]),
            review.Part(act=work, text="Alex pending.", item_ids=[]),
        ],
    )

    assert [(m.user_edited, m.original_content) for m in kept] == [
        (True, extracted),
        (True, extracted),
    ]


def test_split_needs_two_different_destinations(alice, capture):
    house = Act.objects.create(owner=alice, title="House")
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    with pytest.raises(TransitionError, match="at least two"):
        review.split(conversation=conversation, parts=[review.Part(house, "only one", [])])
    with pytest.raises(TransitionError, match="different act"):
        review.split(
            conversation=conversation,
            parts=[review.Part(house, "a", []), review.Part(house, "b", [])],
        )


def test_resume_from_review_drops_the_draft_and_keeps_the_transcript(alice, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    resumed = services.resume(conversation=conversation)
    assert resumed.status == Status.ACTIVE
    assert not Memory.objects.exists() and not MemoryItem.objects.exists()
    assert resumed.messages.count() == len(RENOVATION)
    services.add_message(owner=alice, content="Actually, one more thing.")


def test_items_can_be_edited_removed_and_added(alice, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    memory = review.draft_of(conversation)
    task = memory.items.get(type="task")
    review.update_item(item=task, main="Order the blue tiles", detail="decided")
    assert task.data["description"] == "Order the blue tiles"
    added = review.add_item(memory=memory, type="insight", main="Green hides scuffs")
    assert added.data == {"insight": "Green hides scuffs"}
    with pytest.raises(TransitionError):
        review.add_item(memory=memory, type="gossip", main="x")


# --- thread resolution across conversations ----------------------------------------------------


def test_a_later_conversation_resolves_a_waiting_on(alice, capture):
    first = close_and_compress(talk(alice, *RENOVATION), capture)
    review.confirm(conversation=first)
    waiting = MemoryItem.objects.get(type="waiting_on", memory__status="confirmed")
    assert waiting.is_active

    second = close_and_compress(
        talk(alice, "Alex sent the contract for the kitchen this morning, finally."), capture
    )
    draft = review.draft_of(second)
    delta = draft.deltas.get(type=StateDelta.Type.RESOLVED_WAITING_ON)
    assert delta.item == waiting and delta.data["item"] == "Alex — the contract"
    assert "finally" in delta.data["evidence"]

    review.confirm(conversation=second)
    waiting.refresh_from_db()
    assert not waiting.is_active and waiting.resolved_by == draft and waiting.resolved_at


def test_a_waiting_on_is_not_dated_by_the_day_it_was_said(alice, capture):
    """Its "since" is when it was said, not a day its words name: only a due day said in the
    words dates it ("coming up")."""
    conversation = close_and_compress(
        talk(alice, "still waiting on the council to send the parking permit"), capture
    )

    waiting = review.draft_of(conversation).items.get(type="waiting_on")
    assert waiting.data.get("since") and "on" not in waiting.data and "due" not in waiting.data


def test_a_decision_in_the_words_of_a_replaced_fact_is_replaced_with_it(alice, capture):
    first = close_and_compress(
        talk(alice, "swimming is at 10am on saturdays, i take them"), capture
    )
    review.confirm(conversation=first)
    kept = Memory.objects.get(conversation=first, kind="memory")
    decision = MemoryItem.objects.create(
        memory=kept, type="decision", data={"what": "swimming is at 10am on saturdays"}
    )
    other = MemoryItem.objects.create(
        memory=kept, type="decision", data={"what": "the car gets serviced in may"}
    )

    second = close_and_compress(talk(alice, "swimming moved to 11am now, not 10am"), capture)
    review.confirm(conversation=second)

    decision.refresh_from_db()
    other.refresh_from_db()
    assert Memory.objects.filter(conversation=first, kind="fact", valid_to__isnull=False).exists()
    assert decision.valid_to is not None  # replaced with the fact in its words
    assert other.valid_to is None  # another decision of that conversation stands


def test_a_declined_resolution_leaves_the_thread_open(alice, capture):
    first = close_and_compress(talk(alice, *RENOVATION), capture)
    review.confirm(conversation=first)
    second = close_and_compress(talk(alice, "Alex sent the contract for the kitchen."), capture)
    delta = review.draft_of(second).deltas.get(type=StateDelta.Type.RESOLVED_WAITING_ON)

    review.confirm(conversation=second, declined=[delta.pk])

    delta.refresh_from_db()
    assert not delta.accepted and not delta.applied
    assert MemoryItem.objects.get(pk=delta.item_id).is_active


def test_an_answered_question_is_proposed_by_similarity(alice, capture):
    first = close_and_compress(
        talk(alice, "Still not sure if we should replace the boiler before winter."), capture
    )
    review.confirm(conversation=first)
    question = MemoryItem.objects.get(type="question_opened")
    second = close_and_compress(
        talk(alice, "We decided to replace the boiler before winter, the old one is failing."),
        capture,
    )
    delta = review.draft_of(second).deltas.get(type=StateDelta.Type.RESOLVED_THREAD)
    assert delta.item == question


def test_a_conversation_with_nothing_to_keep_is_summed_up_by_its_topic(alice, capture):
    conversation = close_and_compress(talk(alice, "Hi! Tell me about the history of tea."), capture)
    narrative = review.draft_of(conversation).content
    assert "talked about “Tell me about the history of tea”" in narrative
    assert "Nothing was decided or left open." in narrative
    assert not review.draft_of(conversation).items.exclude(type="person").exists()


def test_unrelated_conversations_resolve_nothing(alice, capture):
    first = close_and_compress(talk(alice, *RENOVATION), capture)
    review.confirm(conversation=first)
    second = close_and_compress(talk(alice, "We decided to visit Granny on Sunday."), capture)
    draft = review.draft_of(second)
    assert not draft.deltas.filter(type__startswith="resolved").exists()


# --- compression with a scripted Ollama ---------------------------------------------------------

ENTITIES = {
    "people": [{"name": "Alex", "context": "sends the contract", "relation": "builder"}],
    "decisions": [{"what": "paint the hallway green", "why": "hides scuffs"}],
    "waiting_on": [{"who": "Alex", "what": "the kitchen contract", "since": "2026-11-23"}],
}
NARRATIVE = {"narrative": "Alice chose green for the hallway. The kitchen waits on Alex."}
FACTS = {
    "facts": [
        {
            "text": "Alice chose green paint for the hallway.",
            "subject": "hallway",
            "relation": "choice",
        },
        {
            "text": "Alice is waiting on Alex for the kitchen contract.",
            "subject": "contract",
            "relation": "state",
        },
    ]
}


def test_with_ollama_every_stage_is_the_models_and_says_so(alice, capture, ollama):
    house = Act.objects.create(owner=alice, title="House")
    ollama.answer(
        ENTITIES,
        {"tasks": [{"description": "order tiles", "status": "decided", "priority": "next"}]},
        FACTS,
        {"suggested_destination": "House", "confidence": 0.8, "reasoning": "renovation talk"},
        NARRATIVE,
    )
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)

    report = conversation.compression_report
    assert report["entities"] == {
        "engine": "ollama",
        "model": "llama3.2:3b",
        "attempts": 2,
        "passes": 2,
    }
    assert report["narrative"]["engine"] == "ollama"
    assert report["route"]["engine"] == "ollama" and report["route"]["act_id"] == house.pk
    # Nothing was open yet, so the model was not asked about resolutions; the report says why.
    assert report["deltas"] == {
        "engine": "offline",
        "fallback_reason": "Nothing earlier to check against.",
    }
    assert report["facts"]["engine"] == "ollama"
    memory = review.draft_of(conversation)
    assert memory.content == NARRATIVE["narrative"] and memory.act == house
    assert memory.extraction_engine == "ollama:llama3.2:3b"
    facts = review.facts_of(memory)
    assert [f.content for f in facts] == [row["text"] for row in FACTS["facts"]]
    assert {(f.subject, f.relation, f.act, f.extraction_engine) for f in facts} >= {
        ("hallway", "choice", house, "ollama:llama3.2:3b")
    }
    # Both passes merged: the second pass's task joined the first pass's items.
    assert {i.type for i in memory.items.all()} == {"person", "decision", "waiting_on", "task"}
    first_prompt = ollama.chats[0]
    assert first_prompt["format"] == prompts.ENTITY_SCHEMA
    assert "hallway green" in first_prompt["messages"][1]["content"]


def test_with_only_your_story_the_route_is_not_asked_and_says_why(alice, capture, ollama):
    ollama.answer(ENTITIES, ENTITIES, FACTS, NARRATIVE)
    report = close_and_compress(talk(alice, *RENOVATION), capture).compression_report
    assert report["narrative"]["engine"] == "ollama"
    assert report["route"]["engine"] == "offline"
    assert report["route"]["fallback_reason"] == "There is no act besides Your Story."
    assert len(ollama.chats) == 4  # two extraction passes, the facts, the narrative: no more


@pytest.mark.parametrize("failure", [Timeout(), HTTP(500, "boom"), HTTP(404, "model not found")])
def test_an_outage_falls_back_to_the_offline_engine_and_says_why(alice, capture, ollama, failure):
    ollama.answer(failure, failure, failure, failure, failure, failure)
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    report = conversation.compression_report
    assert conversation.review_ready
    assert report["entities"]["engine"] == "offline"
    assert report["entities"]["fallback_reason"].startswith(
        ("Ollama did not answer", "Ollama answered")
    )
    assert review.draft_of(conversation).extraction_engine == "offline"


def test_the_people_found_are_mentions_and_follow_the_review(alice, capture, ollama):
    marta = {"name": "Marta Silva", "context": "quotes the kitchen", "relation": "builder"}
    ollama.answer({"people": [marta]}, {"people": []}, FACTS, NARRATIVE)
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    draft = review.draft_of(conversation)
    assert "Marta" not in draft.content  # the narrative does not name her, the items do
    people = Mention.objects.filter(memory=draft, entity__kind="person")
    assert "marta silva" in {m.entity.normalized for m in people}

    review.add_item(memory=draft, type="person", main="Bruno Costa")
    review.confirm(conversation=conversation)
    names = set(Mention.objects.filter(memory=draft).values_list("entity__normalized", flat=True))
    assert {"marta silva", "bruno costa"} <= names


def test_garbage_twice_falls_back_garbage_once_is_retried(alice, capture, ollama):
    ollama.answer("{not json", '{"people": "everyone"}', FACTS, "{broken", NARRATIVE)
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    report = conversation.compression_report
    assert report["entities"]["engine"] == "offline"
    assert "did not fit the schema twice" in report["entities"]["fallback_reason"]
    assert report["narrative"] == {"engine": "ollama", "model": "llama3.2:3b", "attempts": 2}


# --- faults ---------------------------------------------------------------------------------


def test_a_worker_killed_mid_compression_is_swept_and_finishes(alice, capture):
    conversation = talk(alice, *RENOVATION)
    services.request_close(conversation=conversation)
    with capture(execute=False):  # the task is queued but its worker dies before running it
        services.confirm_close(conversation=conversation)
    Conversation.objects.filter(pk=conversation.pk).update(compression_stage=Stage.ENTITIES)
    conversation.refresh_from_db()
    assert services.sweep_stalled() == []  # not stalled yet
    later = timezone.now() + timedelta(minutes=16)
    assert services.is_stalled(conversation, now=later)
    with capture(execute=True):
        assert services.sweep_stalled(now=later) == [conversation.pk]
    conversation.refresh_from_db()
    assert conversation.review_ready and conversation.compression_attempts == 1
    assert review.draft_of(conversation) is not None


def test_a_crash_in_a_stage_fails_visibly_and_retry_succeeds(alice, capture, monkeypatch):
    conversation = talk(alice, *RENOVATION)
    broken = monkeypatch.setattr
    broken(compression.offline, "narrative", lambda *a, **k: 1 / 0)
    conversation = close_and_compress(conversation, capture)
    assert conversation.compression_stage == Stage.FAILED
    assert "ZeroDivisionError" in conversation.compression_error
    assert services.is_stalled(conversation)
    assert conversation.messages.count() == len(RENOVATION)  # nothing lost
    monkeypatch.undo()
    with capture(execute=True):
        services.retry_compression(conversation=conversation)
    conversation.refresh_from_db()
    assert conversation.review_ready and conversation.compression_attempts == 2


def test_running_the_task_twice_keeps_one_draft(alice, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    assert compression.compress(conversation.pk) == "nothing to do"
    Conversation.objects.filter(pk=conversation.pk).update(compression_stage=Stage.QUEUED)
    facts = Memory.objects.filter(conversation=conversation, kind=Memory.Kind.FACT).count()
    compression.compress(conversation.pk)
    drafts = Memory.objects.filter(conversation=conversation)
    assert drafts.filter(kind=Memory.Kind.MEMORY).count() == 1
    assert facts and drafts.filter(kind=Memory.Kind.FACT).count() == facts  # replaced, not doubled


# --- chat -------------------------------------------------------------------------------------

READ_AS_A_QUESTION = {
    "destination_type": "stream",
    "consumer_type": "human",
    "execution_semantics": "read",
    "confidence": 0.8,
    "reasoning": "a question about the house",
    "memory_used": [],
    "needs_clarification": False,
    "clarification_question": "",
}


def test_the_offline_reply_answers_with_the_sentence_and_leaves_a_trail(alice, remember, index):
    dentist = remember("Maya's dentist appointment is on Tuesday at 3pm")
    remember("The car insurance renews in March")
    index(alice)
    conversation, message = services.add_message(owner=alice, content="When is Maya's dentist?")

    reply = chat.respond(conversation=conversation, message=message)

    assert reply.role == "assistant" and reply.engine == "offline" and reply.position == 1
    # The day it names first, then the words as kept and when they were kept.
    assert reply.content.startswith("Tuesday ") and " at 3pm — " in reply.content
    assert "“Maya's dentist appointment is on Tuesday at 3pm” (kept on " in reply.content
    assert "insurance" not in reply.content
    assert [used["id"] for used in reply.memories_used] == [dentist.pk]
    assert "covers" in reply.explanation and "kind of thing asked for" in reply.explanation
    trail = Recall.objects.get(pk=reply.memories_used[0]["recall"])
    assert trail == reply.recall and trail.purpose == "chat" and trail.conversation == conversation
    assert trail.hits.filter(memory=dentist).exists()


def test_asked_again_the_offline_reply_quotes_the_members_words_not_itself(alice, index):
    """The offline engine's reply gives back what the member said; it is not kept as evidence,
    so a question asked three times is answered from the member's sentence each time, never
    from the earlier replies quoting it inside one another."""
    services.add_message(owner=alice, content="dentist on the 8th at 10:30 for me")
    index(alice)
    replies = []
    for _ in range(3):
        conversation, message = services.add_message(owner=alice, content="when is the dentist?")
        replies.append(chat.respond(conversation=conversation, message=message))
        index(alice)

    for reply in replies:
        assert reply.content.count("“") == 1 and "(you said on " in reply.content
        assert "(I said on " not in reply.content
    assert len({reply.content for reply in replies}) == 1
    assert not Memory.everything.filter(message__in=replies).exists()
    assert Memory.everything.filter(kind=Memory.Kind.SAID, conversation=conversation).count() == 4


def test_a_question_is_looked_for_without_the_aside_after_it(alice, remember, index):
    """ "Rhys wants to look it up" is why the member asks, not what: recall looks for the
    question, and the name in the aside is not given as the boat's."""
    boat = remember("Our narrowboat for the week is called the Kingfisher Lass")
    remember("Rhys is coming up with Jade and the baby for the bank holiday")
    index(alice)
    conversation, message = services.add_message(
        owner=alice, content="What's our boat called again? Rhys wants to look it up."
    )

    reply = chat.respond(conversation=conversation, message=message)

    assert reply.recall.query == "What's our boat called again?"
    assert "Kingfisher Lass" in reply.content and "Jade" not in reply.content
    assert [used["id"] for used in reply.memories_used] == [boat.pk]


def test_the_offline_reply_says_plainly_when_it_has_no_memory_of_it(alice, remember, index):
    remember("The car insurance renews in March")
    index(alice)
    conversation, message = services.add_message(
        owner=alice, content="when is Hannah's wedding again?"
    )
    reply = chat.respond(conversation=conversation, message=message)
    assert reply.content == "I don't have a memory of that." and reply.memories_used == []
    assert reply.explanation.startswith("Read as stream × human × read")
    assert reply.explanation.endswith("Nothing you said or kept mentions Hannah.")


def test_a_statement_is_acknowledged_not_answered_with_memories(alice, remember, index):
    remember("The car insurance renews in March")
    index(alice)
    conversation, message = services.add_message(
        owner=alice, content="The car insurance went up to 655 this year. Annoying."
    )
    reply = chat.respond(conversation=conversation, message=message)
    assert reply.content.startswith("Noted: “The car insurance went up to 655 this year.”")
    assert reply.memories_used == [] and "renews in March" not in reply.content
    hello, greeting = services.add_message(owner=alice, content="Hello!")
    assert chat.respond(conversation=hello, message=greeting).content.startswith("I'm listening")


def test_a_second_reply_to_the_same_message_is_the_first(alice):
    conversation, message = services.add_message(owner=alice, content="Hello!")
    first = chat.respond(conversation=conversation, message=message)
    assert chat.respond(conversation=conversation, message=message) == first
    assert tasks.reply(message.pk) == first.pk
    assert conversation.messages.count() == 2


def test_the_model_may_search_then_answer(alice, remember, index, ollama):
    boiler = remember("The boiler was serviced by Jon in October")
    index(alice)
    ollama.answer(
        ToolCalls(
            [("memory_query", {"query": "boiler service"}), ("memory_reinforce", {"id": boiler.pk})]
        ),
        f"Jon serviced it in October [id:{boiler.pk}].",
    )
    ollama.script.insert(0, READ_AS_A_QUESTION)  # the turn's classification comes first
    conversation, message = services.add_message(owner=alice, content="Who did the heating?")

    reply = chat.respond(conversation=conversation, message=message)

    assert reply.content == f"Jon serviced it in October [id:{boiler.pk}]."
    assert reply.engine == "ollama:llama3.2:3b"
    assert boiler.pk in [used["id"] for used in reply.memories_used]
    boiler.refresh_from_db()
    assert boiler.score == 3  # the model reinforced it through the registry
    assert Recall.objects.filter(purpose="chat:memory_query", query="boiler service").exists()
    assert "format" in ollama.chats[0]  # the classification, a structured answer
    assert Classification.objects.get(message=message).engine == "ollama:llama3.2:3b"
    tool_turn = ollama.chats[2]["messages"][-2:]
    assert [m["role"] for m in tool_turn] == ["tool", "tool"]


def test_a_models_reply_stays_findable_below_the_members_words(alice, ollama):
    ollama.answer(READ_AS_A_QUESTION, "Try the hardware shop on Mill Lane for the washers.")
    conversation, message = services.add_message(owner=alice, content="where do I get washers?")

    reply = chat.respond(conversation=conversation, message=message)

    assert reply.engine == "ollama:llama3.2:3b"
    assert Memory.everything.get(message=reply).kind == Memory.Kind.REPLY


def test_tool_rounds_are_bounded(alice, ollama):
    ollama.answer(
        READ_AS_A_QUESTION, *[ToolCalls([("memory_query", {"query": "x"})])] * 3, "Done looking."
    )
    conversation, message = services.add_message(owner=alice, content="Find it")
    reply = chat.respond(conversation=conversation, message=message)
    assert reply.content == "Done looking."
    assert "tools" not in ollama.chats[-1] or not ollama.chats[-1]["tools"]


def test_a_model_outage_mid_chat_answers_offline(alice, ollama):
    ollama.answer(Timeout(), Timeout())  # the classification, then the reply
    conversation, message = services.add_message(owner=alice, content="Hello")
    reply = chat.respond(conversation=conversation, message=message)
    assert reply.engine == "offline" and "did not answer" in reply.content
    assert Classification.objects.get(message=message).engine == "offline"
    assert "The model did not answer (Ollama did not answer within" in reply.explanation


def test_a_slow_model_gets_what_is_left_of_the_reply_budget_then_the_offline_engine_answers(
    alice, ollama, settings, monkeypatch
):
    """Each model call may wait only for what is left of ``reply_timeout``; once it is spent,
    the offline engine answers, whatever rounds the model still wanted."""
    settings.TALKINGROCK_CONVERSATIONS = {
        **settings.TALKINGROCK_CONVERSATIONS, "reply_timeout": 3, "tool_rounds": 5
    }  # fmt: skip
    clock = [100.0]
    monkeypatch.setattr(chat.time, "monotonic", lambda: clock[0])
    ask = llm.chat

    def two_seconds_each(*args, **kwargs):
        try:
            return ask(*args, **kwargs)
        finally:
            clock[0] += 2

    monkeypatch.setattr(llm, "chat", two_seconds_each)
    ollama.answer(
        READ_AS_A_QUESTION, *[ToolCalls([("memory_query", {"query": "x"})])] * 5, "Too late."
    )
    conversation, message = services.add_message(owner=alice, content="Find the thing")

    reply = chat.respond(conversation=conversation, message=message)

    # the classification may take a third of the budget; the reply what is left of it
    assert [chat_["_read_timeout"] for chat_ in ollama.chats] == [1, 3, 1]
    assert reply.engine == "offline" and "Too late" not in reply.content
    assert "did not answer" in reply.content and "within 3 s" in reply.explanation


# --- nudge and greeting -----------------------------------------------------------------------


def test_one_gentle_nudge_after_a_silence_never_while_paused(alice, settings):
    conversation = talk(alice, "Thinking about the garden")
    later = timezone.now() + timedelta(minutes=121)
    assert not services.nudge_due(conversation)
    assert services.nudge_due(conversation, now=later)
    Conversation.objects.filter(pk=conversation.pk).update(
        last_message_at=timezone.now() - timedelta(hours=3)
    )
    services.set_paused(conversation=conversation, paused=True)
    assert services.nudge(conversation=conversation) is None
    services.set_paused(conversation=conversation, paused=False)
    nudge = services.nudge(conversation=conversation)
    assert nudge.role == "system" and nudge.content.startswith("We've been quiet")
    assert services.nudge(conversation=conversation) is None  # once per silence


def test_the_greeting_shows_threads_waiting_ons_decisions_and_stale_tasks(alice, bob, capture):
    conversation = close_and_compress(talk(alice, *RENOVATION), capture)
    review.confirm(conversation=conversation)
    MemoryItem.objects.filter(type="task").update(created_at=timezone.now() - timedelta(days=6))

    shown = greeting(alice)

    assert [i.main for i in shown.open_threads] == ["Replace the boiler before winter?"]
    assert [i.main for i in shown.waiting_ons] == ["Alex"]
    assert [i.main for i in shown.recent_decisions] == ["paint the hallway green"]
    assert [i.main for i in shown.stale_tasks] == ["order the tiles for the bathroom"]
    assert greeting(bob).empty
    fresh = greeting(alice, now=timezone.now() + timedelta(days=8))
    assert fresh.recent_decisions == []


def test_acts_are_created_renamed_archived_but_never_your_story(alice):
    act = acts.create_act(owner=alice, title=" Garden ", description="beds")
    assert act.title == "Garden"
    acts.rename_act(act=act, title="Allotment")
    acts.set_act_archived(act=act, archived=True)
    assert Act.objects.get(pk=act.pk).status == "archived"
    story = acts.ensure_your_story(owner=alice)
    for step in (
        lambda: acts.rename_act(act=story, title="Mine"),
        lambda: acts.set_act_archived(act=story, archived=True),
        lambda: acts.create_act(owner=alice, title="your story"),
        lambda: acts.create_act(owner=alice, title="  "),
        lambda: acts.create_act(owner=alice, title="allotment "),  # the name of one already
        lambda: acts.rename_act(act=acts.create_act(owner=alice, title="Shed"), title="ALLOTMENT"),
    ):
        with pytest.raises(acts.ActError):
            step()


def test_a_compression_whose_process_died_is_lost_at_once_and_swept(alice, capture, client):
    conversation = talk(alice, *RENOVATION)
    services.request_close(conversation=conversation)
    with capture(execute=False):  # a worker takes the task, then is killed mid-stage
        services.confirm_close(conversation=conversation)
    Conversation.objects.filter(pk=conversation.pk).update(
        compression_stage=Stage.DELTAS, compression_worker=ended_process()
    )
    conversation.refresh_from_db()

    assert services.is_lost(conversation) and services.is_stalled(conversation)  # no 15 minutes
    client.force_login(alice)
    page = client.get(reverse("conversations:progress", args=[conversation.pk])).content.decode()
    assert "stopped before it finished" in page and "Retry" in page
    with capture(execute=True):
        assert services.sweep_stalled() == [conversation.pk]
    conversation.refresh_from_db()
    assert conversation.review_ready and conversation.compression_attempts == 1


def test_a_compression_whose_process_runs_is_neither_lost_nor_taken_twice(alice, capture):
    conversation = talk(alice, *RENOVATION)
    services.request_close(conversation=conversation)
    with capture(execute=False):
        services.confirm_close(conversation=conversation)
    alive = running_process()
    Conversation.objects.filter(pk=conversation.pk).update(
        compression_stage=Stage.ENTITIES, compression_worker=alive
    )
    conversation.refresh_from_db()

    assert not services.is_lost(conversation) and not services.is_stalled(conversation)
    assert services.sweep_stalled() == []
    assert compression.compress(conversation.pk) == "already running"  # a duplicate delivery
    conversation.refresh_from_db()
    assert conversation.compression_stage == Stage.ENTITIES
