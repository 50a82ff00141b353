"""The bounded second round (issue 12): the strongest hits' rarest words are searched for once
more, so the other half of a two-part answer joins. Off by default (bench/locomo.py measured no
gain on the development data, docs/benchmarks.md); these tests turn it on."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.recall import recall


def fill(remember):
    first = remember("Priya's new job is at Halvorsen Robotics, she started in March.")
    second = remember("Halvorsen is moving its whole office to Rotterdam next spring.")
    for n in range(8):
        remember(f"Shopping list number {n}: eggs, bread, oat milk and apples.")
    return first, second


def on(settings, **changes):
    settings.TALKINGROCK_RECALL = (
        settings.TALKINGROCK_RECALL
        | {
            "second_round_weight": 0.5,
            "second_round_max_df": 5,
            "second_round_seeds": 1,
        }
        | changes
    )


def test_the_other_half_of_the_answer_joins_through_the_first_hits_rare_word(
    alice, remember, index, settings
):
    first, second = fill(remember)
    index(alice)
    question = "where will Priya's job be next year"

    off = recall(alice, question, k=10)
    assert all("second_round" not in hit.components for hit in off.hits)

    on(settings)
    found = recall(alice, question, k=10)
    joined = {hit.memory_id: hit.components.get("second_round") for hit in found.hits}
    assert joined[second.pk] is not None
    assert "halvorsen" in joined[second.pk]["words"]
    assert joined.get(first.pk) is None  # a seed of the round gains nothing from it


def test_the_second_round_is_one_round_of_bounded_size(alice, remember, index, settings):
    fill(remember)
    index(alice)
    question = "where will Priya's job be next year"
    recall(alice, question, k=10)  # the member's vectors are loaded once, before counting

    def keyword_searches(**changes) -> int:
        on(settings, **changes)
        with CaptureQueriesContext(connection) as queries:
            recall(alice, question, k=10)
        return sum(" MATCH " in query["sql"] for query in queries.captured_queries)

    # One count of the words' matches and one keyword search more: one round, no loop.
    extra = keyword_searches(second_round_words=2, second_round_k=3) - keyword_searches(
        second_round_weight=0.0
    )
    assert extra == 2

    on(settings, second_round_words=2, second_round_k=3)
    found = recall(alice, question, k=10)
    rounds = [
        hit.components["second_round"] for hit in found.hits if "second_round" in hit.components
    ]
    assert len(rounds) <= 3
    assert all(len(part["words"]) <= 2 for part in rounds)
