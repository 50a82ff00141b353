"""Memories as reasoning context (issue 13, seed 003 phases 4 and 5), offline and with the scripted
Ollama: a vague request resolved by an open thread, a question when two threads fit, the steps
and the check informed by memory, every influence on the trail, corrections learnt at once."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conversations import chat, reasoning, services
from conversations.models import Classification, Message
from memories.models import Memory, MemoryItem, RecallHit
from talkingrock.tools import call_tool


@pytest.fixture
def thread(alice, remember, index):
    """An open task, as a closed conversation leaves one, among unrelated memories."""

    def make(text: str, *, kind: str = MemoryItem.Type.TASK, **data) -> Memory:
        memory = remember(text, source=Memory.Source.CONVERSATION)
        field = MemoryItem.FIELDS[kind][0]
        MemoryItem.objects.create(memory=memory, type=kind, data={field: text, **data})
        return memory

    return make


@pytest.fixture
def calendar(alice, remember, index, thread):
    bug = thread("Fix the recurring events bug in the kitchen calendar.")
    remember("Sam's school shoes are too small.")
    remember("The boiler service is booked for October.")
    index(alice)
    return bug


def influences(classification: Classification, stage: str = "classify") -> dict[int, str]:
    recall_id = (
        classification.recall_id if stage == "classify" else classification.trails.get(stage)
    )
    rows = RecallHit.objects.filter(recall_id=recall_id).exclude(influence_type="")
    return dict(rows.values_list("memory_id", "influence_type"))


def test_a_vague_request_is_resolved_by_the_open_thread_it_means(alice, calendar):
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)

    assert (reading.destination, reading.consumer, reading.semantics) == (
        "process",
        "human",
        "execute",
    )
    assert not reading.needs_clarification and reading.confidence >= 0.7
    assert f"[id:{calendar.pk}]" in reading.reasoning
    assert influences(reading)[calendar.pk] == "disambiguation"
    assert reading.engine == "offline" and reading.recall.purpose == "classify"


def test_two_threads_that_fit_make_it_ask_which(alice, calendar, thread, index):
    thread("Fix the school calendar sync for the autumn term.")
    index(alice)

    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)

    assert reading.needs_clarification and reading.confidence < 0.5
    assert reading.clarification.startswith("Which do you mean by “the calendar thing”")
    assert (
        "kitchen calendar" in reading.clarification and "school calendar" in reading.clarification
    )


def test_nothing_remembered_makes_it_ask_what_is_meant(alice, remember, index):
    remember("The boiler service is booked for October.")
    index(alice)

    reading = reasoning.classify_with_memory(alice, "sort out the garage thing", use_model=False)

    assert reading.needs_clarification
    assert reading.clarification == "What do you mean by “out the garage thing”?" or (
        reading.clarification == "What do you mean by “the garage thing”?"
    )


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("when is the boiler service?", ("stream", "human", "read")),
        ("why did we pick October for the boiler?", ("stream", "human", "interpret")),
        ("please book the boiler service for next week", ("process", "human", "execute")),
        ("note that the boiler man is called Jon", ("file", "human", "execute")),
        ("export my boiler records as csv", ("file", "machine", "execute")),
        ("The boiler service went fine.", ("file", "human", "interpret")),
    ],
)
def test_the_wording_decides_destination_consumer_and_semantics(alice, request_text, expected):
    reading = reasoning.classify_with_memory(alice, request_text, use_model=False)
    assert (reading.destination, reading.consumer, reading.semantics) == expected


def test_decomposition_puts_what_is_awaited_first_and_keeps_to_decisions(
    alice, remember, index, thread
):
    thread("Alex for the contract", kind=MemoryItem.Type.WAITING_ON, what="the kitchen contract")
    decided = thread("Quartz for the kitchen worktops", kind=MemoryItem.Type.DECISION)
    index(alice)
    reading = reasoning.classify_with_memory(
        alice, "order the kitchen worktops and then book the fitter", use_model=False
    )

    steps = reasoning.decompose_with_memory(reading, use_model=False)

    actions = [step["action"] for step in steps]
    assert actions[0].startswith("Check on the open thread first: Alex for the contract")
    assert "Order the kitchen worktops" in actions and "Book the fitter" in actions
    assert any("Quartz for the kitchen worktops" in action for action in actions)
    assert influences(reading, "decompose")[decided.pk] == "pattern_match"
    assert Classification.objects.get(pk=reading.pk).steps == steps


def test_verification_names_supporting_and_conflicting_memories(alice, remember, index):
    remember("We will not book the boiler service in winter, it is too busy then.")
    likes = remember("Booking the boiler service in October worked well last year.")
    index(alice)
    reading = reasoning.classify_with_memory(
        alice, "book the boiler service for December", use_model=False
    )

    check = reasoning.verify_intent_with_memory(reading, use_model=False)

    assert check["conflicting_memories"] and likes.pk in check["supporting_memories"]
    assert check["confidence"] < 0.7 and check["alternative_interpretation"].startswith(
        "Perhaps not: you said “We will not book"
    )
    assert set(influences(reading, "verify").values()) == {"intent_verification"}


def test_explain_classification_lists_every_stage_and_memory(alice, calendar):
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)
    reasoning.decompose_with_memory(reading, use_model=False)
    reasoning.verify_intent_with_memory(reading, use_model=False)

    explained = reasoning.explain_classification(alice, reading.pk)

    assert explained["classification"] == "process × human × execute"
    stages = {(row["stage"], row["influence_type"]) for row in explained["memories"]}
    assert ("classify", "disambiguation") in stages
    assert {stage for stage, _ in stages} <= {"classify", "decompose", "verify"}
    assert all(row["reason"] for row in explained["memories"])


def test_a_correction_is_learnt_at_once_and_changes_the_next_reading(
    alice, calendar, thread, index
):
    school = thread("Fix the school calendar sync for the autumn term.")
    index(alice)
    asked = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)
    assert asked.needs_clarification

    learnt = reasoning.store_immediate_correction(
        alice, asked, meant="the kitchen calendar", not_meant="the school one"
    )

    correction = Memory.objects.get(pk=learnt["correction_id"])
    assert correction.source == "correction" and correction.content == (
        "By “the calendar thing”, alice means the kitchen calendar, not the school one."
    )
    assert Classification.objects.get(pk=asked.pk).corrected_by == correction
    assert learnt["reinforced"] == calendar.pk
    index(alice)
    again = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)
    assert not again.needs_clarification
    assert f"[id:{calendar.pk}]" in again.reasoning and f"[id:{school.pk}]" not in again.reasoning
    assert influences(again)[correction.pk] == "disambiguation"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("no, I meant the kitchen calendar, not the school one", ("the kitchen calendar", "the school one")),
        ("not the school one, the kitchen one", ("the kitchen one", "the school one")),
        ("No I mean the garage door", ("the garage door", "")),
        ("no worries, thanks", None),
        ("I meant to ask about the boiler", ("to ask about the boiler", "")),
        ("the kitchen one", None),
    ],
)  # fmt: skip
def test_a_correction_is_told_from_other_messages(text, parsed):
    assert reasoning.parse_correction(text) == parsed


def test_an_outcome_is_noted_in_the_conversation_and_moves_the_scores(alice, calendar):
    services.add_message(owner=alice, content="fix the calendar thing")
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)

    result = reasoning.learn_from_outcome(alice, reading, outcome="approved", note="spot on")

    note = Message.objects.get(pk=result["message_id"])
    assert note.role == "system" and note.content.startswith("Outcome: reading “fix the calendar")
    assert note.content.endswith("was approved: spot on")
    calendar.refresh_from_db()
    assert calendar.score == 3
    with pytest.raises(ValueError, match="approved, rejected"):
        reasoning.learn_from_outcome(alice, reading, outcome="maybe")


# --- with the scripted Ollama -------------------------------------------------------------------


def test_the_model_classifies_with_the_memories_in_its_prompt_and_names_what_it_used(
    alice, calendar, ollama
):
    ollama.answer(
        {
            "destination_type": "process",
            "consumer_type": "human",
            "execution_semantics": "execute",
            "confidence": 0.9,
            "reasoning": "the open task about the kitchen calendar",
            "memory_used": [
                {
                    "id": calendar.pk,
                    "influence_type": "disambiguation",
                    "score": 0.9,
                    "reason": "the open calendar task",
                },
                {
                    "id": 999_999,
                    "influence_type": "pattern_match",
                    "score": 0.5,
                    "reason": "a memory it was never shown",
                },
            ],
            "needs_clarification": False,
            "clarification_question": "",
        },
    )

    reading = reasoning.classify_with_memory(alice, "fix the calendar thing")

    request = ollama.chats[0]
    assert request["format"]["properties"]["execution_semantics"]["enum"] == [
        "read",
        "interpret",
        "execute",
    ]
    prompt = request["messages"][1]["content"]
    assert "fix the calendar thing" in prompt and "kitchen calendar" in prompt
    assert reading.engine == "ollama:llama3.2:3b" and reading.confidence == 0.9
    assert influences(reading) == {calendar.pk: "disambiguation"}  # the unseen id is dropped


def test_a_model_that_answers_nonsense_twice_leaves_it_to_the_offline_rules(
    alice, calendar, ollama
):
    ollama.answer("not json at all", '{"destination_type": "somewhere"}')
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing")
    assert reading.engine == "offline" and len(ollama.chats) == 2
    assert influences(reading)[calendar.pk] == "disambiguation"


def test_the_model_decomposes_and_verifies_with_memory(alice, calendar, remember, ollama, index):
    warning = remember("We will not touch the calendar until the school term starts.")
    index(alice)
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)
    ollama.answer(
        {"steps": [
            {"action": "Reproduce the recurring events bug", "why": "the open task",
             "memory_ids": [calendar.pk, 999_999]},
            {"action": "Fix it", "why": "", "memory_ids": []},
        ]},
        {"matches_intent": False, "confidence": 0.4, "supporting_memories": [calendar.pk],
         "conflicting_memories": [warning.pk, 999_999], "reasoning": "a memory says wait",
         "alternative_interpretation": "Wait until term starts"},
    )  # fmt: skip

    steps = reasoning.decompose_with_memory(reading)
    check = reasoning.verify_intent_with_memory(reading)

    assert [step["memory_ids"] for step in steps] == [[calendar.pk], []]
    assert influences(reading, "decompose") == {calendar.pk: "pattern_match"}
    assert check["conflicting_memories"] == [warning.pk]
    assert check["alternative_interpretation"] == "Wait until term starts"
    assert set(influences(reading, "verify")) == {calendar.pk, warning.pk}
    assert "Relevant decisions" in ollama.chats[0]["messages"][1]["content"]


def test_themes_come_from_your_story_offline_and_from_the_model_in_a_task(
    alice, remember, index, ollama
):
    running = [
        remember("Alice ran her first half marathon in Leeds in 2 hours 5."),
        remember("Alice runs three times a week and wants a sub-2 half marathon."),
        remember("Alice's running club meets on Thursdays for the long run."),
    ]
    remember("The boiler was serviced in October.")
    index(alice)

    offline_themes = reasoning.identity_context(alice)
    assert offline_themes["engine"] == "offline"
    assert {m.pk for m in running} <= set(offline_themes["themes"][0]["memory_ids"])
    assert "run" in offline_themes["themes"][0]["theme"]

    ollama.answer({"themes": [{"theme": "running", "memory_ids": [running[0].pk, 999_999]}]})
    assert reasoning.refresh_themes(alice) == [{"theme": "running", "memory_ids": [running[0].pk]}]
    assert reasoning.identity_context(alice) == {
        "themes": [{"theme": "running", "memory_ids": [running[0].pk]}],
        "engine": "ollama",
        "text": "running",
    }


def test_a_theme_is_said_in_the_members_words_without_days_or_times(alice, remember, index):
    pickup = [
        remember("School pickup is at 3pm on mon tue thu."),
        remember("School pickup moved to 3:30 on mon tue thu."),
        remember("Dave moved the school pickup rota around."),
    ]
    remember("The boiler was serviced in October.")
    index(alice)

    [theme] = [
        t for t in reasoning.identity_context(alice)["themes"] if pickup[0].pk in t["memory_ids"]
    ]
    words = theme["theme"].split(", ")
    assert "pickup" in words and "school" in words
    assert not {"mov", "mon", "tue", "thu", "3pm", "30"} & set(words)


# --- the tools, and a memory's influence chain ------------------------------------------------


def test_the_reasoning_tools_read_explain_and_trace(alice, calendar):
    read = call_tool(alice, "classify_request", request="fix the calendar thing")
    assert read["classification"] == "process × human × execute" and read["steps"]
    assert read["verification"]["matches_intent"] in (True, False)
    assert {"classify", "decompose", "verify"} >= {row["stage"] for row in read["memories"]}

    explained = call_tool(alice, "explain_classification", classification_id=read["id"])
    assert explained == read

    context = call_tool(alice, "get_reasoning_context", query="fix the calendar thing", top_k=3)
    assert [row["memory_id"] for row in context["open_threads"]] == [calendar.pk]
    assert context["vague"] is True and len(context["memories"]) <= 3

    conversation, message = services.add_message(
        owner=alice, content="what was the calendar bug again?"
    )
    reply = chat.respond(conversation=conversation, message=message)
    assert calendar.pk in [used["id"] for used in reply.memories_used]

    chain = call_tool(alice, "get_memory_influence_chain", memory_id=calendar.pk)["chain"]
    kinds = [(step["kind"], step.get("influence_type")) for step in chain]
    assert kinds[0][0] == "reply" and chain[0]["reply_id"] == reply.pk  # newest first
    assert ("reasoning", "disambiguation") in kinds
    reading_step = next(step for step in chain if step.get("influence_type") == "disambiguation")
    assert reading_step["classification_id"] in (read["id"], None)
    assert call_tool(alice, "get_identity_context")["engine"] == "offline"


def test_the_memory_page_shows_what_it_shaped(alice_client, alice, calendar):
    reading = reasoning.classify_with_memory(alice, "fix the calendar thing", use_model=False)

    page = alice_client.get(reverse("memories:detail", args=[calendar.pk])).content.decode()

    assert "What it shaped" in page and "disambiguation" in page
    explained = alice_client.get(reverse("conversations:reading", args=[reading.pk]))
    body = explained.content.decode()
    assert "process × human × execute" in body and f"[id:{calendar.pk}]" in body
