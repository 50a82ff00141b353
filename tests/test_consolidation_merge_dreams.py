"""The daily observation merge and dream pass (seed 002, issue 15), on the real embedding model
and real SQLite: recursive pairwise merging that only joins what says the same thing, and
dreams that bridge distant clusters of a member's facts with evidence from both."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from django.utils import timezone

from memories import services, tasks
from memories.consolidation import clusters, dream_rules, dreams, merge, sql, store
from memories.models import ConsolidationRun, Dream, Entity, Memory, Mention, Observation
from talkingrock.language.values import conflicts

MILO_TUESDAY = "Milo has swimming lessons on Tuesdays at 5pm at the leisure centre."
MILO_EVERY_TUESDAY = "Milo's swimming lesson is every Tuesday at 5pm at the leisure centre."
MILO_THURSDAY = "Milo has swimming lessons on Thursdays at 5pm at the leisure centre."

# Three areas of one life, written the way people jot things down, with the days they happened.
KITCHEN = [
    ("2026-02-23", "Picked sage green for the kitchen cabinet doors after far too many samples."),
    ("2026-03-02", "Ordered the oak worktops for the kitchen: £1,450 from Timberline."),
    ("2026-03-09", "Fitters ripped out the old kitchen units; we're washing up in the bath."),
    ("2026-03-12", "Electrician moved the kitchen sockets so the island finally has power."),
    ("2026-03-16", "Tiler says the kitchen splashback needs another day, the wall isn't straight."),
    ("2026-03-20", "Kitchen remodel budget is now £18,000, up from the £15,000 we planned."),
]
SLEEP = [
    ("2026-02-20", "Bought blackout curtains because the streetlight keeps me awake at night."),
    ("2026-02-28", "slept nine hours straight on saturday!! first time in months"),
    ("2026-03-03", "Started taking magnesium before bed to see if it helps me sleep."),
    ("2026-03-12", "Woke at 3am again and couldn't get back to sleep."),
    ("2026-03-17", "My sleep tracker says I'm averaging five and a half hours a night."),
    ("2026-03-25", "Doctor suggested no screens for an hour before bed to fix my sleep."),
]
DOG = [
    ("2026-01-15", "Biscuit had his booster jabs at the vet, £62 with the worming tablets."),
    ("2026-01-25", "Took Biscuit to the beach at Camber - he chased gulls for an hour."),
    ("2026-02-02", "Biscuit has started limping on his back left leg after the park."),
    ("2026-02-09", "Vet thinks Biscuit's limp is a sprain; two weeks of short lead walks."),
    ("2026-03-16", "Biscuit barked at the tiler all morning and then slept under the table."),
    ("2026-03-20", "Signed Biscuit up for puppy agility classes on Wednesday evenings."),
]
NOW = timezone.make_aware(datetime(2026, 4, 1, 9, 0))


def fact(owner, content, when=None):
    return services.memory_store(
        owner=owner, content=content, kind=Memory.Kind.FACT, happened_at=when
    )


def observation(owner, text, *, evidence, entity=None, relation="swimming"):
    facts = [fact(owner, f"{text} (noted {n + 1})") for n in range(evidence)]
    draft = store.Draft(
        text,
        subject=entity.normalized if entity else "",
        relation=relation,
        entity_id=entity.pk if entity else None,
    )
    return store.create(owner.pk, draft, facts, engine="offline")


def person(owner, name):
    return Entity.objects.create(owner=owner, name=name, normalized=name.lower(), kind="person")


@pytest.fixture
def household_facts(alice):
    made = [fact(alice, text, when) for area in (KITCHEN, SLEEP, DOG) for when, text in area]
    tasks.index_memories(alice.pk)
    return made


def cluster_of(found: clusters.Clusters) -> dict[int, int]:
    return {f.pk: int(label) for f, label in zip(found.facts, found.labels, strict=True)}


# --- the merge ----------------------------------------------------------------------------------


def test_of_three_close_observations_only_the_two_that_agree_merge(alice):
    milo = person(alice, "Milo")
    older = observation(alice, MILO_TUESDAY, evidence=1, entity=milo)
    keeper = observation(alice, MILO_EVERY_TUESDAY, evidence=2, entity=milo)
    thursday = observation(alice, MILO_THURSDAY, evidence=1, entity=milo)
    said = []

    summary = merge.merge_member(alice.pk, use_model=False, progress=said.append)

    # Tuesday/Thursday is the closest pair of all (one word apart) and is kept apart; then the
    # two Tuesdays merge; then the merged one is weighed against Thursday again and kept apart.
    assert summary["merged"] == 1 and summary["kept_apart"] == 2
    assert summary["pairs_considered"] == 3
    assert said[0].startswith("kept") and "weekday" in said[0]
    assert set(store.live(alice.pk)) == {keeper, thursday}
    older.refresh_from_db()
    keeper.refresh_from_db()
    assert older.merged_into == keeper  # the one with more evidence keeps, though it is newer
    assert keeper.text == MILO_EVERY_TUESDAY and keeper.evidence_count == 3
    history = list(keeper.changes.values_list("kind", "new_text"))
    assert ("created", MILO_TUESDAY) in history  # the other's history moved over
    assert history[-1][0] == "merged"
    assert ConsolidationRun.objects.get(owner=alice, kind="merge").summary == summary


def test_on_equal_evidence_the_older_observation_keeps(alice):
    milo = person(alice, "Milo")
    older = observation(alice, MILO_TUESDAY, evidence=1, entity=milo)
    newer = observation(alice, MILO_EVERY_TUESDAY, evidence=1, entity=milo)
    assert merge.merge_member(alice.pk, use_model=False)["merged"] == 1
    newer.refresh_from_db()
    assert newer.merged_into == older and list(store.live(alice.pk)) == [older]


def test_the_same_words_about_another_person_or_relation_stay_apart(alice):
    milo, ada = person(alice, "Milo"), person(alice, "Ada")
    observation(alice, "Swimming lessons are on Tuesdays at 5pm.", evidence=1, entity=milo)
    observation(alice, "Swimming lessons are on Tuesdays at 5pm.", evidence=1, entity=ada)
    observation(
        alice, "Swimming lessons are on Tuesdays at 5pm.", evidence=2, entity=milo, relation="pay"
    )
    summary = merge.merge_member(alice.pk, use_model=False)
    assert summary == {
        "merged": 0,
        "kept_apart": 3,
        "pairs_considered": 3,
        "observations": 3,
    }  # every pair is judged once, and the loop ends
    assert store.live(alice.pk).count() == 3


def test_values_conflict_by_kind_and_agree_across_spellings():
    assert conflicts("Pickup is at 5pm on Tuesdays", "Pickup is Tuesday at 17:00") == []
    assert conflicts("Rent is £950 a month", "Rent is £1,050 a month") == [
        "amount 950 against 1050"
    ]
    assert conflicts("Bins go out on 3 March", "Bins go out on March 4th")
    assert conflicts("Milo likes broccoli", "Milo doesn't like broccoli")
    assert conflicts("Dentist at 9am", "Dentist on 12 May at 9am") == []  # more detail only


def test_the_model_writes_the_merged_text_and_is_not_trusted_with_new_values(alice, ollama):
    milo = person(alice, "Milo")
    first = observation(alice, MILO_TUESDAY, evidence=1, entity=milo)
    observation(alice, MILO_EVERY_TUESDAY, evidence=1, entity=milo)
    ollama.answer(
        {
            "action": "merge",
            "text": "Milo swims at the leisure centre every Tuesday at 5pm.",
            "reason": "Both say the same lesson.",
        }
    )
    assert merge.merge_member(alice.pk, use_model=True)["merged"] == 1
    first.refresh_from_db()
    assert first.text == "Milo swims at the leisure centre every Tuesday at 5pm."
    assert first.engine == "ollama:llama3.2:3b"
    assert "Observation A" in ollama.chats[0]["messages"][1]["content"]

    ravi = person(alice, "Ravi")
    observation(alice, "Ravi comes round after school on Fridays.", evidence=1, entity=ravi)
    kept = observation(
        alice, "Ravi comes round after school every Friday.", evidence=2, entity=ravi
    )
    invented = {"action": "merge", "text": "Ravi comes round at 4pm on Fridays.", "reason": "x"}
    ollama.answer(invented)  # states a time neither says: falls back to the offline rule
    assert merge.merge_member(alice.pk, use_model=True)["merged"] == 1
    kept.refresh_from_db()
    assert kept.text == "Ravi comes round after school every Friday." and kept.engine == "offline"


def test_the_merge_never_joins_another_members_observation(alice, bob):
    milo, bobs_milo = person(alice, "Milo"), person(bob, "Milo")
    mine = observation(alice, MILO_TUESDAY, evidence=1, entity=milo)
    theirs = observation(bob, MILO_TUESDAY, evidence=3, entity=bobs_milo)
    assert merge.merge_member(alice.pk, use_model=False)["pairs_considered"] == 0
    assert merge.merge_member(bob.pk, use_model=False)["pairs_considered"] == 0
    assert set(Observation.objects.filter(merged_into=None)) == {mine, theirs}


# --- dreams -------------------------------------------------------------------------------------


def test_k_means_is_the_same_twice_under_the_fixed_seed(alice, household_facts):
    first, second = clusters.clusters_of(alice.pk), clusters.clusters_of(alice.pk)
    assert first.k == clusters.k_for(18) == 3
    assert cluster_of(first) == cluster_of(second)
    assert first.pairs() == second.pairs()
    assert [clusters.k_for(n) for n in (12, 50, 288, 5000)] == [2, 5, 12, 12]


def test_offline_dreams_bridge_two_clusters_with_evidence_from_both(alice, household_facts):
    summary = dreams.dream_member(alice.pk, use_model=False, now=NOW)
    found = list(Dream.objects.filter(owner=alice).prefetch_related("facts_a", "facts_b"))
    assert 1 <= len(found) <= 3 and summary["dreams"] == len(found)
    labels = cluster_of(clusters.clusters_of(alice.pk))
    for dream in found:
        side_a, side_b = list(dream.facts_a.all()), list(dream.facts_b.all())
        assert len({labels[f.pk] for f in side_a}) == 1 and len({labels[f.pk] for f in side_b}) == 1
        assert labels[side_a[0].pk] != labels[side_b[0].pk]  # two clusters, not one
        assert any(f.content[:20] in dream.text for f in side_a)  # names its evidence
        assert any(f.content[:20] in dream.text for f in side_b)
        assert dream.engine == "offline" and 0 < dream.score <= 1
        assert f"= score {dream.score:.2f}" in dream.reason and "apart" in dream.reason
        assert sql.vectors("dream", owner_id=alice.pk, ids=[dream.pk])  # embedded
    used = [f.pk for dream in found for f in (*dream.facts_a.all(), *dream.facts_b.all())]
    assert len(used) == len(set(used))  # no fact behind two dreams


def test_dreams_are_not_dreamt_twice_and_respect_dreams_max(alice, household_facts, settings):
    settings.TALKINGROCK_CONSOLIDATION = {**settings.TALKINGROCK_CONSOLIDATION, "dreams_max": 1}
    assert dreams.dream_member(alice.pk, use_model=False, now=NOW)["dreams"] == 1
    again = dreams.dream_member(alice.pk, use_model=False, now=NOW)
    assert again["dreams"] == 0 and again["already_dreamt"] == 1
    assert Dream.objects.filter(owner=alice).count() == 1


def test_a_member_with_few_facts_gets_no_dreams_and_is_told_why(alice):
    for _, text in KITCHEN[:5]:
        fact(alice, text)
    tasks.index_memories(alice.pk)
    summary = dreams.dream_member(alice.pk, use_model=False, now=NOW)
    assert summary == {"facts": 5, "min_facts": 12, "too_few_facts": 1}
    assert not Dream.objects.exists()


def test_the_evaluator_keeps_at_most_three_and_only_valid_numbers(alice, household_facts, ollama):
    ollama.answer(
        {
            "insights": [
                {"text": "Your kitchen works and your broken nights began in the same week."},
                {"text": "You spent £9,999 on sleep gadgets."},  # a figure no fact states
            ]
        },
        {"insights": [{"text": "Biscuit's limp and your sleep tracker both went quiet."}]},
        {
            "insights": [
                {"text": "The tiler upset Biscuit the week your sleep was at its worst."},
                {"text": "Green cabinets, blackout curtains: you are redecorating for rest."},
            ]
        },
        # the evaluator: five kept breaks the schema; the retry names a missing candidate and
        # gives a score that is not a number (NaN passes JSON Schema's minimum and maximum)
        {"kept": [{"number": n, "reason": "r", "score": 0.5} for n in range(1, 6)]},
        '{"kept": [{"number": 9, "reason": "Does not exist.", "score": 0.99},'
        ' {"number": 1, "reason": "Not a number.", "score": NaN},'
        ' {"number": 3, "reason": "The tiler links the dog and the nights.", "score": 0.8}]}',
    )
    summary = dreams.dream_member(alice.pk, use_model=True, now=NOW)
    evaluator = ollama.chats[-1]["messages"][1]["content"]
    assert "9,999" not in evaluator and "Candidate 4:" in evaluator
    assert summary["candidates"] == 4 and summary["evaluator_invalid"] == 2
    (dream,) = Dream.objects.filter(owner=alice)
    assert dream.text.startswith("The tiler upset Biscuit")
    assert dream.engine == "ollama:llama3.2:3b" and dream.score == 0.8
    assert dream.reason.startswith("The tiler links the dog") and "candidate 3 of 4" in dream.reason
    labels = cluster_of(clusters.clusters_of(alice.pk))
    assert {labels[f.pk] for f in dream.facts_a.all()}.isdisjoint(
        {labels[f.pk] for f in dream.facts_b.all()}
    )


def test_the_evaluator_never_keeps_more_than_dreams_max(alice, household_facts, ollama, settings):
    settings.TALKINGROCK_CONSOLIDATION = {**settings.TALKINGROCK_CONSOLIDATION, "dreams_max": 2}
    ollama.answer(
        *[{"insights": [{"text": f"Insight {name} about two areas."}]} for name in "ABC"],
        {"kept": [{"number": n, "reason": f"r{n}", "score": n / 10} for n in (1, 3, 2)]},
    )
    summary = dreams.dream_member(alice.pk, use_model=True, now=NOW)
    assert summary["dreams"] == 2
    kept = sorted(Dream.objects.filter(owner=alice).values_list("text", flat=True))
    assert kept == ["Insight B about two areas.", "Insight C about two areas."]  # best scores


def test_a_failed_evaluator_falls_back_to_the_offline_bridges(alice, household_facts, ollama):
    ollama.answer(*[{"insights": [{"text": f"Insight {n}."}]} for n in range(3)], "{", "{")
    summary = dreams.dream_member(alice.pk, use_model=True, now=NOW)
    assert summary["model_failures"] == 1 and summary["dreams"] >= 1
    assert set(Dream.objects.values_list("engine", flat=True)) == {"offline"}


def test_dreams_never_join_another_members_facts(alice, bob, household_facts):
    theirs = [fact(bob, text, when) for when, text in KITCHEN + SLEEP + DOG]
    tasks.index_memories(bob.pk)
    assert {f.owner_id for f in clusters.clusters_of(alice.pk).facts} == {alice.pk}
    dreams.dream_member(alice.pk, use_model=False, now=NOW)
    dreams.dream_member(bob.pk, use_model=False, now=NOW)
    for dream in Dream.objects.prefetch_related("facts_a", "facts_b"):
        owners = {f.owner_id for f in (*dream.facts_a.all(), *dream.facts_b.all())}
        assert owners == {dream.owner_id}
    assert Dream.objects.filter(owner=bob).exists()
    assert not Dream.objects.filter(owner=alice, facts_a__in=theirs).exists()


def test_a_shared_name_outweighs_a_shared_week_and_each_is_named(alice):
    rose = person(alice, "Grandma Rose")
    money = [
        fact(alice, "Lent Grandma Rose £200 for her boiler repair.", "2026-03-02"),
        fact(alice, "Council tax went up again this April.", "2026-03-04"),
    ]
    health = [
        fact(alice, "Grandma Rose's hip appointment moved to the Royal Sussex.", "2026-03-19"),
        fact(alice, "Physio told me to stretch my calves every morning.", "2026-03-05"),
    ]
    Mention.objects.create(entity=rose, memory=money[0], surface="Grandma Rose")
    Mention.objects.create(entity=rose, memory=health[0], surface="Grandma Rose")
    vectors = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], dtype=np.float32)
    vectors = np.pad(vectors, ((0, 0), (0, 382)))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    facts = Memory.objects.filter(pk__in=[f.pk for f in money + health]).prefetch_related(
        "mentions__entity"
    )
    facts = sorted(facts, key=lambda f: f.pk)
    found = clusters.Clusters(facts, vectors, np.array([0, 0, 1, 1]), vectors[[0, 2]])
    names = ["money", "health"]

    by_name = dream_rules.bridge(found, 0, 1, names, NOW)
    assert by_name.text.startswith("Grandma Rose turns up in both your money and your health")
    assert by_name.score == pytest.approx(1.0 * dream_rules.STRENGTH["entity"])
    Mention.objects.filter(entity=rose).delete()
    facts = [Memory.objects.prefetch_related("mentions__entity").get(pk=f.pk) for f in facts]
    found = clusters.Clusters(facts, vectors, np.array([0, 0, 1, 1]), vectors[[0, 2]])

    by_week = dream_rules.bridge(found, 0, 1, names, NOW)
    assert by_week.text.startswith("Your money and your health share a week:")
    assert "boiler repair” (2 Mar) and “Physio" in by_week.text  # the core fact of each side
    assert "(5 Mar), both in the week of 2 Mar." in by_week.text
    assert "co-occurrence 0.5 (the same week, of 2 Mar)" in by_week.reason
