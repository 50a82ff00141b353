"""Consolidation (issue 15, seed 002): observations with their history, dreams, a record of each
pass; the observations' and dreams' vector tables and the observation keyword index."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from memories.consolidation import sql


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0012_act_table"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Dream",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField()),
                ("reason", models.TextField(blank=True)),
                ("score", models.FloatField(default=0.0)),
                ("engine", models.CharField(blank=True, max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("kept_at", models.DateTimeField(blank=True, null=True)),
                ("dismissed", models.BooleanField(default=False)),
                (
                    "facts_a",
                    models.ManyToManyField(
                        blank=True, related_name="dreams_as_a", to="memories.memory"
                    ),
                ),
                (
                    "facts_b",
                    models.ManyToManyField(
                        blank=True, related_name="dreams_as_b", to="memories.memory"
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="dreams",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="Observation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField()),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("state", "State"),
                            ("trend", "Trend"),
                            ("transition", "Transition"),
                            ("cycle", "Cycle"),
                            ("correlation", "Correlation"),
                            ("pattern", "Pattern"),
                        ],
                        default="state",
                        max_length=16,
                    ),
                ),
                ("subject", models.CharField(blank=True, max_length=200)),
                ("relation", models.CharField(blank=True, max_length=100)),
                ("evidence_count", models.PositiveIntegerField(default=0)),
                ("engine", models.CharField(blank=True, max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("hit_count", models.PositiveIntegerField(default=0)),
                ("last_hit_at", models.DateTimeField(blank=True, null=True)),
                ("confirmed_at", models.DateTimeField(blank=True, null=True)),
                ("user_edited", models.BooleanField(default=False)),
                ("dismissed", models.BooleanField(default=False)),
                (
                    "entity",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="observations",
                        to="memories.entity",
                    ),
                ),
                (
                    "facts",
                    models.ManyToManyField(
                        blank=True, related_name="observations", to="memories.memory"
                    ),
                ),
                (
                    "merged_into",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="merged",
                        to="memories.observation",
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="observations",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-updated_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ObservationChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("created", "Created"),
                            ("updated", "Updated"),
                            ("enriched", "Enriched"),
                            ("merged", "Merged"),
                            ("edited", "Edited"),
                        ],
                        max_length=16,
                    ),
                ),
                ("previous_text", models.TextField(blank=True)),
                ("new_text", models.TextField()),
                ("reason", models.TextField(blank=True)),
                ("changed_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("happened_at", models.DateTimeField(blank=True, null=True)),
                (
                    "facts",
                    models.ManyToManyField(
                        blank=True, related_name="observation_changes", to="memories.memory"
                    ),
                ),
                (
                    "observation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="changes",
                        to="memories.observation",
                    ),
                ),
            ],
            options={
                "ordering": ["changed_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="ConsolidationRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("consolidate", "Consolidate"),
                            ("temporal", "Temporal"),
                            ("merge", "Merge"),
                            ("dream", "Dream"),
                        ],
                        max_length=16,
                    ),
                ),
                ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("engine", models.CharField(blank=True, max_length=64)),
                ("summary", models.JSONField(blank=True, default=dict)),
                ("error", models.TextField(blank=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="consolidation_runs",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-started_at", "-id"],
                "indexes": [
                    models.Index(fields=["owner", "kind", "-started_at"], name="run_owner_kind")
                ],
            },
        ),
        migrations.AddIndex(
            model_name="observation",
            index=models.Index(
                fields=["owner", "subject", "relation"], name="observation_owner_key"
            ),
        ),
        migrations.AddIndex(
            model_name="observation",
            index=models.Index(fields=["owner", "-updated_at"], name="observation_owner_updated"),
        ),
        migrations.AddConstraint(
            model_name="observation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        ["state", "trend", "transition", "cycle", "correlation", "pattern"],
                    )
                ),
                name="observation_kind_valid",
            ),
        ),
        migrations.RunSQL(sql=sql.CREATE_ALL, reverse_sql=sql.DROP_ALL),
    ]
