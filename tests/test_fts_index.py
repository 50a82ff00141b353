"""The keyword index follows the memories table through triggers, and a guard puts the triggers
back when a table remake has dropped them (TECH_NOTES §2.1)."""

from __future__ import annotations

import numpy as np
from django.core.management import call_command
from django.db import connection

from memories import services, sql
from memories.housekeeping import missing_triggers, restore_fts_triggers
from memories.models import Memory


def fts_ids(match: str) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rowid FROM memory_fts WHERE memory_fts MATCH %s ORDER BY rowid", [match]
        )
        return [row[0] for row in cursor.fetchall()]


def integrity_check() -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql.INTEGRITY_CHECK_FTS)  # raises "database disk image is malformed"


def vector_ids() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT rowid FROM memory_vec ORDER BY rowid")
        return [row[0] for row in cursor.fetchall()]


def add_vector(memory: Memory) -> None:
    blob = np.ones(sql.EMBEDDING_DIMENSIONS, dtype=np.float32).tobytes()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memory_vec(rowid, owner_id, embedding) VALUES (%s, %s, %s)",
            [memory.pk, memory.owner_id, blob],
        )


def drop_trigger(name: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER {name}")


def test_the_three_triggers_exist_after_migrations(db):
    assert missing_triggers() == []


def test_a_stored_memory_is_indexed_by_content_tags_and_source(remember):
    memory = remember("The boiler hums", tags="heating", source="agent")

    assert fts_ids("boiler") == fts_ids("heating") == [memory.pk]
    assert memory.pk in fts_ids("agent")


def test_an_update_replaces_the_indexed_text(alice, remember):
    memory = remember("The boiler hums", tags="heating")

    services.memory_update(owner=alice, memory_id=memory.pk, content="The kettle sings", tags="tea")

    assert fts_ids("boiler") == fts_ids("heating") == []
    assert fts_ids("kettle") == fts_ids("tea") == [memory.pk]
    integrity_check()


def test_changing_the_score_leaves_the_index_alone(alice, remember):
    memory = remember("The boiler hums")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_fts_idx")
        segments_before = cursor.fetchone()[0]

    services.memory_reinforce(owner=alice, memory_id=memory.pk)
    services.memory_archive(owner=alice, memory_id=memory.pk)

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_fts_idx")
        assert cursor.fetchone()[0] == segments_before
    assert fts_ids("boiler") == [memory.pk]


def test_a_deleted_memory_leaves_the_index_and_takes_its_vector_with_it(alice, remember):
    memory, other = remember("The boiler hums"), remember("The boiler clicks")
    add_vector(memory)
    add_vector(other)

    services.memory_delete(owner=alice, memory_id=memory.pk)

    assert fts_ids("boiler") == [other.pk]
    assert vector_ids() == [other.pk]
    integrity_check()


def test_removing_a_member_clears_their_index_rows_and_vectors(alice, bob, remember):
    mine, bobs = remember("Alice's boiler"), remember("Bob's boiler", owner=bob)
    add_vector(mine)
    add_vector(bobs)

    bob.delete()

    assert fts_ids("boiler") == [mine.pk]
    assert vector_ids() == [mine.pk]
    integrity_check()


def test_the_guard_restores_a_dropped_trigger_and_indexes_what_it_missed(remember):
    drop_trigger("memory_fts_ai")
    missed = remember("Stored while the trigger was gone")
    assert fts_ids("trigger") == []

    assert restore_fts_triggers() == ["memory_fts_ai"]

    assert missing_triggers() == []
    assert fts_ids("trigger") == [missed.pk]
    integrity_check()


def test_migrate_runs_the_guard(remember):
    for name in sql.TRIGGERS:
        drop_trigger(name)  # what Django's table remake does
    missed = remember("Stored during a table remake")

    call_command("migrate", verbosity=0)

    assert missing_triggers() == []
    assert fts_ids("remake") == [missed.pk]


def test_the_reindex_command_restores_and_rebuilds(remember, capsys):
    drop_trigger("memory_fts_au")

    call_command("memories", "reindex")

    assert "memory_fts_au" in capsys.readouterr().out
    assert missing_triggers() == []
    integrity_check()
