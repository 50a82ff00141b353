"""Each member's keyword index follows their rows through triggers, holds nothing of anyone
else's, and a guard puts it back together when a table remake has dropped the triggers
(TECH_NOTES §2.1)."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection, models

from memories import search, services, sql
from memories.housekeeping import (
    integrity_check,
    missing_member_objects,
    missing_triggers,
    restore_fts_triggers,
)
from memories.models import Memory


def fts_ids(owner, match: str) -> list[int]:
    return search.indexed_ids(owner_id=owner.pk, match=match)


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


def tables() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in cursor.fetchall()}


def test_a_new_member_gets_an_index_and_its_triggers(alice):
    assert missing_triggers() == []
    assert missing_member_objects(alice.pk) == []
    assert sql.member_fts(alice.pk) in tables()


def test_a_stored_memory_is_indexed_by_content_tags_and_source(alice, remember):
    memory = remember("The boiler hums", tags="heating", source="agent")

    assert fts_ids(alice, "boiler") == fts_ids(alice, "heating") == [memory.pk]
    assert memory.pk in fts_ids(alice, "agent")
    assert integrity_check(alice.pk) == []


def test_a_members_index_holds_only_their_rows(alice, bob, remember):
    mine, bobs = remember("Alice's boiler"), remember("Bob's boiler", owner=bob)

    assert fts_ids(alice, "boiler") == [mine.pk]
    assert fts_ids(bob, "boiler") == [bobs.pk]
    assert integrity_check(alice.pk) == integrity_check(bob.pk) == []


def test_an_update_replaces_the_indexed_text(alice, remember):
    memory = remember("The boiler hums", tags="heating")

    services.memory_update(owner=alice, memory_id=memory.pk, content="The kettle sings", tags="tea")

    assert fts_ids(alice, "boiler") == fts_ids(alice, "heating") == []
    assert fts_ids(alice, "kettle") == fts_ids(alice, "tea") == [memory.pk]
    assert integrity_check(alice.pk) == []


def test_changing_the_score_leaves_the_index_alone(alice, remember):
    memory = remember("The boiler hums")
    index = sql.member_fts(alice.pk)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {index}_idx")
        segments_before = cursor.fetchone()[0]

    services.memory_reinforce(owner=alice, memory_id=memory.pk)
    services.memory_archive(owner=alice, memory_id=memory.pk)

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {index}_idx")
        assert cursor.fetchone()[0] == segments_before
    assert fts_ids(alice, "boiler") == [memory.pk]


def test_a_deleted_memory_leaves_the_index_and_takes_its_vector_with_it(alice, remember):
    memory, other = remember("The boiler hums"), remember("The boiler clicks")
    add_vector(memory)
    add_vector(other)

    services.memory_delete(owner=alice, memory_id=memory.pk)

    assert fts_ids(alice, "boiler") == [other.pk]
    assert vector_ids() == [other.pk]
    assert integrity_check(alice.pk) == []


def test_removing_a_member_removes_their_index_and_vectors(alice, bob, remember):
    mine, bobs = remember("Alice's boiler"), remember("Bob's boiler", owner=bob)
    add_vector(mine)
    add_vector(bobs)
    gone = bob.pk

    bob.delete()

    assert sql.member_fts(gone) not in tables()
    assert not any(name.startswith(sql.member_fts(gone)) for name in tables())
    assert fts_ids(alice, "boiler") == [mine.pk]
    assert vector_ids() == [mine.pk]
    assert integrity_check(alice.pk) == []


def test_the_guard_restores_a_dropped_trigger_and_indexes_what_it_missed(alice, remember):
    name = f"{sql.member_fts(alice.pk)}_ai"
    drop_trigger(name)
    missed = remember("Stored while the trigger was gone")
    assert fts_ids(alice, "trigger") == []

    assert restore_fts_triggers() == [name]

    assert missing_member_objects(alice.pk) == []
    assert fts_ids(alice, "trigger") == [missed.pk]
    assert integrity_check(alice.pk) == []


def test_a_search_builds_a_missing_index_first(alice, remember):
    memory = remember("The boiler hums")
    with connection.cursor() as cursor:
        for statement in sql.drop_member_index(alice.pk):
            cursor.execute(statement)

    assert [m for m, _ in services.memory_query(owner=alice, query="boiler").hits] == [memory]
    assert missing_member_objects(alice.pk) == []


def test_migrate_runs_the_guard(alice, remember):
    for name in [*sql.TRIGGERS, *sql.member_triggers(alice.pk)]:
        drop_trigger(name)  # what Django's table remake does
    missed = remember("Stored during a table remake")

    call_command("migrate", verbosity=0)

    assert missing_triggers() == [] and missing_member_objects(alice.pk) == []
    assert fts_ids(alice, "remake") == [missed.pk]


@pytest.mark.django_db(transaction=True)
def test_a_real_table_remake_drops_the_triggers_and_the_guard_brings_them_back(
    django_user_model,
):
    member = django_user_model.objects.create_user("zed", password="x")
    kept = services.memory_store(owner=member, content="The boiler hums")
    tags = Memory._meta.get_field("tags")
    wider = models.CharField(max_length=600, blank=True)
    wider.set_attributes_from_name("tags")
    wider.model = Memory

    with connection.schema_editor() as editor:
        editor.alter_field(Memory, tags, wider)  # CREATE new, copy, DROP, RENAME
    assert missing_member_objects(member.pk) != []
    assert set(restore_fts_triggers()) >= set(sql.member_triggers(member.pk))

    after = services.memory_store(owner=member, content="The boiler clicks")
    assert fts_ids(member, "boiler") == [kept.pk, after.pk]
    assert integrity_check(member.pk) == []
    with connection.schema_editor() as editor:
        editor.alter_field(Memory, wider, tags)
    restore_fts_triggers()


def test_the_reindex_command_restores_and_rebuilds(alice, remember, capsys):
    drop_trigger(f"{sql.member_fts(alice.pk)}_au")

    call_command("memories", "reindex")

    assert f"{sql.member_fts(alice.pk)}_au" in capsys.readouterr().out
    assert missing_member_objects(alice.pk) == []
    assert integrity_check(alice.pk) == []
