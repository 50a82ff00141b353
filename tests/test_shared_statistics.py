"""With shared acts (issue 25), nothing a member sees from a search depends on anyone else's
private rows, nor on what another member does with their own row of what is shared: not the
results, not their order, not a single factor, not a message (tests/test_search_statistics.py's
proof, with shared rows present).

Each member holds what is shared as a row of their own, so their searches stay their own:
alice's private writing and deleting moves nothing bob sees, sharing between alice and bob moves
nothing carol sees, and bob's recalls and reinforcements of his copies move nothing alice sees.
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse

from memories import sharing
from memories.models import Memory, MemoryLink, Recall, RecallHit
from memories.recall import recall
from talkingrock.tools import call_tool
from tests import test_search_statistics as statistics
from tests.test_isolation import snapshot
from tests.test_search_statistics import BOBS, QUERIES, answers

frozen = statistics.frozen

# What alice shares into "House", with words of bob's queries in each; and what bob shares.
ALICE_SHARES = [
    "The plumber Zoltan says the boiler needs a new valve",
    "We chose the quartz worktop for the kitchen",
    "Mia's violin lesson moved to Thursday afternoon",
]
BOB_SHARES = ["Grandma's recipe for plum cake needs cardamom"]
FOUND = ["boiler plumber", "violin lesson", "kitchen worktop quartz"]  # on the find page
NAMED = ["Zoltan boiler valve", "Mia violin Thursday"]  # queries that name who the memories name


def share_a_house(alice, bob, remember, index) -> list[Memory]:
    """Alice and bob share "House", each sharing memories into it; every member's row of it."""
    place = sharing.create_shared_act(creator=alice, title="House", member_ids=[bob.pk])
    bobs_place = sharing.place_of(bob, place.shared)
    for owner, texts, into in ((alice, ALICE_SHARES, place), (bob, BOB_SHARES, bobs_place)):
        for text in texts:
            sharing.share_memory(memory=remember(text, owner=owner), place=into)
    index(alice)
    index(bob)
    return list(Memory.objects.filter(share__isnull=False))


def seen(member) -> list:
    """Everything the member sees from their searches (rolled back: tests/test_search_statistics
    .py's ``answers``), and their find page for a few of them."""
    client = Client()
    client.force_login(member)
    with transaction.atomic():
        named = [
            call_tool(member, tool, query=query, limit=10)
            for query in NAMED
            for tool in ("memory_query", "search_memories")
        ]
        pages = [client.get(reverse("find"), {"q": query}).content.decode() for query in FOUND]
        transaction.set_rollback(True)
    # Each page's fresh CSRF token is no answer.
    return [answers(member), named, [re.sub(r"[A-Za-z0-9]{64}", "<csrf>", p) for p in pages]]


def ids_found(answered: list) -> set[int]:
    return {hit["id"] for answer in answered[0] for hit in answer["results"]}


def use_what_is_shared(member, rows: list[Memory]) -> None:
    """A member's own use of their rows of what is shared: searches that leave a trail and
    strengthen co-recall links, reinforcing and demoting."""
    for query in QUERIES:
        recall(member, query, purpose="chat")
        call_tool(member, "search_memories", query=query)
    for row in rows:
        call_tool(member, "memory_reinforce", id=row.pk)
    call_tool(member, "memory_demote", id=rows[0].pk)


def test_alices_private_rows_move_nothing_bob_sees_of_what_they_share(
    alice, bob, remember, index, frozen
):
    for text in BOBS[:4]:
        remember(text, owner=bob)
    rows = share_a_house(alice, bob, remember, index)
    before = seen(bob)
    bobs_copies = {m.pk for m in rows if m.owner == bob and m.content in ALICE_SHARES}
    assert bobs_copies <= ids_found(before)  # what alice shared is among what bob finds

    # Alice writes fifty private memories with every word of bob's queries; she deletes some and
    # rewrites others, and uses her own rows of what they share.
    words = " ".join(QUERIES).split()
    hers = [
        remember(" ".join(words[n % len(words) :] + words[: n % len(words)]), owner=alice)
        for n in range(50)
    ]
    index(alice)
    for memory in hers[:10]:
        memory.delete()
    for memory in hers[10:20]:
        call_tool(alice, "memory_update", id=memory.pk, content="cardamom plum cake " * 5)
    index(alice)
    use_what_is_shared(alice, [m for m in rows if m.owner == alice])

    assert seen(bob) == before


def test_what_alice_and_bob_share_moves_nothing_carol_sees(alice, bob, remember, index, frozen):
    carol = get_user_model().objects.create_user("carol", password="carol's own password")
    for text in BOBS:
        remember(text, owner=carol)
    index(carol)
    before = seen(carol)
    assert ids_found(before)

    rows = share_a_house(alice, bob, remember, index)
    use_what_is_shared(bob, [m for m in rows if m.owner == bob])
    use_what_is_shared(alice, [m for m in rows if m.owner == alice])

    after = seen(carol)
    assert after == before
    assert not ids_found(after) & {m.pk for m in rows}


def test_bobs_use_of_his_copies_moves_nothing_alice_sees(alice, bob, remember, index, frozen):
    for text in BOBS[:4]:
        remember(text, owner=alice)
    rows = share_a_house(alice, bob, remember, index)

    def alices_view() -> list:
        return [
            seen(alice),
            snapshot(alice),  # her rows field by field: score, hit count, last use among them
            list(MemoryLink.objects.filter(owner=alice).order_by("pk").values()),
            list(Recall.objects.filter(owner=alice).order_by("pk").values()),
            list(RecallHit.objects.filter(recall__owner=alice).order_by("pk").values()),
        ]

    before = alices_view()
    assert {m.pk for m in rows if m.owner == alice} <= ids_found(before[0])
    bobs_rows = [m for m in rows if m.owner == bob]

    use_what_is_shared(bob, bobs_rows)

    assert alices_view() == before
    # Bob's use was his own: it moved his rows, so the comparison above could have failed.
    assert Recall.objects.filter(owner=bob).exists()
    assert MemoryLink.objects.filter(owner=bob).exists()
    assert {m.score for m in Memory.objects.filter(pk__in=[m.pk for m in bobs_rows])} != {0}


def test_once_taken_back_nothing_of_it_is_left_in_what_bob_sees(
    alice, bob, remember, index, frozen, capture
):
    for text in BOBS[:4]:
        remember(text, owner=bob)
    index(bob)
    before = seen(bob)
    place = sharing.create_shared_act(creator=alice, title="House", member_ids=[bob.pk])
    hers = [remember(text, owner=alice) for text in ALICE_SHARES]
    for memory in hers:
        sharing.share_memory(memory=memory, place=place)
    index(bob)
    assert seen(bob) != before  # what she shared moved his numbers while he held it

    with capture(execute=True):  # the worker writes his keyword index again
        for memory in hers:
            sharing.take_back(memory=Memory.objects.get(pk=memory.pk))

    assert seen(bob) == before
