import django.db.models.deletion
from django.db import migrations, models


def link_replies(apps, schema_editor):
    """Until now a reply was the message right after the member's: link the existing ones."""
    Message = apps.get_model("conversations", "Message")
    previous = {}
    replies = []
    for message in Message.objects.order_by("conversation_id", "position").iterator():
        before = previous.get(message.conversation_id)
        if message.role == "assistant" and before is not None and before.role == "user":
            message.reply_to_id = before.pk
            replies.append(message)
        previous[message.conversation_id] = message
    Message.objects.bulk_update(replies, ["reply_to"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("conversations", "0002_lifecycle")]

    operations = [
        migrations.AddField(
            model_name="message",
            name="reply_to",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="replies",
                to="conversations.message",
            ),
        ),
        migrations.RunPython(link_replies, migrations.RunPython.noop),
    ]
