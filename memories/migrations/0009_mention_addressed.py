"""A mention that only speaks to someone ("Thanks, Mel!") is marked, so that recall's lift for
the names a query uses leaves it out (issue 12). Existing mentions are marked by reading their
memories again with the app's current rules (memories.entities, no model involved)."""

from django.db import migrations, models

from memories import entities

BATCH = 500


def mark_addressed(apps, schema_editor):
    Memory = apps.get_model("memories", "Memory")
    Mention = apps.get_model("memories", "Mention")
    memory_ids = list(Mention.objects.values_list("memory_id", flat=True).distinct().order_by())
    for start in range(0, len(memory_ids), BATCH):
        batch = Memory.objects.filter(pk__in=memory_ids[start : start + BATCH])
        for memory_id, content in batch.values_list("pk", "content"):
            addressed = {e.normalized for e in entities.extract_offline(content) if e.addressed}
            if addressed:
                Mention.objects.filter(
                    memory_id=memory_id, entity__normalized__in=addressed
                ).update(addressed=True)


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_context_keys")]

    operations = [
        migrations.AddField(
            model_name="mention",
            name="addressed",
            field=models.BooleanField(
                default=False,
                help_text='The memory only speaks to them ("Thanks, Mel!"): said to them, not '
                "about them.",
            ),
        ),
        migrations.RunPython(mark_addressed, migrations.RunPython.noop),
    ]
