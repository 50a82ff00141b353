"""Hybrid recall on a small hand-made household, with the real embedding model: each list finds
what the other misses, entities and time widen the net, and every hit says why it matched."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conversations.models import Conversation
from memories import services
from memories.models import Act, Memory, MemoryItem, MemoryLink, Mention, Recall, RecallHit
from memories.recall import recall

NOW = timezone.now()


@pytest.fixture
def household(alice, remember, index):
    """Alice's memories, indexed (vectors and entities) as the background task would."""
    memories = {
        "tyres": remember("Our automobile needs new tyres before the winter."),
        "fence": remember("Zbigniew fixed the garden fence on Saturday."),
        "inhaler": remember("Dr Novak prescribed a new inhaler for Sam."),
        "clinic": remember("Dr Novak moved her practice to Baker Street."),
        "bread": remember("We bought sourdough bread at the market.", happened_at=NOW - timedelta(days=1)),
        "old bread": remember("We bought rye bread at the market.", happened_at=NOW - timedelta(days=40)),
        "piano": remember("Maya practises piano every Tuesday after school."),
        "boiler": remember("The boiler service is booked for October."),
    }  # fmt: skip
    index(alice)
    return memories


def ids(result) -> list[int]:
    return [hit.memory_id for hit in result.hits]


def hit_for(result, memory):
    return next(hit for hit in result.hits if hit.memory_id == memory.pk)


def test_a_paraphrase_is_found_by_meaning_though_no_word_matches(alice, household):
    result = recall(alice, "car maintenance", k=3)

    tyres = household["tyres"]
    assert ids(result)[0] == tyres.pk
    components = hit_for(result, tyres).components
    assert "keywords" not in components
    assert components["meaning"]["rank"] == 1


def test_a_rare_name_is_found_by_keywords(alice, household):
    result = recall(alice, "Zbigniew", k=3)

    fence = household["fence"]
    assert ids(result)[0] == fence.pk
    assert hit_for(result, fence).components["keywords"]["rank"] == 1


def test_a_memory_sharing_a_name_with_a_match_comes_through_the_entity(alice, household):
    result = recall(alice, "inhaler prescription", k=8)

    clinic = household["clinic"]
    entity = hit_for(result, clinic).components["entity"]
    assert entity["via"] == "Dr Novak"
    assert entity["from"] == [household["inhaler"].pk]
    assert "shares Dr Novak with" in " ".join(hit_for(result, clinic).why)


def test_a_name_in_the_query_lifts_the_memories_that_mention_it(alice, household):
    result = recall(alice, "what did Novak say", k=3)

    assert set(ids(result)[:2]) == {household["inhaler"].pk, household["clinic"].pk}
    assert hit_for(result, household["clinic"]).components["named"] == ["Dr Novak"]
    assert result.entities == ["Dr Novak"]


def test_a_time_phrase_prefers_what_happened_then(alice, household):
    result = recall(alice, "what bread did we buy yesterday", k=3, at=NOW)

    assert ids(result)[0] == household["bread"].pk
    assert hit_for(result, household["bread"]).components["time"]["phrase"] == "yesterday"
    assert "time" not in hit_for(result, household["old bread"]).components
    assert result.window.start < household["bread"].happened_at < result.window.end


def test_the_same_query_from_another_moment_looks_at_another_window(alice, household):
    month_ago = NOW - timedelta(days=39)

    result = recall(alice, "what bread did we buy yesterday", k=3, at=month_ago)

    assert ids(result)[0] == household["old bread"].pk


def test_an_unparseable_time_phrase_is_ignored(alice, household):
    result = recall(alice, "bread on 31 February 2025", k=3)

    assert result.window is None
    assert result.hits


def test_what_was_said_next_to_a_match_comes_with_it(alice, remember, index):
    talk = Conversation.objects.create(owner=alice, status=Conversation.Status.ARCHIVED)
    asked = remember("Where should we go in August?", conversation=talk)
    answer = remember("Portugal, the coast near Porto.", conversation=talk)
    remember("Unrelated: the dishwasher is making a noise.")
    index(alice)

    result = recall(alice, "August holiday plans", k=3)

    assert ids(result)[:2] == [asked.pk, answer.pk]
    assert hit_for(result, answer).components["neighbours"]["from_1"] == asked.pk


def test_every_hit_carries_its_memory_score_and_components(alice, household):
    result = recall(alice, "fence", k=5)

    assert 0 < len(result.hits) <= 5
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True)
    for position, hit in enumerate(result.hits, start=1):
        assert hit.memory.pk == hit.memory_id
        assert hit.components["position"] == position
        assert {"relevance", "reinforcement", "decay", "recency", "score"} <= set(hit.components)
    assert result.context.startswith("Memories that may bear on this")
    assert f"[id:{household['fence'].pk}]" in result.context


def test_reinforcement_lifts_an_equal_memory(alice, remember, index):
    first = remember("Water the tomatoes daily in July.")
    second = remember("Water the tomatoes daily in July!")
    index(alice)
    services.memory_reinforce(owner=alice, memory_id=second.pk)

    result = recall(alice, "watering tomatoes", k=2)

    assert ids(result) == [second.pk, first.pk]
    assert hit_for(result, second).components["reinforcement"] > 1.8


def test_archived_drafts_and_filters_are_respected(alice, remember, index):
    act = Act.objects.create(owner=alice, title="Garden")
    in_act = remember("Compost the leaves in the garden bin.", act=act)
    in_story = remember("Compost goes out on Mondays.")
    archived = remember("Compost heap is behind the shed.")
    remember("Compost draft under review.", status=Memory.Status.DRAFT)
    imported = remember("Compost tips from the old notes.", source="migration")
    services.memory_archive(owner=alice, memory_id=archived.pk)
    decision = remember("We decided to buy a compost tumbler.")
    MemoryItem.objects.create(memory=decision, type=MemoryItem.Type.DECISION, data={})
    index(alice)

    every = set(ids(recall(alice, "compost", k=20)))
    assert every == {in_act.pk, in_story.pk, imported.pk, decision.pk}
    assert set(ids(recall(alice, "compost", k=20, include_archived=True))) == every | {archived.pk}
    assert ids(recall(alice, "compost", k=20, acts=[act])) == [in_act.pk]
    assert in_act.pk not in ids(recall(alice, "compost", k=20, your_story_only=True))
    assert ids(recall(alice, "compost", k=20, sources=["migration"])) == [imported.pk]
    assert ids(recall(alice, "compost", k=20, item_type="decision")) == [decision.pk]


def test_each_member_finds_only_their_own_in_every_mode(alice, bob, remember, index):
    mine = remember("The spare key is under the blue flowerpot.")
    theirs = remember("The spare key is under the blue flowerpot.", owner=bob)
    index()

    for query in ("spare key flowerpot", "where do we hide the house key", "blue"):
        assert ids(recall(alice, query, k=10)) == [mine.pk]
        assert ids(recall(bob, query, k=10)) == [theirs.pk]


def test_a_recall_with_a_purpose_leaves_a_trail(alice, household):
    result = recall(alice, "car tyres", k=3, purpose="chat")

    trail = Recall.objects.get(pk=result.recall_id)
    assert (trail.owner, trail.query, trail.purpose) == (alice, "car tyres", "chat")
    hits = list(RecallHit.objects.filter(recall=trail).order_by("rank"))
    assert [h.memory_id for h in hits] == ids(result)
    assert hits[0].components == result.hits[0].components
    assert hits[0].influence


def test_a_recall_without_a_purpose_leaves_no_trail_and_no_links(alice, household):
    recall(alice, "car tyres", k=3)

    assert not Recall.objects.exists() and not MemoryLink.objects.exists()


def test_memories_recalled_together_grow_a_link_each_time(alice, household):
    first = recall(alice, "bread market", k=2, purpose="chat")
    recall(alice, "bread market", k=2, purpose="chat")

    a, b = ids(first)
    assert MemoryLink.objects.get(memory_id=a, related_id=b).strength == 2
    assert MemoryLink.objects.get(memory_id=b, related_id=a).strength == 2


def test_a_linked_memory_is_pulled_in_with_its_partner(alice, household):
    piano, boiler = household["piano"], household["boiler"]
    MemoryLink.objects.create(owner=alice, memory=piano, related=boiler, strength=5)

    result = recall(alice, "piano lessons on Tuesday", k=8)

    assert hit_for(result, boiler).components["link"]["from"] == piano.pk


def test_the_trail_survives_a_memory_deleted_for_good(alice, household):
    result = recall(alice, "Zbigniew", k=1, purpose="chat")

    services.memory_delete(owner=alice, memory_id=household["fence"].pk)

    hit = RecallHit.objects.get(recall_id=result.recall_id)
    assert hit.memory is None and hit.influence


@pytest.mark.parametrize("query", ["", "   ", '"', "NEAR(", "🔥", "x" * 5000, "\x00\x01"])
def test_any_query_gets_an_answer_not_an_exception(alice, household, query):
    result = recall(alice, query, k=5)

    assert isinstance(result.hits, list)
    assert result.hits or result.message


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=120))
def test_arbitrary_text_never_raises(alice, household, text):
    result = recall(alice, text, k=3)

    assert result.hits or result.message


def test_a_name_only_spoken_to_does_not_lift_a_memory(alice, remember, index):
    """'What has Nate cooked?' is about what Nate said, not what was said to him."""
    his = remember("Nate: I made coconut ice cream for the first time, with a vanilla swirl.")
    to_him = remember("Joanna: Hey Nate! I made a dairy-free coconut cake for the family.")
    remember("Joanna: The weather has been lovely this week.")
    index(alice)

    result = recall(alice, "what desserts has Nate made?", k=3)

    assert hit_for(result, his).components["named"] == ["Nate"]
    assert "named" not in hit_for(result, to_him).components
    assert Mention.objects.get(memory=to_him, entity__normalized="nate").addressed
