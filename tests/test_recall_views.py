"""Recall in the app and the tool API: search by meaning with the reasons for each hit, the
names memories mention, related memories, and the search_memories tool."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memories.models import Act, Entity, MemoryLink, Recall
from talkingrock.tools import ToolError, call_tool

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def notes(alice, remember, index):
    notes = {
        "tyres": remember("Our automobile needs new tyres before the winter."),
        "novak": remember("Dr Novak prescribed a new inhaler for Sam."),
        "clinic": remember("Dr Novak moved her practice to Baker Street."),
    }
    index(alice)
    return notes


def test_searching_by_meaning_finds_a_paraphrase_and_says_why(alice_client, notes):
    response = alice_client.get(reverse("memories:search"), {"q": "car repairs", "mode": "meaning"})

    body = response.content.decode()
    assert response.status_code == 200
    assert "by meaning" in body
    first = body.index('<li class="result">')
    assert notes["tyres"].content in body[first : first + 4000]
    assert "meaning #1 (similarity" in body


def test_searching_by_keywords_finds_no_paraphrase(alice_client, notes):
    response = alice_client.get(reverse("memories:search"), {"q": "car repairs"})

    assert notes["tyres"].content not in response.content.decode()


def test_searching_by_meaning_answers_htmx_with_the_results_only(alice_client, notes):
    response = alice_client.get(
        reverse("memories:search"), {"q": "inhaler", "mode": "meaning"}, **HTMX
    )

    body = response.content.decode()
    assert "<html" not in body and notes["novak"].content in body
    assert "shares Dr Novak with" in body  # the clinic came through the entity


def test_a_time_phrase_is_shown_with_the_window_it_means(alice_client, notes):
    response = alice_client.get(
        reverse("memories:search"), {"q": "what happened yesterday", "mode": "meaning"}
    )

    assert "(“yesterday”)" in response.content.decode()


def test_the_names_page_lists_the_members_entities_with_counts(alice_client, notes):
    response = alice_client.get(reverse("memories:entities"))

    body = response.content.decode()
    novak = Entity.objects.get(normalized="novak")
    assert novak.get_absolute_url() in body and "Dr Novak" in body
    rows = list(response.context["page"])
    assert rows[0] == novak and rows[0].mention_count == 2


def test_an_entity_page_lists_every_memory_that_mentions_it(alice_client, notes):
    novak = Entity.objects.get(normalized="novak")

    response = alice_client.get(novak.get_absolute_url())

    assert [m.pk for m in response.context["page"]] == [notes["clinic"].pk, notes["novak"].pk]
    assert notes["tyres"].content not in response.content.decode()


def test_a_memory_page_shows_its_names_and_its_related_memories(alice, alice_client, notes):
    MemoryLink.objects.create(
        owner=alice, memory=notes["novak"], related=notes["tyres"], strength=3
    )

    response = alice_client.get(notes["novak"].get_absolute_url())

    body = response.content.decode()
    assert Entity.objects.get(normalized="novak").get_absolute_url() in body
    assert "found together 3 times" in body and notes["tyres"].get_absolute_url() in body


def test_the_search_memories_tool_answers_results_with_why(alice, notes):
    answer = call_tool(alice, "search_memories", query="car repairs", limit=2)

    first = answer["results"][0]
    assert first["id"] == notes["tyres"].pk and first["content"] == notes["tyres"].content
    assert first["score"] > 0
    assert first["why"]["meaning"]["rank"] == 1 and first["why"]["reasons"]
    assert len(answer["results"]) + answer["weak_matches"] == 2  # below the floor: counted


def test_the_search_memories_tool_leaves_a_trail(alice, notes):
    call_tool(alice, "search_memories", query="inhaler")

    trail = Recall.objects.get()
    assert (trail.purpose, trail.query) == ("tool:search_memories", "inhaler")
    assert trail.hits.count() >= 1


def test_the_search_memories_tool_keeps_to_an_act_or_to_your_story(alice, remember, index):
    garden = Act.objects.create(owner=alice, title="Garden")
    in_act = remember("Prune the apple tree in February.", act=garden)
    in_story = remember("The apple pie recipe is in the blue book.")
    index(alice)

    in_garden = call_tool(alice, "search_memories", query="apple", act_id=garden.pk)
    in_your_story = call_tool(alice, "search_memories", query="apple", your_story_only=True)

    assert [r["id"] for r in in_garden["results"]] == [in_act.pk]
    assert [r["id"] for r in in_your_story["results"]] == [in_story.pk]


def test_the_search_memories_tool_refuses_an_act_that_is_not_yours(alice, bob):
    bobs_act = Act.objects.create(owner=bob, title="Bob's")

    with pytest.raises(ToolError) as refused:
        call_tool(alice, "search_memories", query="apple", act_id=bobs_act.pk)

    assert refused.value.status == 404
    assert refused.value.message == f"Act {bobs_act.pk} not found."
