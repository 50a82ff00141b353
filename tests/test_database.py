"""The SQLite backend: sqlite-vec on every connection, FTS5, the PRAGMAs, and driver errors
turned into Django's own exceptions (TECH_NOTES §3)."""

from __future__ import annotations

import datetime
import decimal

import pytest
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from memories import sql
from memories.models import Act, Memory
from talkingrock.db.base import Database, DatabaseWrapper


@pytest.fixture
def file_connection(tmp_path, django_db_blocker):
    """A second connection of our backend, to a database file (the test database is in memory,
    where WAL and mmap do not apply)."""
    config = {**settings.DATABASES["default"], "NAME": str(tmp_path / "db.sqlite3")}
    wrapper = DatabaseWrapper({**connection.settings_dict, **config}, alias="file")
    with django_db_blocker.unblock():
        wrapper.ensure_connection()
        yield wrapper
        wrapper.close()


def pragma(conn, name: str):
    with conn.cursor() as cursor:
        cursor.execute(f"PRAGMA {name}")
        return cursor.fetchone()[0]


def test_sqlite_vec_answers_through_djangos_connection(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT vec_version()")
        assert cursor.fetchone()[0].startswith("v0.1.9")


def test_vector_search_works_through_djangos_connection(db):
    with connection.cursor() as cursor:
        cursor.execute("CREATE VIRTUAL TABLE t_vec USING vec0(embedding float[2])")
        cursor.execute("INSERT INTO t_vec(rowid, embedding) VALUES (1, '[0, 1]'), (2, '[1, 0]')")
        cursor.execute(
            "SELECT rowid FROM t_vec WHERE embedding MATCH '[0.9, 0.1]' AND k = 1 ORDER BY distance"
        )
        assert cursor.fetchall() == [(2,)]


def test_fts5_with_the_porter_tokenizer_works(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE VIRTUAL TABLE t_fts USING fts5(body, tokenize='porter unicode61 "
            "remove_diacritics 2')"
        )
        cursor.execute("INSERT INTO t_fts(body) VALUES ('Servicing the boilers'), ('a café')")
        cursor.execute("SELECT body FROM t_fts WHERE t_fts MATCH 'boiler'")
        assert cursor.fetchall() == [("Servicing the boilers",)]
        cursor.execute("SELECT body FROM t_fts WHERE t_fts MATCH 'cafe'")
        assert cursor.fetchall() == [("a café",)]


def test_the_driver_is_one_that_loads_extensions(db):
    assert hasattr(Database.Connection, "enable_load_extension")
    assert connection.Database is Database


def test_a_unique_violation_from_the_driver_is_a_django_integrity_error(alice):
    # A second Your Story for the same member breaks a partial unique index.
    with pytest.raises(IntegrityError), transaction.atomic():
        Act.objects.create(owner=alice, title="Another story", is_your_story=True)


def test_a_foreign_key_violation_is_caught_as_a_django_integrity_error(alice, remember):
    # SQLite defers foreign keys to the commit, which a test never reaches; the same check on
    # demand must name the broken row.
    memory = remember("Orphaned soon")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA defer_foreign_keys = ON")
        cursor.execute(
            "UPDATE memories_memory SET owner_id = %s WHERE id = %s", [alice.pk + 999, memory.pk]
        )
    with pytest.raises(IntegrityError, match="memories_memory"):
        connection.check_constraints(table_names=["memories_memory"])
    Memory.objects.filter(pk=memory.pk).update(owner_id=alice.pk)


def test_a_check_constraint_violation_is_a_django_integrity_error(alice, remember):
    memory = remember("Something")
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.filter(pk=memory.pk).update(source="gossip")


def test_a_syntax_error_in_an_fts_query_is_a_django_database_error(alice):
    index = sql.member_fts(alice.pk)
    with pytest.raises(DatabaseError, match="unterminated string"), connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {index} WHERE {index} MATCH %s", ['"unbalanced'])


def test_foreign_keys_are_enforced_and_the_busy_timeout_is_at_least_20_seconds(db):
    assert pragma(connection, "foreign_keys") == 1
    assert pragma(connection, "busy_timeout") >= 20_000


def test_transactions_take_the_write_lock_when_they_begin(db):
    assert connection.transaction_mode == "IMMEDIATE"


def test_a_file_database_runs_in_wal_mode_with_normal_sync_and_mmap(file_connection):
    assert pragma(file_connection, "journal_mode") == "wal"
    assert pragma(file_connection, "synchronous") == 1  # NORMAL
    assert pragma(file_connection, "mmap_size") > 0
    assert pragma(file_connection, "foreign_keys") == 1
    with file_connection.cursor() as cursor:
        cursor.execute("SELECT vec_version()")
        assert cursor.fetchone()[0]


def test_decimals_dates_and_times_round_trip_through_the_driver(db):
    now = timezone.now().replace(microsecond=123456)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s, %s, %s",
            [decimal.Decimal("1.25"), datetime.date(2026, 3, 1), now.replace(tzinfo=None)],
        )
        number, day, moment = cursor.fetchone()
    assert decimal.Decimal(number) == decimal.Decimal("1.25")
    assert str(day) == "2026-03-01"
    assert str(moment) == now.replace(tzinfo=None).isoformat(" ")


def test_model_datetimes_come_back_as_aware_datetimes(alice, remember):
    moment = timezone.now().replace(microsecond=0) - datetime.timedelta(days=3)
    memory = remember("A dated thing", happened_at=moment)

    assert Memory.objects.get(pk=memory.pk).happened_at == moment
