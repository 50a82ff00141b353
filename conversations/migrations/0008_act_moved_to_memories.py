"""Acts now belong to the memories app (memories/0011): the conversation's foreign key points
at memories.Act, this app's declaration goes (the table stays, it is memories'), and the
content type moves with it, so admin history and permissions follow the rows."""

import django.db.models.deletion
from django.db import migrations, models


def move_content_type(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    moved = content_types.objects.filter(app_label="conversations", model="act")
    if not content_types.objects.filter(app_label="memories", model="act").exists():
        moved.update(app_label="memories")


def move_content_type_back(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    if not content_types.objects.filter(app_label="conversations", model="act").exists():
        content_types.objects.filter(app_label="memories", model="act").update(
            app_label="conversations"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0007_classification"),
        ("memories", "0011_act"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="conversation",
                    name="act",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="conversations",
                        to="memories.act",
                    ),
                ),
                migrations.DeleteModel(name="Act"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
