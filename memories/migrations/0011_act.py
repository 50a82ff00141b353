"""Acts move from the conversations app to the memories app (issue 14: a memory's act is in its
own layer). Nothing is copied: the model is declared here over the existing table
(conversations_act), the memory's foreign key points at it, and conversations/0008 drops its
own declaration; memories/0012 then renames the table. Every row and id is kept."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import talkingrock.fields


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0010_influence_and_corrections"),
        ("conversations", "0007_classification"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Act",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("title", talkingrock.fields.CleanCharField(max_length=200)),
                        ("description", talkingrock.fields.CleanTextField(blank=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[("active", "Active"), ("archived", "Archived")],
                                default="active",
                                max_length=16,
                            ),
                        ),
                        ("is_your_story", models.BooleanField(default=False, editable=False)),
                        (
                            "created_at",
                            models.DateTimeField(default=django.utils.timezone.now, editable=False),
                        ),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="acts",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["-is_your_story", "title"],
                        "db_table": "conversations_act",
                        "constraints": [
                            models.UniqueConstraint(
                                condition=models.Q(("is_your_story", True)),
                                fields=("owner",),
                                name="one_your_story_per_owner",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("status__in", ["active", "archived"])),
                                name="act_status_valid",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("is_your_story", True), ("status", "archived"), _negated=True
                                ),
                                name="your_story_never_archived",
                            ),
                        ],
                    },
                ),
                migrations.AlterField(
                    model_name="memory",
                    name="act",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.RESTRICT,
                        related_name="memories",
                        to="memories.act",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
