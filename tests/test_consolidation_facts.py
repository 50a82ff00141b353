"""Per-fact consolidation (issue 15, seed 002): create, update with a history row, skip; offline
and with the scripted Ollama; repeat-safe; and the observations in recall and in the context
string, with "previously"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core.management import call_command
from django.db import connection
from django.db.models import F

from memories import insights, tasks
from memories.acts import ensure_your_story
from memories.consolidation import context, facts, runs, store, temporal
from memories.consolidation import sql as consolidation_sql
from memories.consolidation.runs import Run
from memories.housekeeping import missing_triggers
from memories.models import (
    ConsolidationRun,
    Entity,
    Memory,
    Mention,
    Observation,
    ObservationChange,
    content_hash,
)
from memories.recall import recall
from talkingrock import embeddings
from tests.support.processes import ended_process, running_process


def day(n: int) -> datetime:
    return datetime(2026, 2, 1, 9, tzinfo=UTC) + timedelta(days=n)


def consolidate(member, **options):
    return facts.consolidate_member(member.pk, use_model=False, **options)


def test_two_facts_on_one_entity_make_an_observation_whose_history_shows_the_change(alice, fact):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    fact(
        "priya moved over to backend, she's leading the API rewrite now", day(20), relation="state"
    )

    summary = consolidate(alice)

    observation = Observation.objects.get(owner=alice)
    assert summary == {"skip": 1, "create": 1} or summary == {"create": 1, "taken": 1}
    assert observation.text == "priya moved over to backend, she's leading the API rewrite now"
    assert observation.entity.normalized == "priya" and observation.evidence_count == 2
    changes = list(observation.changes.values_list("kind", "previous_text"))
    assert changes == [("created", ""), ("updated", "Priya leads the mobile app team.")]
    assert not store.pending(alice.pk).exists()


def test_a_later_fact_updates_the_observation_and_an_agreeing_one_enriches_it(alice, fact):
    fact("The school pickup is at 3pm", day(0), subject="pickup", relation="time")
    fact("school pickup 3pm again today", day(2), subject="pickup", relation="time")
    consolidate(alice)
    observation = Observation.objects.get(owner=alice)
    assert observation.evidence_count == 2

    fact(
        "From next week the school pickup moves to 3:30pm.",
        day(9),
        subject="pickup",
        relation="time",
    )
    assert consolidate(alice) == {"update": 1}

    observation.refresh_from_db()
    assert observation.text == "From next week the school pickup moves to 3:30pm."
    latest = observation.changes.filter(kind=ObservationChange.Kind.UPDATED).get()
    assert latest.previous_text in {"The school pickup is at 3pm", "school pickup 3pm again today"}
    assert list(latest.facts.values_list("content", flat=True)) == [observation.text]


def test_a_lone_fact_waits_for_a_second_and_a_fact_about_nothing_is_skipped(alice, fact):
    fact("Mia's piano teacher is Mrs Okafor.", day(0), relation="state")
    fact("had a lovely quiet evening", day(1))
    progress: list[str] = []

    assert consolidate(alice, progress=progress.append) == {"skip": 2}
    assert not Observation.objects.exists()
    assert any("waiting for a second" in line for line in progress)
    assert any("No entity or subject" in line for line in progress)
    assert Memory.objects.filter(owner=alice, consolidated_at=None).count() == 0

    fact("Mia switched piano teachers, it's Mr Lindqvist now", day(30), relation="state")
    assert consolidate(alice) == {"create": 1}
    assert Observation.objects.get().facts.count() == 2


def test_an_earlier_value_learnt_late_is_history_not_the_current_state(alice, fact):
    fact("Tom works nights at the depot.", day(10), relation="state")
    fact("Tom switched to day shifts at the depot.", day(40), relation="state")
    consolidate(alice)
    fact("back in january tom was still on weekends at the depot", day(0), relation="state")
    consolidate(alice)
    observation = Observation.objects.get()
    assert observation.text == "Tom switched to day shifts at the depot."
    assert observation.evidence_count == 3


def test_another_members_facts_never_join(alice, bob, fact):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    fact("Priya moved to the backend team.", day(20), owner=bob, relation="state")
    consolidate(alice)
    consolidate(bob)
    assert not Observation.objects.exists()  # one lone fact each


def test_a_second_run_for_the_same_member_waits_for_the_first(alice, fact):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    with Run.start(alice.pk, Run.CONSOLIDATE) as first:
        assert first is not None
        assert facts.consolidate_member(alice.pk, use_model=False) == {"busy": 1}
    assert store.pending(alice.pk).count() == 1
    consolidate(alice)
    runs = ConsolidationRun.objects.filter(owner=alice, kind="consolidate")
    assert runs.count() == 2 and all(run.finished_at for run in runs)
    # Nothing waits now: the schedule's next asks record nothing.
    assert consolidate(alice) == {} and runs.count() == 2
    assert store.pending_owner_ids() == set()


def test_a_run_whose_process_ended_is_closed_and_taken_over_at_once(alice, fact):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    fact("priya moved over to backend", day(5), relation="state")
    ConsolidationRun.objects.create(owner=alice, kind="consolidate", worker=ended_process())

    assert "busy" not in consolidate(alice)

    dead, taken_over = ConsolidationRun.objects.filter(owner=alice).order_by("pk")
    assert dead.finished_at is not None and "stopped" in dead.error
    assert taken_over.finished_at is not None and taken_over.error == ""
    assert store.pending(alice.pk).count() == 0
    assert insights.pass_status(alice.pk)[0].state == "done"


def test_a_run_whose_process_runs_is_left_to_finish(alice, fact):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    ConsolidationRun.objects.create(owner=alice, kind="consolidate", worker=running_process())

    assert consolidate(alice) == {"busy": 1}
    assert insights.pass_status(alice.pk)[0].state == "running"


def test_a_starting_worker_queues_the_passes_a_dead_one_left(alice, bob, fact, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks, "async_task", lambda *args, **kwargs: queued.append(args))
    ConsolidationRun.objects.create(owner=alice, kind="temporal", worker=ended_process())
    ConsolidationRun.objects.create(owner=bob, kind="consolidate", worker=running_process())

    tasks.resume_on_spawn()

    assert queued == [("memories.tasks.resume_pass", "temporal", alice.pk)]
    assert ConsolidationRun.objects.get(owner=alice).error == runs.DIED


# --- with the scripted Ollama -------------------------------------------------------------------


def test_the_model_creates_updates_and_skips(alice, fact, ollama):
    fact("Alice joined the backend team in March.", day(0))
    ollama.answer(
        {
            "action": "create",
            "observation_id": None,
            "text": "Alice is shifting from mobile to backend engineering.",
            "reason": "a new role",
        }
    )
    assert facts.consolidate_member(alice.pk, use_model=True) == {"create": 1}
    observation = Observation.objects.get()
    assert observation.kind == Observation.Kind.PATTERN and observation.engine.startswith("ollama")

    fact("Alice is reviewing the API rewrite.", day(5))
    ollama.answer(
        {
            "action": "update",
            "observation_id": observation.pk,
            "text": "Alice has moved from mobile to backend engineering.",
            "reason": "more evidence of the move",
        }
    )
    assert facts.consolidate_member(alice.pk, use_model=True) == {"update": 1}
    prompt = ollama.chats[-1]["messages"][1]["content"]
    assert f"[observation {observation.pk}]" in prompt and "2026-02-01" in prompt
    assert "higher level of abstraction" in ollama.chats[-1]["messages"][0]["content"]

    fact("lol the coffee machine broke again", day(6))
    ollama.answer({"action": "skip", "observation_id": None, "text": "", "reason": "small talk"})
    assert facts.consolidate_member(alice.pk, use_model=True) == {"skip": 1}
    observation.refresh_from_db()
    assert observation.text == "Alice has moved from mobile to backend engineering."
    assert observation.changes.filter(kind="updated").get().previous_text == (
        "Alice is shifting from mobile to backend engineering."
    )


def test_broken_json_or_a_made_up_id_falls_back_to_the_offline_rule(alice, fact, ollama):
    fact("Priya leads the mobile app team.", day(0), relation="state")
    fact("Priya moved to the backend team.", day(20), relation="state")
    ollama.answer(
        "{not json",
        "still not json",
        {"action": "update", "observation_id": 424242, "text": "made up", "reason": "?"},
    )
    summary = facts.consolidate_member(alice.pk, use_model=True)
    assert sum(summary.values()) == 2 and "update" not in summary
    observation = Observation.objects.get()
    assert (
        observation.engine == "offline" and observation.text == "Priya moved to the backend team."
    )


def test_two_things_about_one_person_are_two_histories_not_one(alice, fact):
    # Issue 22: "Maya's dentist appointment … previously: Maya does school pickup" chained two
    # things about Maya as one history.
    fact("Maya does school pickup on mon tue thu.", day(0), subject="pickup", relation="time")
    fact("Maya's dentist appointment is on the 8th.", day(3), subject="dentist", relation="time")
    fact("maya does pickup on wednesdays now too", day(9), subject="pickup", relation="time")

    consolidate(alice)

    for observation in Observation.objects.filter(owner=alice):
        told = [observation.text, *observation.changes.values_list("previous_text", flat=True)]
        about = {"dentist" in text for text in told if text}
        assert len(about) == 1, told  # never the dentist and the pickup in one history


def test_the_model_may_not_chain_another_subject_into_a_history(alice, fact, ollama):
    fact("Maya's dentist appointment is on the 8th.", day(0), subject="dentist", relation="time")
    fact("maya's dentist moved to the 9th", day(2), subject="dentist", relation="time")
    consolidate(alice)
    dentist = Observation.objects.get(owner=alice)

    fact("Maya does school pickup on mon tue thu.", day(5), subject="pickup", relation="time")
    ollama.answer(
        {
            "action": "update",
            "observation_id": dentist.pk,
            "text": "Maya's dentist is on the 9th; she does pickup mon tue thu.",
            "reason": "both about Maya",
        }
    )
    facts.consolidate_member(alice.pk, use_model=True)

    dentist.refresh_from_db()
    assert "pickup" not in dentist.text
    assert not dentist.changes.filter(facts__content__icontains="pickup").exists()


# --- reading observations back ------------------------------------------------------------------


def test_the_context_string_carries_previously_with_the_month_it_changed(alice, fact):
    fact("Alice is the mobile app lead.", day(0), relation="state")
    fact("Alice leads the backend rewrite.", day(14), relation="state")
    consolidate(alice)

    found = context.search(alice.pk, embeddings.embed_one("what does Alice work on?"))
    assert [hit.line for hit in found] == [
        '- Alice leads the backend rewrite. (previously: "Alice is the mobile app lead.", '
        "changed Feb 2026)"
    ]


def test_recall_returns_the_observations_that_bear_on_the_query_and_only_the_members(
    alice, bob, fact
):
    fact("Alice is the mobile app lead.", day(0), relation="state")
    fact("Alice leads the backend rewrite.", day(14), relation="state")
    consolidate(alice)

    mine = recall(alice, "who leads the backend rewrite?")
    assert [hit.observation.owner_id for hit in mine.observations] == [alice.pk]
    assert 'previously: "Alice is the mobile app lead."' in mine.context
    assert recall(bob, "who leads the backend rewrite?").observations == []
    assert recall(alice, "backend rewrite", observations=False).observations == []


def test_used_observations_restart_their_decay(alice, fact):
    fact("Alice is the mobile app lead.", day(0), relation="state")
    fact("Alice leads the backend rewrite.", day(14), relation="state")
    consolidate(alice)
    hits = context.search(alice.pk, embeddings.embed_one("Alice backend"))
    context.mark_used(hits)
    observation = Observation.objects.get()
    assert observation.hit_count == 1 and observation.last_hit_at is not None


def test_the_observation_index_and_vector_triggers_come_back_after_migrate(alice, fact):
    # As a table remake leaves them (TECH_NOTES §2.1): every trigger on the table gone.
    with connection.cursor() as cursor:
        for name in consolidation_sql.TRIGGERS:
            cursor.execute(f"DROP TRIGGER {name}")
    assert missing_triggers(ddl=consolidation_sql) == list(consolidation_sql.TRIGGERS)
    fact("Alice is the mobile app lead.", day(0), relation="state")
    fact("Alice leads the backend rewrite.", day(14), relation="state")
    consolidate(alice)  # written while the trigger was gone: the rebuild indexes it

    call_command("migrate", verbosity=0)

    assert missing_triggers(ddl=consolidation_sql) == []
    found = consolidation_sql.matching_observations(owner_id=alice.pk, match="backend", limit=5)
    assert found == [Observation.objects.get().pk]


def test_a_member_with_over_a_thousand_entities_is_read_in_one_query_each(alice):
    """A prefetch of mentions__entity asks SQLite for one OR per entity, past its expression
    depth of 1,000 at this size (found by bench/consolidation.py at 100k memories)."""
    story = ensure_your_story(owner=alice)
    rows = [
        Memory(
            owner=alice,
            act=story,
            content=f"Met person{n} at the market.",
            content_hash=content_hash(f"Met person{n} at the market."),
            kind=Memory.Kind.FACT,
            happened_at=day(n % 60),
        )
        for n in range(1001)
    ]
    rows = Memory.objects.bulk_create(rows)
    Memory.objects.filter(owner=alice).update(indexed_hash=F("content_hash"))
    people = Entity.objects.bulk_create(
        [Entity(owner=alice, name=f"Person{n}", normalized=f"person{n}") for n in range(1001)]
    )
    Mention.objects.bulk_create(
        [Mention(entity=e, memory=m, surface=e.name) for e, m in zip(people, rows, strict=True)]
    )

    read = list(store.with_mentions(store.facts_of(alice.pk)))
    window = temporal.recent_facts(alice.pk, day(90))

    assert len(read) == 1001 and {m.entity_id for f in read for m in f.mentions.all()} == {
        e.pk for e in people
    }
    assert len(window) == 1001
