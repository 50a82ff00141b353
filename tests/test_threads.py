"""Open threads closed by hand: every surface that lists an open item (the greeting, the act page,
the memory page) offers done and dismiss, with undo, through a form that works without
JavaScript and swaps only the item's line with HTMX; the ``resolve_item`` tool does the same;
a closed item keeps when, how and by what it closed."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from conversations.models import Conversation
from memories import threads
from memories.models import Act, Memory, MemoryItem
from talkingrock.tools import ToolError, call_tool

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def kept(alice):
    act = Act.objects.create(owner=alice, title="Kitchen")
    talk = Conversation.objects.create(owner=alice, status=Conversation.Status.ARCHIVED)
    memory = Memory.objects.create(
        owner=alice, content="Talked about the kitchen.", act=act, conversation=talk
    )
    items = {
        "question": MemoryItem.objects.create(
            memory=memory, type="question_opened", data={"question": "Floors now or after?"}
        ),
        "waiting": MemoryItem.objects.create(
            memory=memory, type="waiting_on", data={"who": "Dave", "what": "the quote"}
        ),
        "task": MemoryItem.objects.create(
            memory=memory, type="task", data={"description": "order the tiles"}
        ),
        "decision": MemoryItem.objects.create(
            memory=memory, type="decision", data={"what": "white oak fronts"}
        ),
    }
    return act, memory, items


def form_next(page: str, action: str) -> str:
    """The ``next`` the page's form for ``action`` posts, as a browser sends it."""
    form = re.search(rf'<form method="post" action="{re.escape(action)}".*?</form>', page, re.S)
    assert form, f"no form for {action}"
    return re.search(r'name="next" value="([^"]*)"', form.group(0)).group(1)


def surfaces(act, memory):
    return {
        "greeting": reverse("home"),
        "act": reverse("memories:act", args=[act.pk]),
        "memory": reverse("memories:detail", args=[memory.pk]),
    }


@pytest.mark.parametrize("surface", ["greeting", "act", "memory"])
def test_each_surface_closes_an_open_item_without_javascript_and_undoes_it(
    alice_client, kept, surface
):
    act, memory, items = kept
    item = items["question"] if surface == "greeting" else items["task"]
    page = surfaces(act, memory)[surface]
    resolve = reverse("memories:thread-resolve", args=[item.pk])

    listed = alice_client.get(page).content.decode()
    assert f'action="{resolve}"' in listed

    # The form's own next: back to a page where the item still is, with its Undo (the act
    # page lists only open items, so from there it is the item's memory).
    landing = reverse("memories:detail", args=[memory.pk]) if surface == "act" else page
    response = alice_client.post(resolve, {"how": "done", "next": form_next(listed, resolve)})
    assert response.status_code == 302
    assert response["Location"] == f"{landing}#thread-{item.pk}"
    item.refresh_from_db()
    assert not item.is_active and item.resolution == "done" and item.resolved_at
    assert item.resolved_by is None  # by hand, not by a conversation
    after = alice_client.get(landing).content.decode()
    assert "marked done. Undo is beside it." in after

    reopen = reverse("memories:thread-reopen", args=[item.pk])
    assert f'action="{reopen}"' in after
    response = alice_client.post(reopen, {"next": form_next(after, reopen)})
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.is_active and item.resolution == "" and item.resolved_at is None


def test_with_htmx_only_the_items_line_comes_back(alice_client, kept):
    _, _, items = kept
    waiting = items["waiting"]
    response = alice_client.post(
        reverse("memories:thread-resolve", args=[waiting.pk]), {"how": "dismissed"}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert body.strip().startswith(f'<li class="thread closed" id="thread-{waiting.pk}"')
    assert "dismissed" in body and "Undo" in body
    waiting.refresh_from_db()
    assert waiting.resolution == "dismissed"


def test_closing_twice_or_closing_a_decision_is_refused_clearly(alice_client, kept):
    _, _, items = kept
    url = reverse("memories:thread-resolve", args=[items["task"].pk])
    alice_client.post(url, {"how": "done"})
    again = alice_client.post(url, {"how": "dismissed"}, **HTMX)
    assert again.status_code == 409 and "already closed" in again.content.decode()
    decision = reverse("memories:thread-resolve", args=[items["decision"].pk])
    refused = alice_client.post(decision, {"how": "done"}, **HTMX)
    assert refused.status_code == 409 and "not an open thread" in refused.content.decode()
    unknown = alice_client.post(
        reverse("memories:thread-resolve", args=[items["waiting"].pk]), {"how": "maybe"}, **HTMX
    )
    assert unknown.status_code == 409 and "done or dismissed" in unknown.content.decode()
    assert alice_client.get(reverse("memories:thread-resolve", args=[1])).status_code == 405


def test_the_next_address_never_leaves_the_site(alice_client, kept):
    _, _, items = kept
    response = alice_client.post(
        reverse("memories:thread-resolve", args=[items["task"].pk]),
        {"how": "done", "next": "https://evil.example/steal"},
    )
    # Ignored for the item's memory, where it is shown with its Undo.
    memory_page = reverse("memories:detail", args=[items["task"].memory_id])
    assert response.status_code == 302
    assert response["Location"] == f"{memory_page}#thread-{items['task'].pk}"


def test_the_tool_closes_reopens_and_says_when_how_and_by_what(alice, kept):
    _, _, items = kept
    waiting = items["waiting"]

    closed = call_tool(alice, "resolve_item", item_id=waiting.pk, resolution="done")
    assert closed["open"] is False
    assert closed["resolved"]["how"] == "done" and closed["resolved"]["at"]
    assert closed["resolved"]["by_memory_id"] is None
    listed = call_tool(alice, "get_open_threads")["threads"]
    assert waiting.pk not in [row["item_id"] for row in listed]

    reopened = call_tool(alice, "resolve_item", item_id=waiting.pk, resolution="reopen")
    assert reopened["open"] is True and "resolved" not in reopened
    assert waiting.pk in [row["item_id"] for row in call_tool(alice, "get_open_threads")["threads"]]

    with pytest.raises(ToolError) as refused:
        call_tool(alice, "resolve_item", item_id=items["decision"].pk, resolution="done")
    assert refused.value.status == 409
    with pytest.raises(ToolError) as invalid:
        call_tool(alice, "resolve_item", item_id=waiting.pk, resolution="later")
    assert invalid.value.status == 400


def test_an_item_a_conversation_closed_says_which(alice, kept):
    _, memory, items = kept
    later = Memory.objects.create(owner=alice, content="Dave's quote came.", act=memory.act)
    waiting = items["waiting"]
    MemoryItem.objects.filter(pk=waiting.pk).update(
        is_active=False, resolved_by=later, resolution="conversation"
    )

    answer = threads.describe(MemoryItem.objects.select_related("resolved_by").get(pk=waiting.pk))

    assert answer["resolved"]["how"] == "conversation"
    assert answer["resolved"]["by_memory_id"] == later.pk
