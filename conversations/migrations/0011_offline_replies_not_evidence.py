"""The offline engine's replies are no evidence (conversations/chat.py): they only give back what
the member said or kept, and kept as evidence they were quoted again, inside one another, when the
same thing was asked twice. Those recorded before are taken out of the indexes here (the index
triggers remove their words and vectors); the replies themselves stay in their transcripts."""

from django.db import migrations


def forget_offline_replies(apps, schema_editor):
    Memory = apps.get_model("memories", "Memory")
    # The base manager: the model's own leaves evidence out.
    Memory._base_manager.filter(kind="reply", message__engine="offline").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0010_title"),
        ("memories", "0020_conversation_told"),
    ]

    operations = [
        migrations.RunPython(forget_offline_replies, migrations.RunPython.noop),
    ]
