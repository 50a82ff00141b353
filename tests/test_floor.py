"""The relevance floor (issue 12): recall still ranks everything, but the search page, the
search_memories tool and the chat show only what clears the floor; a lone filler word matched in
a small store neither clears it nor outranks the memory that means what was asked. Real
embedding model."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conversations import chat, services
from memories.recall import floor, recall
from memories.recall.results import Hit
from talkingrock.tools import call_tool

GARDEN = "We want to plant tomatoes and a herb bed in the back yard."
UNRELATED = [
    "Bought tickets for the concert in May.",
    "The dentist is on Thursday.",
    "Sam's school shoes are too small.",
    "The boiler was serviced in October.",
    "Grandma's birthday is on 3 June.",
    "The car insurance renews in August.",
]


@pytest.fixture
def seven(alice, remember, index):
    garden = remember(GARDEN)
    for text in UNRELATED:
        remember(text)
    index(alice)
    return garden


def _hit(components, memory_id=1) -> Hit:
    return Hit(memory_id=memory_id, memory=None, score=1.0, components=components)


@pytest.mark.parametrize(
    ("components", "weak"),
    [
        ({"meaning": {"similarity": 0.45}}, False),
        ({"meaning": {"similarity": 0.05}, "keywords": {"bm25": 9.0}}, False),
        ({"meaning": {"similarity": 0.05}, "keywords": {"bm25": 1.2}}, True),
        ({"meaning": {"similarity": -0.2}}, True),
        ({}, True),
    ],
)
def test_a_hit_clears_the_floor_on_its_meaning_or_its_rare_words(settings, components, weak):
    settings.TALKINGROCK_RECALL = {
        **settings.TALKINGROCK_RECALL, "floor_similarity": 0.3, "floor_bm25": 4.0
    }  # fmt: skip
    hit = _hit(components)
    floor.mark([hit], {})
    assert hit.weak is weak


def test_a_short_turn_clears_it_through_the_neighbour_that_lifted_it(settings):
    settings.TALKINGROCK_RECALL = {**settings.TALKINGROCK_RECALL, "floor_similarity": 0.3}
    parts = {7: {"meaning": {"similarity": 0.6}}, 8: {"meaning": {"similarity": 0.1}}}
    lifted = _hit({"meaning": {"similarity": 0.1}, "neighbours": {"from_1": 7}}, memory_id=9)
    by_a_weak_one = _hit({"meaning": {"similarity": 0.1}, "neighbours": {"from_1": 8}}, 10)
    floor.mark([lifted, by_a_weak_one], parts)
    assert not lifted.weak and by_a_weak_one.weak
    assert lifted.components["neighbours"]["source_similarity"] == 0.6


def test_a_filler_word_does_not_outrank_what_the_question_means(alice, seven):
    result = recall(alice, "ideas for the garden", k=7)

    assert result.hits[0].memory_id == seven.pk
    assert [hit.memory_id for hit in result.strong] == [seven.pk]
    assert len(result.hits) == 7  # recall still ranks everything; the surfaces read the floor


def test_the_search_page_shows_only_what_clears_the_floor(alice_client, seven):
    response = alice_client.get(
        reverse("memories:search"), {"q": "ideas for the garden", "mode": "meaning"}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert GARDEN in page
    assert not any(text in page for text in UNRELATED)
    assert "1 memory by meaning" in page
    assert "6 weaker matches left out: too far from what you asked" in page
    assert "below the relevance floor" in page  # in the details fold


def test_the_search_page_says_when_nothing_clears_it(alice_client, seven):
    response = alice_client.get(
        reverse("memories:search"), {"q": "quantum chromodynamics lecture", "mode": "meaning"}
    )
    page = response.content.decode()
    assert "Nothing you have bears on this closely enough" in page
    assert GARDEN not in page and not any(text in page for text in UNRELATED)


def test_the_tool_returns_what_clears_it_and_counts_the_rest(alice, seven):
    answer = call_tool(alice, "search_memories", query="ideas for the garden", limit=7)
    assert [row["id"] for row in answer["results"]] == [seven.pk]
    assert answer["weak_matches"] == 6


def test_the_chat_uses_only_what_clears_it(alice, seven):
    talk, said = services.add_message(owner=alice, content="any ideas for the garden?")
    reply = chat.respond(conversation=talk, message=said)
    assert [entry["id"] for entry in reply.memories_used] == [seven.pk]
    assert not any(text in reply.content for text in UNRELATED)
