"""Consolidation's rows (seed 002): observations made from a member's facts, the history of
each observation's changes, the dreams (cross-domain insights that never feed recall), and a
record of each consolidation pass.

An observation's and a dream's embedding live in their own vec0 tables, one partition per member
(memories/consolidation/sql.py), with the row id as the vector's rowid."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from memories.models.graph import Entity
from memories.models.memory import Memory
from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField


class Observation(models.Model):
    """A pattern, state or trajectory that several facts add up to."""

    class Kind(models.TextChoices):
        STATE = "state"  # an entity's current state, and what it replaced
        TREND = "trend"  # a number moving one way across facts
        TRANSITION = "transition"  # a role or state changing
        CYCLE = "cycle"  # a weekday or a date recurring
        CORRELATION = "correlation"  # two entities' facts changing together
        PATTERN = "pattern"  # what the model wrote, at a higher level than the facts

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="observations"
    )
    text = CleanTextField()
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.STATE)
    # What it is about, when the facts say: the entity and the relation (seed 002's key).
    entity = models.ForeignKey(
        Entity, on_delete=models.SET_NULL, null=True, blank=True, related_name="observations"
    )
    subject = CleanCharField(max_length=200, blank=True)
    relation = CleanCharField(max_length=100, blank=True)
    facts = models.ManyToManyField(Memory, related_name="observations", blank=True)
    evidence_count = models.PositiveIntegerField(default=0)
    engine = models.CharField(max_length=64, blank=True)  # "offline" or the model's name
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # Recall's access decay, as a memory's: 0.99^(hours since use / (1 + hit_count)).
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)  # the member said it holds
    user_edited = models.BooleanField(default=False)
    dismissed = models.BooleanField(default=False)
    # Merged into another observation (the daily merge): kept, with its history, but not shown.
    merged_into = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="merged"
    )

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "subject", "relation"], name="observation_owner_key"),
            models.Index(fields=["owner", "-updated_at"], name="observation_owner_updated"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    kind__in=["state", "trend", "transition", "cycle", "correlation", "pattern"]
                ),
                name="observation_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def live(self) -> bool:
        return not self.dismissed and self.merged_into_id is None


class ObservationChange(models.Model):
    """One step in an observation's history: what it said before, what it says now, which facts
    made it change, and when."""

    class Kind(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"  # the text changed: a later fact replaced a value
        ENRICHED = "enriched"  # more evidence, same text
        MERGED = "merged"  # another observation was merged into this one
        EDITED = "edited"  # the member rewrote it

    observation = models.ForeignKey(Observation, on_delete=models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    previous_text = CleanTextField(blank=True)
    new_text = CleanTextField()
    facts = models.ManyToManyField(Memory, related_name="observation_changes", blank=True)
    reason = CleanTextField(blank=True)
    changed_at = models.DateTimeField(default=timezone.now)  # when the change was made
    # When the world changed, as the facts say: the newest fact's happened_at (or its creation).
    happened_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["changed_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.new_text[:60]}"


class Dream(models.Model):
    """A cross-domain insight: two distant clusters of a member's facts that share something
    measurable, with both clusters' facts and why the evaluator kept it. Never feeds recall."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dreams"
    )
    text = CleanTextField()
    facts_a = models.ManyToManyField(Memory, related_name="dreams_as_a", blank=True)
    facts_b = models.ManyToManyField(Memory, related_name="dreams_as_b", blank=True)
    reason = CleanTextField(blank=True)  # the evaluator's reason
    score = models.FloatField(default=0.0)
    engine = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    kept_at = models.DateTimeField(null=True, blank=True)  # the member kept it
    dismissed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:80]


class ConsolidationRun(models.Model):
    """One pass for one member: when it ran and what it did (shown on the member's page)."""

    class Pass(models.TextChoices):
        CONSOLIDATE = "consolidate"
        TEMPORAL = "temporal"
        MERGE = "merge"
        DREAM = "dream"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="consolidation_runs"
    )
    kind = models.CharField(max_length=16, choices=Pass.choices)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    engine = models.CharField(max_length=64, blank=True)
    summary = CleanJSONField(default=dict, blank=True)  # counts: created, updated, skipped…
    error = CleanTextField(blank=True)
    # The process running it ("host:pid:start", talkingrock.jobs.process_identity): a run whose
    # process has ended is known to be dead at once, and the next one takes over.
    worker = models.CharField(max_length=200, blank=True, editable=False)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["owner", "kind", "-started_at"], name="run_owner_kind")]

    def __str__(self) -> str:
        return f"{self.kind} at {self.started_at:%Y-%m-%d %H:%M}"
