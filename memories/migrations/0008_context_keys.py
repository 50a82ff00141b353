"""The contextual keys' table (memories/context.py) and the trigger that deletes a memory's key
with it. Keys for memories indexed before this are built by the post_migrate guard
(``housekeeping.ensure_context_keys``), with the app's current code."""

from django.db import migrations

from memories import sql


class Migration(migrations.Migration):
    dependencies = [("memories", "0007_memory_session")]

    operations = [
        migrations.RunSQL(sql=sql.CONTEXT_CREATE, reverse_sql=sql.CONTEXT_DROP),
    ]
