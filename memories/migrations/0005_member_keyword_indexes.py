"""One keyword index per member instead of one for the household (memories/sql.py says why).

Forward: the household-wide ``memory_fts`` and its triggers go; the vector clean-up gets a
trigger of its own; every member gets their index, built from their rows. Backward: the reverse.
"""

from django.db import migrations

from memories import sql


def _members(cursor) -> list[int]:
    cursor.execute(sql.MEMBER_IDS)
    return [row[0] for row in cursor.fetchall()]


def per_member(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for statement in sql.LEGACY_DROP_ALL:
            if statement != sql.DROP_VEC:
                cursor.execute(statement)
        for statement in sql.VEC_TRIGGERS.values():
            cursor.execute(statement)
        for owner_id in _members(cursor):
            for statement in sql.create_member_index(owner_id):
                cursor.execute(statement)
            for statement in sql.rebuild_member_index(owner_id):
                cursor.execute(statement)


def household_wide(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(sql.MEMBER_TABLES)
        owners = [int(name.removeprefix(sql.MEMBER_PREFIX)) for (name,) in cursor.fetchall()]
        for owner_id in owners:
            for statement in sql.drop_member_index(owner_id):
                cursor.execute(statement)
        for statement in sql.DROP_TRIGGERS:
            cursor.execute(statement)
        for statement in sql.LEGACY_CREATE_ALL:
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("memories", "0004_lifecycle")]

    operations = [migrations.RunPython(per_member, household_wide)]
