"""Seed 003's compounding loop, scripted: a household lives ten conversations; after each, the
same vague requests are read again. Readings get better as the memories that explain them
arrive, a new look-alike makes one ambiguous (it asks), and the member's correction in chat
settles it for the next request, before the conversation closes."""

from __future__ import annotations

import pytest

from conversations import chat, reasoning, services
from conversations.models import Classification
from memories.models import Memory, MemoryItem, RecallHit

# (conversation, what it leaves open) — the threads a close would leave, as items of its memory.
TEN = [
    ("We talked about the kitchen calendar: recurring events keep vanishing.",
     "Fix the recurring events bug in the kitchen calendar"),
    ("Long chat about holiday ideas for the summer, nothing decided.", None),
    ("The boiler engineer came round; he owes us a quote for the service.",
     "Get the boiler service quote from the engineer"),
    ("Garden plans: tomatoes and a herb bed by the fence.", None),
    ("Sam's school trip to the museum needs a signed form.",
     "Sign and send the school trip form"),
    ("Mum's birthday dinner, we booked the Italian place.", None),
    ("Maya's tooth hurts again; she needs the dentist.",
     "Book Maya's dentist appointment"),
    ("The school calendar for the autumn term has to sync to our phones.",
     "Fix the school calendar sync"),
    ("The car failed its MOT on the brakes.", "Book the car in to fix the brakes for the MOT"),
    ("Quiet week, just the bins and the recycling.", None),
]  # fmt: skip
REQUESTS = {
    "fix the calendar thing": "kitchen calendar",
    "chase the boiler thing": "boiler service quote",
    "do the school trip stuff": "school trip form",
    "sort the dentist thing": "dentist appointment",
    "deal with the car stuff": "brakes",
}


@pytest.fixture
def live(alice, remember, index):
    """Live one conversation: its memory, and its open thread if it leaves one."""

    def conversation(number: int) -> None:
        said, open_thread = TEN[number]
        memory = remember(said, source=Memory.Source.CONVERSATION)
        if open_thread:
            MemoryItem.objects.create(memory=memory, type="task", data={"description": open_thread})
        index(alice)

    return conversation


def accuracy(alice) -> tuple[int, dict[str, Classification]]:
    """How many of the vague requests are read as the thread they mean, without asking."""
    right, readings = 0, {}
    for request, meant in REQUESTS.items():
        reading = reasoning.classify_with_memory(alice, request, use_model=False)
        readings[request] = reading
        right += not reading.needs_clarification and meant in reasoning.resolved(reading)
    return right, readings


def test_readings_improve_over_ten_conversations_and_a_correction_takes_effect_at_once(
    alice, live, index
):
    scores = []
    for number in range(10):
        live(number)
        scores.append(accuracy(alice)[0])
        if number == 7:
            _, readings = accuracy(alice)
            # The school calendar now fits "the calendar thing" as well as the kitchen one.
            assert readings["fix the calendar thing"].needs_clarification

    # Each thread's conversation brings its request in; the look-alike (8th) costs one.
    assert scores == [1, 1, 2, 2, 3, 3, 4, 3, 4, 4]

    # The member says which one, in chat; the next request is read their way.
    conversation, asked = services.add_message(owner=alice, content="fix the calendar thing")
    question = chat.respond(conversation=conversation, message=asked)
    assert question.content.startswith("Which do you mean by “the calendar thing”")
    _, correcting = services.add_message(
        owner=alice, content="no, I meant the kitchen calendar, not the school one"
    )
    learnt = chat.respond(conversation=conversation, message=correcting)
    assert learnt.content.startswith("Understood: by “the calendar thing” you mean the kitchen")
    correction = Memory.objects.get(pk=learnt.memories_used[0]["id"])
    assert correction.source == Memory.Source.CORRECTION
    assert Classification.objects.get(message=asked).corrected_by == correction
    index(alice)

    right, readings = accuracy(alice)
    assert right == 5
    assert "kitchen calendar" in reasoning.resolved(readings["fix the calendar thing"])
    trail = readings["fix the calendar thing"].recall_id
    assert RecallHit.objects.get(recall_id=trail, memory=correction).influence_type == (
        "disambiguation"
    )
    _, again = services.add_message(owner=alice, content="fix the calendar thing")
    reply = chat.respond(conversation=conversation, message=again)
    assert "(I take it that “the calendar thing” is Fix the recurring events bug" in reply.content
