"""Nothing a member sees from a search depends on another member's memories: not the results,
not their order, not a single factor, not the message about words left out. (With one keyword
index for the household, bm25 for one word fell from 1.70 to 0.74 after another member stored
five memories with it: a way to count what someone else had written.)"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from memories import search
from talkingrock.tools import call_tool

BOBS = [
    "The plumber Zoltan fixes the boiler on Tuesday",
    "Boiler service costs 120 pounds a year",
    "Mia's violin lesson moved to Thursday afternoon",
    "The garden shed roof leaks when it rains",
    "We chose the quartz worktop for the kitchen",
    "Grandma's recipe for plum cake needs cardamom",
]
QUERIES = [
    "boiler",
    "boiler plumber Tuesday",
    "who fixes the boiler",
    "violin lesson",
    "kitchen worktop quartz",
    "plum cake recipe cardamom",
    "the a of and",
]
NOW = timezone.make_aware(dt.datetime(2026, 11, 23, 12, 0))


def answers(member) -> list:
    """Everything bob sees from his searches, through the tools agents and chat use. Recall
    leaves a trail and strengthens co-recall links (bob's own doing, which changes his next
    answer): each round is rolled back, so two rounds differ only by what alice did between."""
    seen = []
    with transaction.atomic():
        for query in QUERIES:
            seen.append(call_tool(member, "memory_query", query=query, limit=10))
            seen.append(call_tool(member, "search_memories", query=query, limit=10))
        transaction.set_rollback(True)
    return seen


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: NOW)


def test_another_members_memories_change_nothing_bob_sees(alice, bob, remember, index, frozen):
    for text in BOBS:
        remember(text, owner=bob)
    index(bob)
    before = answers(bob)
    assert any(answer["results"] for answer in before)

    # Alice writes fifty memories with every word of bob's queries, some of them many times.
    words = " ".join(QUERIES).split()
    for n in range(50):
        remember(" ".join(words[n % len(words) :] + words[: n % len(words)]), owner=alice)
    index(alice)

    assert answers(bob) == before


def test_the_budget_is_the_members_own(alice, bob, remember, monkeypatch):
    monkeypatch.setattr(search, "MATCH_BUDGET", 3)
    remember("The boiler hums", owner=bob)
    before = call_tool(bob, "memory_query", query="boiler hums")
    for n in range(10):
        remember(f"boiler boiler hums {n}", owner=alice)

    after = call_tool(bob, "memory_query", query="boiler hums")

    assert after == before and "message" not in after


def test_deleting_and_editing_another_members_memories_change_nothing(alice, bob, remember, frozen):
    for text in BOBS:
        remember(text, owner=bob)
    hers = [remember(f"boiler violin quartz {n}", owner=alice) for n in range(20)]
    before = [call_tool(bob, "memory_query", query=q, limit=10) for q in QUERIES]

    for memory in hers[:10]:
        memory.delete()
    for memory in hers[10:]:
        call_tool(alice, "memory_update", id=memory.pk, content="cardamom plum cake " * 5)

    assert [call_tool(bob, "memory_query", query=q, limit=10) for q in QUERIES] == before
