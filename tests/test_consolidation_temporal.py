"""The temporal pass (issue 15, seed 002): trends, transitions, cycles and correlations in an
entity's recent facts, offline and with the scripted Ollama; a re-run writes nothing twice, a
pattern close to a live observation enriches it, and a member's facts stay theirs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memories.consolidation import prompts, store, temporal
from memories.models import ConsolidationRun, Memory, Observation, ObservationChange
from talkingrock import embeddings

Kind = Observation.Kind
NOW = datetime(2026, 3, 10, 20, tzinfo=UTC)


def on(month: int, day: int, year: int = 2026) -> datetime:
    return datetime(year, month, day, 9, tzinfo=UTC)


@pytest.fixture
def runs(fact):
    """Sam's parkrun, every Saturday in February, slower each time."""
    return [
        fact("Sam's parkrun time was 24 mins flat, v happy", on(2, 7), relation="5k time"),
        fact("sam's parkrun was 26 min, said his knee was sore", on(2, 14), relation="5k time"),
        fact("parkrun w sam this morning, he did 27mins. windy af", on(2, 21), relation="5k time"),
        fact("Sam ran 29 minutes at parkrun, slowest since xmas", on(2, 28), relation="5k time"),
    ]


@pytest.fixture
def sleep(runs, fact):
    """Sam's sleep in the same four weeks, on other days, worse each time."""
    return [
        fact("sam slept 7.5 hours, first decent night in ages", on(2, 4), relation="sleep"),
        fact("Sam's sleep tracker says 7 hrs", on(2, 10), relation="sleep"),
        fact("sam sleeping badly - 6.5hrs", on(2, 19), relation="sleep"),
        fact("sam barely slept, 6 hours maybe", on(2, 23), relation="sleep"),
    ]


@pytest.fixture
def background(fact):
    """The rest of the household's winter, one thing at a time, in six other weeks."""
    return [
        fact("boiler service booked w British Gas", on(12, 2, 2025), subject="boiler"),
        fact("bins go out thurs now not fri", on(12, 9, 2025), subject="bins"),
        fact("xmas food shop at Tesco, £180 ugh", on(12, 16, 2025), subject="shopping"),
        fact("car MOT due end of jan", on(1, 6), subject="car"),
        fact("dentist for the kids on the 20th", on(1, 13), subject="dentist"),
        fact("gran's birthday do at the Red Lion", on(1, 20), subject="gran"),
    ]


@pytest.fixture
def piano(fact):
    """Mia's piano lessons: Tuesdays, and one practice at grandma's on a Thursday."""
    return [
        fact("Mia's piano lesson w Mrs Kaur, 4pm", on(2, 3), relation="piano"),
        fact("piano for mia today, she's nailed her scales", on(2, 10), relation="piano"),
        fact("mia had piano after school, new piece - fur elise", on(2, 17), relation="piano"),
        fact("mia practised piano at grandmas for ages", on(2, 26), relation="piano"),
        fact("Mia's piano lesson, mrs kaur thinks grade 1 by june", on(3, 3), relation="piano"),
    ]


@pytest.fixture
def priya(fact):
    return [
        fact("Priya leads the mobile app team at work", on(1, 12), relation="role"),
        fact("priya still running the mobile app team, v busy w the release", on(1, 28),
             relation="role"),
        fact("priya's moved to the backend rewrite, leading it since feb", on(2, 16),
             relation="role"),
    ]  # fmt: skip


def temporal_pass(member, **options):
    return temporal.temporal_member(member.pk, use_model=False, now=NOW, **options)


def observations(member, kind=None):
    found = Observation.objects.filter(owner=member)
    return list(found.filter(kind=kind) if kind else found)


def test_a_number_moving_one_way_is_a_trend_with_its_facts_as_sources(alice, runs, sleep):
    summary = temporal_pass(alice)

    fell, rose = sorted(observations(alice, Kind.TREND), key=lambda o: o.relation)
    assert rose.text == (
        "Sam's 5k time rose from 24 to 29 minutes between 7 Feb and 28 Feb 2026 (4 facts)."
    )
    assert set(rose.facts.all()) == set(runs) and rose.evidence_count == 4
    assert rose.entity.name == "Sam" and rose.subject == "sam" and rose.relation == "minute"
    assert (
        fell.text == "Sam's sleep fell from 7.5 to 6 hours between 4 Feb and 23 Feb 2026 (4 facts)."
    )
    assert set(fell.facts.all()) == set(sleep) and fell.entity_id == rose.entity_id
    assert summary["trend"] == 2 and summary["entities"] == 1
    run = ConsolidationRun.objects.get(owner=alice, kind=ConsolidationRun.Pass.TEMPORAL)
    assert run.summary == summary and run.finished_at is not None and run.engine == "offline"


def test_a_value_replaced_on_one_relation_is_a_transition(alice, priya):
    temporal_pass(alice)

    (transition,) = observations(alice, Kind.TRANSITION)
    assert transition.text == (
        "Priya's role went from “Priya leads the mobile app team at work” to “priya's moved to "
        "the backend rewrite, leading it since feb” (changed Feb 2026)."
    )
    assert set(transition.facts.all()) == set(priya) and transition.relation == "role"


def test_a_superseded_fact_is_a_change_even_when_it_reads_much_the_same(alice, fact):
    first = fact("school pickup is at 3:15", on(11, 20, 2025), subject="school pickup",
                 relation="time")  # fmt: skip
    same = fact("pickup still 3.15, after-school club on weds", on(12, 3, 2025),
                subject="school pickup", relation="time")  # fmt: skip
    later = fact("school pickup moved to 3:30 from jan", on(12, 18, 2025),
                 subject="school pickup", relation="time")  # fmt: skip
    temporal_pass(alice)
    assert not observations(alice, Kind.TRANSITION)  # restated values, close in meaning

    Memory.objects.filter(pk=same.pk).update(valid_to=later.happened_at, superseded_by=later)
    temporal_pass(alice)

    (transition,) = observations(alice, Kind.TRANSITION)
    assert transition.text == (
        "school pickup's time went from “school pickup is at 3:15” to “school pickup moved to "
        "3:30 from jan” (changed Dec 2025)."
    )
    assert set(transition.facts.all()) == {first, same, later} and transition.entity is None


def test_facts_on_the_same_weekday_in_different_weeks_are_a_cycle(alice, piano):
    temporal_pass(alice)

    (cycle,) = observations(alice, Kind.CYCLE)
    assert cycle.text == (
        "Mia's piano falls on Tuesdays (4 of 5 dated facts, in 4 different weeks)."
    )
    assert set(cycle.facts.all()) == {piano[0], piano[1], piano[2], piano[4]}
    assert cycle.entity.name == "Mia" and cycle.relation == "piano"


def test_two_threads_whose_facts_come_in_the_same_weeks_correlate(alice, sleep, background):
    runs = list(Memory.objects.filter(owner=alice, relation="5k time"))
    summary = temporal_pass(alice)

    (correlation,) = observations(alice, Kind.CORRELATION)
    assert correlation.text == (
        "Sam's 5k time and Sam's sleep come up in the same weeks: 4 shared weeks, of 4 and 4 "
        "(about 1.6 if they were unrelated, over 10 weeks with facts)."
    )
    assert set(correlation.facts.all()) == {*runs, *sleep}
    assert not set(correlation.facts.all()) & set(background)
    assert summary["correlation"] == 1


def test_weeks_full_of_everything_are_no_correlation(alice, sleep):
    """Without the other weeks, every week the member wrote in has both: chance, not a pattern."""
    temporal_pass(alice)
    assert not observations(alice, Kind.CORRELATION)


def test_a_rerun_writes_nothing_new_and_a_pattern_that_moved_on_is_updated(
    alice, fact, sleep, background, piano, priya
):
    first = temporal_pass(alice)
    written = {o.pk: o.text for o in observations(alice)}
    changes = ObservationChange.objects.count()
    assert {"trend", "transition", "cycle", "correlation"} <= first.keys()

    again = temporal_pass(alice)

    assert {o.pk: o.text for o in observations(alice)} == written
    assert ObservationChange.objects.count() == changes
    assert set(again) == {"entities", "unchanged"}

    slower = fact("sam did 31 mins at parkrun today, legs gone", on(3, 7), relation="5k time")
    moved = temporal_pass(alice)

    trend = Observation.objects.get(owner=alice, kind=Kind.TREND, relation="minute")
    assert trend.pk in written and len(observations(alice)) == len(written)
    assert trend.text.startswith("Sam's 5k time rose from 24 to 31 minutes between 7 Feb and 7 Mar")
    assert slower in trend.facts.all() and moved["updated"] >= 1
    last = trend.changes.order_by("-changed_at", "-id").first()
    assert last.kind == "updated" and last.previous_text == written[trend.pk]


def test_a_dismissed_pattern_stays_dismissed(alice, fact, runs):
    temporal_pass(alice)
    Observation.objects.filter(owner=alice, kind=Kind.TREND).update(dismissed=True)
    fact("sam 31 mins, walked the last km", on(3, 7), relation="5k time")

    summary = temporal_pass(alice)

    (trend,) = observations(alice, Kind.TREND)
    assert trend.dismissed and "29 minutes" in trend.text and summary["dismissed"] == 1


def test_a_pattern_close_to_a_live_observation_enriches_it_instead(alice, runs):
    earlier = store.create(
        alice.pk,
        store.Draft("Sam's 5k time rose from 24 to 29 minutes over February 2026.", Kind.PATTERN),
        runs[:1],
        engine="ollama:llama3.2:3b",
    )
    pattern = "Sam's 5k time rose from 24 to 29 minutes between 7 Feb and 28 Feb 2026 (4 facts)."
    vectors = embeddings.embed([earlier.text, pattern])
    assert float(vectors[0] @ vectors[1]) > 0.90

    summary = temporal_pass(alice)

    assert not observations(alice, Kind.TREND)
    earlier.refresh_from_db()
    assert set(earlier.facts.all()) == set(runs) and earlier.evidence_count == 4
    assert earlier.changes.filter(kind="enriched").count() == 1
    assert summary["enriched"] == 1 and "trend" not in summary
    assert temporal_pass(alice) == {"entities": 1, "unchanged": 2}  # the trend and the cycle


def test_an_entity_with_fewer_than_three_recent_facts_is_left_alone(alice, fact):
    for month, day, degrees in ((10, 1, 90), (10, 15, 100), (10, 29, 110)):  # before the window
        fact(f"Dr Novak says knee bends {degrees} degrees", on(month, day, 2025), relation="knee")
    fact("physio w Dr Novak, knee bend 115 degrees", on(2, 5), relation="knee")
    fact("dr novak pleased, 120 degrees now", on(2, 19), relation="knee")

    summary = temporal_pass(alice)

    assert not observations(alice) and "entities" not in summary


def test_another_members_facts_never_join(alice, bob, fact):
    fact("Sam's parkrun 24 mins", on(2, 7), relation="5k time")
    fact("sam's parkrun 26 mins", on(2, 14), relation="5k time")
    bobs = [
        fact("Sam's 5k was 30 mins", on(2, 8), owner=bob, relation="5k time"),
        fact("sam did 28 mins", on(2, 15), owner=bob, relation="5k time"),
        fact("Sam: 27 minutes, pb!", on(2, 22), owner=bob, relation="5k time"),
    ]

    assert temporal_pass(alice) == {}
    temporal_pass(bob)

    assert not observations(alice)
    (trend,) = observations(bob, Kind.TREND)
    assert set(trend.facts.all()) == set(bobs) and trend.entity.owner == bob
    assert "fell from 30 to 27" in trend.text


def test_the_model_names_an_entitys_patterns_from_its_facts_in_time_order(alice, runs, ollama):
    ollama.answer(
        {
            "patterns": [
                {"kind": "trend", "text": "Sam's parkrun times crept up through February."},
                {"kind": "cycle", "text": "Sam runs parkrun every Saturday morning."},
            ]
        }
    )

    summary = temporal.temporal_member(alice.pk, now=NOW)  # Ollama answers: the model is used

    trend, cycle = (observations(alice, kind)[0] for kind in (Kind.TREND, Kind.CYCLE))
    assert trend.text == "Sam's parkrun times crept up through February."
    assert trend.engine == "ollama:llama3.2:3b" and set(trend.facts.all()) == set(runs)
    assert cycle.entity.name == "Sam" and set(cycle.facts.all()) == set(runs)
    assert summary == {"entities": 1, "trend": 1, "cycle": 1}
    (request,) = ollama.chats
    assert request["format"] == prompts.TEMPORAL_SCHEMA
    prompt = request["messages"][1]["content"]
    assert prompt.index("2026-02-07 Sat: Sam's parkrun time was 24 mins flat") < prompt.index(
        "2026-02-28 Sat: Sam ran 29 minutes at parkrun"
    )

    ollama.answer(
        {
            "patterns": [
                {"kind": "trend", "text": "Sam's parkrun is getting slower, 24 to 29 minutes."},
                {"kind": "cycle", "text": "Sam runs parkrun every Saturday morning."},
            ]
        }
    )
    again = temporal.temporal_member(alice.pk, now=NOW)

    assert len(observations(alice)) == 2 and again == {
        "entities": 1,
        "updated": 1,
        "unchanged": 1,
    }
    trend.refresh_from_db()
    assert trend.text == "Sam's parkrun is getting slower, 24 to 29 minutes."


def test_broken_json_from_the_model_falls_back_to_the_offline_rules(alice, runs, ollama):
    ollama.answer("not json at all", '{"patterns": [{"kind": "trend"')

    summary = temporal.temporal_member(alice.pk, use_model=True, now=NOW)

    assert len(ollama.chats) == 2 and summary["fallback"] == 1
    (trend,) = observations(alice, Kind.TREND)
    assert trend.engine == "offline" and set(trend.facts.all()) == set(runs)
    assert trend.text.startswith("Sam's 5k time rose from 24 to 29 minutes")
