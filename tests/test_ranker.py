"""The learned ranker (issue 26): its features are read from what recall's steps found, its
weights are the shipped ones, a setting switches it (off: the steps' hand-tuned sum decides),
and the candidates keep the steps' scores, handed out in the ranker's order."""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import timezone

from memories.recall import Query, _gather, _rows, candidates, ranker, recall


@pytest.fixture
def household(alice, remember, index):
    for text in (
        "The plumber Zoltan fixes the boiler on Tuesday",
        "Boiler service costs 120 pounds a year",
        "Mia's violin lesson moved to Thursday afternoon",
        "The garden shed roof leaks when it rains",
    ):
        remember(text)
    index(alice)
    return alice


def test_the_shipped_weights_are_for_these_features():
    model = ranker.weights()
    assert len(model["coef"]) == len(ranker.NAMES) == len(model["mean"]) == len(model["scale"])
    assert "bench/train_ranker.py" in model["trained_by"]


def test_features_come_from_what_the_steps_found(household):
    ids, matrix = candidates(Query(household, "who fixes the boiler"))
    row = dict(zip(ranker.NAMES, matrix[ids.index(min(ids))], strict=True))  # Zoltan's, first

    assert matrix.shape == (len(ids), len(ranker.NAMES)) and np.isfinite(matrix).all()
    assert row["keyword"] > 0 and row["measured"] == 1.0 and row["similarity"] > 0
    assert row["coverage"] == 1.0  # "fixes" and "boiler" are both in its words
    assert matrix[:, ranker.NAMES.index("lifted_place")].max() == 1.0  # the first place


def test_words_leave_common_ones_and_a_plural_out():
    assert ranker.words("The tiles and the Boiler were there") == {"tile", "boiler"}


def test_the_setting_switches_the_ranker_on_and_off(household, settings):
    settings.TALKINGROCK_RECALL = {**settings.TALKINGROCK_RECALL, "ranker": True}
    on = recall(household, "boiler service cost")
    settings.TALKINGROCK_RECALL = {**settings.TALKINGROCK_RECALL, "ranker": False}
    off = recall(household, "boiler service cost")

    assert all("ranker" in hit.components for hit in on.hits)
    assert not any("ranker" in hit.components for hit in off.hits)
    assert (
        on.hits[0].memory.content
        == off.hits[0].memory.content
        == ("Boiler service costs 120 pounds a year")
    )


def test_the_candidates_keep_the_steps_scores_in_the_rankers_order(household):
    query, at = Query(household, "who fixes the boiler"), timezone.now()
    found = _gather(query, at)
    rows = _rows(query, list(found.pool.score), at)

    learned = ranker.relevance(found.pool, rows, query.text)

    assert sorted(learned.values()) == sorted(found.pool.score[i] for i in rows)
    probability = {i: found.pool.parts[i]["ranker"] for i in rows}
    in_order = sorted(learned, key=lambda i: -learned[i])
    assert [probability[i] for i in in_order] == sorted(probability.values(), reverse=True)
