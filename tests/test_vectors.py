"""Each process's copy of a member's vectors gives exactly sqlite-vec's answer, and follows every
write and delete made by any process."""

from __future__ import annotations

import numpy as np
import pytest
from django.conf import settings
from django.test import override_settings

from memories import services, vector_search, vectors
from memories.models import VectorClock
from memories.recall import recall
from talkingrock import embeddings

TEXTS = [
    "The boiler is serviced every October.",
    "Sam is allergic to peanuts.",
    "Our automobile needs new tyres.",
    "Piano lessons are on Tuesdays.",
    "The spare key is under the flowerpot.",
    "Grandma's birthday is in June.",
]


@pytest.fixture
def stored(alice, remember, index):
    memories = [remember(text) for text in TEXTS]
    index(alice)
    return memories


def query(text: str) -> np.ndarray:
    return embeddings.embed_one(text)


def test_the_copy_answers_exactly_what_sqlite_vec_answers(alice, stored):
    for text in ("car repairs", "food allergy", "when is the birthday"):
        vector = query(text)
        mine = vectors.nearest(vectors.partition(alice.pk), vector=vector, k=4)
        theirs = vector_search.nearest(owner_id=alice.pk, vector=embeddings.to_blob(vector), k=4)

        assert [i for i, _ in mine] == [i for i, _ in theirs]
        assert np.allclose([d for _, d in mine], [d for _, d in theirs], atol=1e-5)


def test_distances_match_sqlite_vec(alice, stored):
    vector = query("heating")
    ids = [m.pk for m in stored[:3]]

    mine = vectors.distances(vectors.partition(alice.pk), vector=vector, ids=ids)
    theirs = vector_search.distances(owner_id=alice.pk, vector=embeddings.to_blob(vector), ids=ids)

    assert mine.keys() == theirs.keys()
    assert all(abs(mine[i] - theirs[i]) < 1e-5 for i in ids)


def test_a_new_memory_is_seen_by_the_next_search(alice, stored, remember, index):
    vectors.nearest(vectors.partition(alice.pk), vector=query("x"), k=1)  # the copy is made
    tick = VectorClock.objects.get(owner=alice).tick

    new = remember("The dishwasher filter needs cleaning.")
    index(alice)

    assert VectorClock.objects.get(owner=alice).tick == tick + 1
    [(found, _)] = vectors.nearest(vectors.partition(alice.pk), vector=query("dishwasher"), k=1)
    assert found == new.pk


def test_an_edited_memory_is_searched_by_its_new_meaning(alice, stored, index):
    tyres = stored[2]
    vectors.nearest(vectors.partition(alice.pk), vector=query("x"), k=1)

    services.memory_update(owner=alice, memory_id=tyres.pk, content="We adopted a kitten.")
    index(alice)

    [(found, _)] = vectors.nearest(vectors.partition(alice.pk), vector=query("new pet cat"), k=1)
    assert found == tyres.pk
    assert vectors.partition(alice.pk).size == len(TEXTS)  # replaced, not added


def test_a_deleted_memory_is_never_found_again(alice, stored):
    vectors.nearest(vectors.partition(alice.pk), vector=query("x"), k=1)
    allergy = stored[1]

    services.memory_delete(owner=alice, memory_id=allergy.pk)

    found = [
        i for i, _ in vectors.nearest(vectors.partition(alice.pk), vector=query("peanuts"), k=6)
    ]
    assert allergy.pk not in found and len(found) == len(TEXTS) - 1


def test_each_member_has_their_own_copy(alice, bob, remember, index):
    mine = remember("Same words in two homes.")
    theirs = remember("Same words in two homes.", owner=bob)
    index()

    assert (
        vectors.nearest(vectors.partition(alice.pk), vector=query("same words"), k=5)[0][0]
        == mine.pk
    )
    assert (
        vectors.nearest(vectors.partition(bob.pk), vector=query("same words"), k=5)[0][0]
        == theirs.pk
    )


def test_recall_ranks_the_same_with_either_search(alice, stored):
    for text in ("car repairs", "when is the birthday", "keys"):
        in_memory = [h.memory_id for h in recall(alice, text, k=6).hits]
        with override_settings(
            TALKINGROCK_RECALL={**_recall_settings(), "vector_search": "sqlite-vec"}
        ):
            direct = [h.memory_id for h in recall(alice, text, k=6).hits]
        assert in_memory == direct


def _recall_settings():
    return settings.TALKINGROCK_RECALL


def _unit_rows(count: int, seed: int) -> np.ndarray:
    """Vectors shaped like sentence embeddings: most of their length on a few directions."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(count, 24)) @ rng.normal(size=(24, embeddings.DIMENSIONS))
    rows += 0.05 * rng.normal(size=rows.shape)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_a_large_partition_is_searched_in_two_passes_with_the_exact_answer(monkeypatch):
    """Past TWO_PASS_ROWS the scan reads reduced coordinates first, then scores a shortlist
    exactly: the same nearest as reading every vector whole, for rows written before and after
    the reduction."""
    monkeypatch.setattr(vectors, "TWO_PASS_ROWS", 1_000)
    monkeypatch.setattr(vectors, "SHORTLIST", 300)
    own, keys = _unit_rows(3_000, seed=1), _unit_rows(3_000, seed=2)
    part = vectors.Partition.empty(tick=0, deletions=0)
    part.put([(i + 1, own[i].tobytes(), keys[i].tobytes()) for i in range(2_500)])
    assert part.basis is not None and part.basis.shape == (embeddings.DIMENSIONS, vectors.REDUCED)
    # Rows written once it is reduced: new ones, and one replaced.
    part.put([(i + 1, own[i].tobytes(), keys[i].tobytes()) for i in range(2_500, 3_000)])
    part.put([(7, own[2_999].tobytes(), None)])
    stored_own, stored_keys = own.copy(), keys.copy()
    stored_own[6], stored_keys[6] = own[2_999], own[2_999]

    for seed in range(5):
        asked = _unit_rows(1, seed=100 + seed)[0]
        whole = np.maximum(stored_own @ asked, stored_keys @ asked)
        expected = [int(i) + 1 for i in np.argsort(-whole, kind="stable")[:20]]
        found = vectors.nearest(part, vector=asked, k=20, context=True)
        assert [memory_id for memory_id, _ in found] == expected
    [(nearest_to_it, _)] = vectors.nearest(part, vector=own[2_999], k=1)
    assert nearest_to_it in (7, 3_000)
