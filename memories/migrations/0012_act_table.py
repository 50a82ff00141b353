"""The acts' table takes the memories app's name (conversations_act → memories_act); SQLite
renames it in place and rewrites the foreign keys that point at it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0011_act"),
        ("conversations", "0008_act_moved_to_memories"),
    ]

    operations = [migrations.AlterModelTable(name="act", table=None)]
