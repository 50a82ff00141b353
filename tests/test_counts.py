"""The counts people see are true: an act of four memories says four, whatever their items, and a
draft waiting for review or an archived memory is not counted. One query per page pins them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from conversations import services as conversation_services
from memories import evidence, services
from memories.models import Act, Memory, MemoryItem


@pytest.fixture
def kitchen(alice, remember):
    """Four live memories with nineteen items, five of them open; one archived; one draft."""
    act = Act.objects.create(owner=alice, title="Kitchen remodel")
    memories = [remember(f"Kitchen note {n}", act=act) for n in range(4)]
    for n, memory in enumerate(memories):
        for k in range(5 if n < 3 else 4):
            open_ = (n, k) in {(0, 0), (0, 1), (1, 0), (2, 0), (3, 3)}
            MemoryItem.objects.create(
                memory=memory,
                type="task" if open_ else "person",
                data={"description": f"task {n}.{k}"} if open_ else {"name": f"P{n}{k}"},
            )
    archived = remember("Old kitchen note", act=act)
    services.memory_archive(owner=alice, memory_id=archived.pk)
    draft = remember("Kitchen draft under review", act=act, status=Memory.Status.DRAFT)
    MemoryItem.objects.create(memory=draft, type="task", data={"description": "not yet"})
    # What was said in a conversation kept in the act: evidence for recall, no memory of it.
    talk, _ = conversation_services.add_message(owner=alice, content="the worktop is oak")
    conversation_services.add_message(owner=alice, content="Noted: oak.", role="assistant")
    evidence.move_to_act(conversation_id=talk.pk, act_id=act.pk)
    return act


def line_of(page: str, title: str) -> str:
    match = re.search(rf"{re.escape(title)}</a>\s*<span class=\"meta\">([^<]*)</span>", page)
    assert match, page
    return " ".join(match.group(1).split())


def test_the_acts_list_counts_memories_and_open_items_once_each(alice_client, kitchen):
    page = alice_client.get(reverse("conversations:acts")).content.decode()

    assert line_of(page, "Kitchen remodel") == "4 memories · 5 open"


def test_the_acts_list_is_one_query_for_the_counts(
    alice_client, kitchen, django_assert_num_queries
):
    # Session, user, the acts with both counts, and the members a shared act can be made with.
    with django_assert_num_queries(4):
        alice_client.get(reverse("conversations:acts"))


def test_the_sidebar_counts_live_confirmed_memories_only(alice_client, kitchen):
    page = alice_client.get(reverse("memories:act", args=[kitchen.pk])).content.decode()

    sidebar = re.search(r"Kitchen remodel</a> <span class=\"count\">(\d+)</span>", page)
    assert sidebar and sidebar.group(1) == "4"
