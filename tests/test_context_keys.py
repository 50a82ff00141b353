"""Contextual keys (issue 12): each memory of a conversation or session has a second key, itself
with the two memories told before it, built on the write path and on reembed, rebuilt when a
neighbour is edited or deleted, kept within the member's own memories; recall scores a memory by
the better of its two keys. Real embedding model, real sqlite-vec."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.core.management import call_command

from memories import context, housekeeping, indexing, services, vector_search, vectors
from memories.recall import recall
from talkingrock import embeddings

START = datetime(2026, 5, 2, 18, 0, tzinfo=UTC)
CHAT = [
    "which sofa are we getting, the navy velvet or the green corduroy",
    "hmm tough one",
    "the blue one!! deffo",
    "ok ordering it tonight",
]


def own(memory_id: int) -> np.ndarray:
    [(_, blob)] = vector_search.own_vectors([memory_id]).values()
    return np.frombuffer(blob, dtype=np.float32)


def key(memory_id: int) -> np.ndarray | None:
    blob = vector_search.context_vectors([memory_id]).get(memory_id)
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


def expected(memory, *before) -> np.ndarray:
    return context.key_of(own(memory.pk), [own(m.pk) for m in before])


@pytest.fixture
def chat(alice, remember, index):
    turns = [
        remember(text, session="sofa", happened_at=START + timedelta(minutes=i))
        for i, text in enumerate(CHAT)
    ]
    index(alice)
    return turns


def test_each_turn_after_the_first_has_a_key_of_itself_and_the_two_before(chat):
    first, second, third, fourth = chat
    assert key(first.pk) is None  # nothing was said before it
    np.testing.assert_allclose(key(second.pk), expected(second, first), atol=1e-6)
    np.testing.assert_allclose(key(third.pk), expected(third, first, second), atol=1e-6)
    np.testing.assert_allclose(key(fourth.pk), expected(fourth, second, third), atol=1e-6)


def test_a_memory_outside_any_conversation_or_session_has_no_key(alice, remember, index):
    lone = remember("the boiler service is booked for october")
    index(alice)
    assert key(lone.pk) is None


def test_editing_a_turn_rebuilds_the_keys_whose_window_holds_it(alice, chat, index):
    first, second, third, fourth = chat
    before = key(fourth.pk)
    services.memory_update(owner=alice, memory_id=second.pk, content="tough one, both are nice")
    index(alice)
    np.testing.assert_allclose(key(third.pk), expected(third, first, second), atol=1e-6)
    np.testing.assert_allclose(key(fourth.pk), expected(fourth, second, third), atol=1e-6)
    assert not np.allclose(key(fourth.pk), before)


def test_deleting_a_turn_rebuilds_the_keys_after_it(
    alice, chat, django_capture_on_commit_callbacks
):
    first, second, third, fourth = chat
    with django_capture_on_commit_callbacks(execute=True):
        services.memory_delete(owner=alice, memory_id=second.pk)
    assert vector_search.context_vectors([second.pk]) == {}  # its own key went with it
    np.testing.assert_allclose(key(third.pk), expected(third, first), atol=1e-6)
    np.testing.assert_allclose(key(fourth.pk), expected(fourth, first, third), atol=1e-6)


def test_reembed_builds_them_and_the_migrate_guard_builds_missing_ones(alice, chat):
    vector_search.replace_context_vectors([], removed=[m.pk for m in chat])
    assert vector_search.context_vector_count() == 0
    assert housekeeping.ensure_context_keys() == 3
    np.testing.assert_allclose(key(chat[2].pk), expected(chat[2], *chat[:2]), atol=1e-6)

    vector_search.replace_context_vectors([], removed=[m.pk for m in chat])
    call_command("reembed", "--all", verbosity=0)
    assert vector_search.context_vector_count(owner_id=alice.pk) == 3


def test_a_key_holds_only_its_own_members_turns(alice, bob, remember, index):
    mine = remember("which sofa, navy or green", session="sofa", happened_at=START)
    remember("my sofa is red", owner=bob, session="sofa", happened_at=START + timedelta(seconds=30))
    reply = remember("the blue one", session="sofa", happened_at=START + timedelta(minutes=1))
    index()
    np.testing.assert_allclose(key(reply.pk), expected(reply, mine), atol=1e-6)
    assert vector_search.context_vector_count(owner_id=bob.pk) == 0


def test_recall_scores_a_short_turn_by_the_better_of_its_two_keys(alice, chat, settings):
    query = "what colour sofa did we pick"
    vector = embeddings.embed_one(query)
    reply = chat[2]
    own_similarity = float(own(reply.pk) @ vector)
    key_similarity = float(key(reply.pk) @ vector)
    assert key_similarity > own_similarity  # "the blue one" means more with the question before it

    found = recall(alice, query, k=4)
    hit = next(hit for hit in found.hits if hit.memory_id == reply.pk)
    assert hit.components["meaning"]["similarity"] == pytest.approx(key_similarity, abs=1e-4)

    settings.TALKINGROCK_RECALL = settings.TALKINGROCK_RECALL | {"context_keys": False}
    alone = recall(alice, query, k=4)
    hit = next(hit for hit in alone.hits if hit.memory_id == reply.pk)
    assert hit.components["meaning"]["similarity"] == pytest.approx(own_similarity, abs=1e-4)


def test_sqlite_vec_and_the_in_memory_copy_agree_with_context_keys(alice, chat):
    vector = embeddings.embed_one("what colour sofa did we pick")
    ids = [m.pk for m in chat]
    mine = vectors.nearest(vectors.partition(alice.pk), vector=vector, k=4, context=True)
    theirs = vector_search.nearest(
        owner_id=alice.pk, vector=embeddings.to_blob(vector), k=4, context=True
    )
    assert [i for i, _ in mine] == [i for i, _ in theirs]
    for (_, a), (_, b) in zip(mine, theirs, strict=True):
        assert a == pytest.approx(b, abs=1e-5)
    near = vectors.distances(vectors.partition(alice.pk), vector=vector, ids=ids, context=True)
    far = vector_search.distances(
        owner_id=alice.pk, vector=embeddings.to_blob(vector), ids=ids, context=True
    )
    assert near == pytest.approx(far, abs=1e-5)


def test_the_keys_are_the_same_whichever_part_of_a_chat_is_indexed_first(alice, remember):
    """Two worker processes index the two parts of a member's memories side by side
    (indexing.parts), so a turn may be embedded before the turn told just before it: the keys
    come out as if the whole chat had been indexed at once, whichever part goes first."""
    turns = [
        remember(text, session="sofa", happened_at=START + timedelta(minutes=i))
        for i, text in enumerate(CHAT)
    ]
    assert {turn.pk % 2 for turn in turns} == {0, 1}
    indexing.index_memories(owner_id=alice.pk, part=1)
    assert vector_search.own_vectors([t.pk for t in turns if t.pk % 2 == 0]) == {}
    indexing.index_memories(owner_id=alice.pk, part=0)
    first, second, third, fourth = turns
    assert key(first.pk) is None
    np.testing.assert_allclose(key(second.pk), expected(second, first), atol=1e-6)
    np.testing.assert_allclose(key(third.pk), expected(third, first, second), atol=1e-6)
    np.testing.assert_allclose(key(fourth.pk), expected(fourth, second, third), atol=1e-6)
