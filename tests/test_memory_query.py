"""memory_query: the seed's sanitiser, the ranking formula, the FTS-first plan, the match
budget, and the promise that any text at all gets an answer rather than an exception."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories import search, services
from memories.models import Memory

# --- the six sanitiser steps, one at a time ----------------------------------------------------


def test_urls_are_stripped():
    assert search.sanitise("see https://example.org/a?b=1 and www.x.com/y now").terms == (
        "see",
        "and",
        "now",
    )


def test_hyphenated_words_are_split():
    assert search.sanitise("well-known follow-up").terms == ("well", "known", "follow", "up")


def test_punctuation_and_fts5_operators_characters_are_dropped():
    sanitised = search.sanitise('content:"boiler" (NEAR) ^service* +x')
    assert sanitised.terms == ("content", "boiler", "NEAR", "service")


def test_one_character_tokens_are_dropped():
    assert search.sanitise("a b cd e fg").terms == ("cd", "fg")


def test_each_word_is_quoted_and_the_words_are_ored():
    assert search.sanitise("boiler AND service").match == '"boiler" OR "AND" OR "service"'


def test_repeated_words_are_searched_once():
    assert search.sanitise("Boiler boiler BOILER").terms == ("Boiler",)


def test_a_very_long_query_keeps_its_first_words_and_says_so(alice, remember):
    remember("word05 is here")
    words = " ".join(f"word{n:02}" for n in range(40))

    result = services.memory_query(owner=alice, query=words)

    assert len(result.terms) == search.MAX_TERMS
    assert f"first {search.MAX_TERMS} distinct words" in result.message
    assert [m.content for m, _ in result.hits] == ["word05 is here"]


# --- the ranking formula ----------------------------------------------------------------------


def fts5_bm25(*, rows: int, hits: int, frequency: float, tokens: int, average: float) -> float:
    """FTS5's bm25 for one term, written out from fts5_aux.c (k1 = 1.2, b = 0.75)."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf * frequency * 2.2 / (frequency + 1.2 * (0.25 + 0.75 * tokens / average))


def test_the_rank_is_bm25_times_score_weight_times_recency_as_computed_by_hand(alice, remember):
    now = timezone.now()
    # Five memories; every one has the source "agent" (one more token each) and no tags.
    target = remember("apple pie recipe", source="agent")  # 3 + 1 tokens
    for text in ("banana bread", "carrot cake", "dried figs", "plum jam"):  # 2 + 1 tokens each
        remember(text, source="agent")
    Memory.objects.filter(pk=target.pk).update(score=3, created_at=now - timedelta(days=10))

    [(memory, hit)] = services.memory_query(owner=alice, query="apple", now=now).hits

    bm25 = fts5_bm25(rows=5, hits=1, frequency=1.0, tokens=4, average=16 / 5)
    score_weight = math.exp(0.2 * 3)
    recency = 1 / (1 + 0.01 * 10)
    assert memory == target
    assert hit.bm25 == pytest.approx(bm25, rel=1e-9)
    assert hit.score_weight == pytest.approx(score_weight)
    assert hit.recency == pytest.approx(recency)
    assert hit.days == pytest.approx(10)
    assert hit.rank == pytest.approx(bm25 * score_weight * recency, rel=1e-9)
    assert hit.factors == {
        "bm25": pytest.approx(bm25, rel=1e-5),
        "score_weight": pytest.approx(score_weight, rel=1e-5),
        "recency": pytest.approx(recency, rel=1e-5),
        "days": pytest.approx(10),
    }


def test_tags_weigh_double_the_text(alice, remember):
    in_tags = remember("Ordered on Tuesday", tags="bicycle")
    in_text = remember("Ordered the bicycle")

    ranked = [m for m, _ in services.memory_query(owner=alice, query="bicycle").hits]

    assert ranked == [in_tags, in_text]


def test_reinforcing_lifts_a_memory_above_an_equal_one_and_demoting_sinks_it(alice, remember):
    first = remember("Parking permit renewal form")
    second = remember("Parking permit renewal letter")

    def order():
        return [m.pk for m, _ in services.memory_query(owner=alice, query="parking permit").hits]

    services.memory_reinforce(owner=alice, memory_id=first.pk)
    assert order() == [first.pk, second.pk]
    for _ in range(4):  # −4 outweighs +3
        services.memory_demote(owner=alice, memory_id=first.pk)
    assert order() == [second.pk, first.pk]


def test_recency_counts_from_the_last_useful_moment_else_from_storing(alice, remember):
    now = timezone.now()
    memory = remember("Window cleaner every second Friday")
    Memory.objects.filter(pk=memory.pk).update(
        created_at=now - timedelta(days=100), last_hit_at=now - timedelta(days=4)
    )

    [(_, hit)] = services.memory_query(owner=alice, query="window cleaner", now=now).hits

    assert hit.days == pytest.approx(4)
    assert hit.recency == pytest.approx(1 / 1.04)


def test_querying_never_changes_a_score_or_a_hit_count(alice, remember):
    memory = remember("Recycling goes out on Thursday")

    services.memory_query(owner=alice, query="recycling")

    memory.refresh_from_db()
    assert (memory.score, memory.hit_count, memory.last_hit_at) == (0, 0, None)


def test_drafts_under_review_are_not_found(alice, remember):
    remember("Draft about the allotment", status=Memory.Status.DRAFT)

    assert services.memory_query(owner=alice, query="allotment").hits == []


def test_archived_memories_are_found_only_when_asked(alice, remember):
    memory = remember("The old router password was on the fridge")
    services.memory_archive(owner=alice, memory_id=memory.pk)

    assert services.memory_query(owner=alice, query="router").hits == []
    [(found, _)] = services.memory_query(owner=alice, query="router", include_archived=True).hits
    assert found == memory


# --- the query plan ---------------------------------------------------------------------------


def test_the_keyword_query_scans_the_fts_index_first_and_fetches_memories_by_key(alice):
    for include_archived in (False, True):
        plan = search.explain_keyword_search(
            owner_id=alice.pk, match='"boiler"', include_archived=include_archived
        )

        assert plan[0].startswith(f"SCAN memory_fts_{alice.pk} VIRTUAL TABLE"), plan
        assert any(
            step.startswith("SEARCH m USING INTEGER PRIMARY KEY (rowid=?)") for step in plan
        ), plan
        assert not any("INDEX memory_owner" in step for step in plan), plan


def test_a_conversations_rows_and_a_sessions_are_read_through_their_own_indexes(alice):
    # recall's neighbour and conversation steps read every row of each conversation or session
    # a candidate is in: a conversation's from one covering index (dozens of rows each once
    # messages are evidence), a session's through (owner, session), not by walking every row
    # the member has (965 ms against 23 for 40k memories in sessions).
    for include_archived in (False, True):
        plan = search.explain_conversation_order(
            owner_id=alice.pk, include_archived=include_archived
        )

        assert any(
            step.startswith("SEARCH m USING COVERING INDEX memory_conversation_told")
            for step in plan
        ), plan
        assert any(
            step.startswith("SEARCH m USING INDEX memory_owner_session (owner_id=? AND session=?)")
            for step in plan
        ), plan


# --- the match budget -------------------------------------------------------------------------


def test_a_word_in_too_many_memories_is_left_out_and_named(alice, remember, monkeypatch):
    monkeypatch.setattr(search, "MATCH_BUDGET", 5)
    for n in range(8):
        remember(f"The note number {n}")
    wanted = remember("The dentist is on Harley Street")

    result = services.memory_query(owner=alice, query="the dentist")

    assert result.terms == ("dentist",)
    assert result.dropped == ("the",)
    assert "left out: the." in result.message
    assert [m for m, _ in result.hits] == [wanted]


def test_specific_words_are_all_kept(alice, remember, monkeypatch):
    monkeypatch.setattr(search, "MATCH_BUDGET", 5)
    remember("Dentist on Harley Street")
    remember("Optician on Baker Street")

    result = services.memory_query(owner=alice, query="dentist optician")

    assert result.terms == ("dentist", "optician") and result.dropped == ()
    assert len(result.hits) == 2 and not result.message


def test_a_query_of_only_very_common_words_still_searches_the_first_of_them(
    alice, remember, monkeypatch
):
    # Counting stops at the budget, so past it every word looks alike: the first one written wins.
    monkeypatch.setattr(search, "MATCH_BUDGET", 2)
    for n in range(5):
        remember(f"Shopping list {n} with milk")

    result = services.memory_query(owner=alice, query="milk shopping list", limit=10)

    assert result.terms == ("milk",) and result.dropped == ("shopping", "list")
    assert len(result.hits) == 5


def test_the_budget_counts_only_the_callers_own_matches(alice, bob, remember, monkeypatch):
    monkeypatch.setattr(search, "MATCH_BUDGET", 3)
    for n in range(4):
        remember(f"Bob's garden plan {n}", owner=bob)
    mine = remember("My garden shed")

    result = services.memory_query(owner=alice, query="garden shed")

    # Bob's four gardens are not alice's business: for her "garden" is as rare as "shed".
    assert result.dropped == ()
    assert [m for m, _ in result.hits] == [mine]


# --- any text gets an answer ------------------------------------------------------------------

NASTY = [
    "",
    "   ",
    '"',
    'unbalanced "quote',
    "content:boiler",
    "tags:* OR source:agent",
    "NEAR(boiler service, 2)",
    "boiler AND NOT service",
    "^boiler*",
    "(((",
    "🔥🏠 boiler 🔧",
    "東京 の 地図",
    "مرحبا بالعالم",
    "עברית ימין לשמאל",
    "null\x00byte and \x01\x02 control \x7f",
    "boiler " * 900,
    "x" * 5000,
    "-",
    "--boiler--",
    "'; DROP TABLE memories_memory; --",
    "\\u0000 %s %(name)s {0}",
]


@pytest.mark.parametrize("query", NASTY)
def test_any_query_gets_results_or_an_empty_list_with_a_message(alice, remember, query):
    remember("The boiler service is due in October")

    result = services.memory_query(owner=alice, query=query)

    assert isinstance(result.hits, list)
    assert result.hits or result.message


@pytest.fixture
def stocked(alice, remember):
    for text in ("The boiler service is due in October", "Ünïcode café 東京", "x y z"):
        remember(text, tags="home")
    return alice


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=300) | st.sampled_from(NASTY).flatmap(lambda s: st.just(s + " ")))
def test_arbitrary_text_never_raises(stocked, text):
    result = services.memory_query(owner=stocked, query=text, include_archived=True)

    assert isinstance(result.hits, list)
    assert result.hits or result.message
