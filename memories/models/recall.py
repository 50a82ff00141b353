"""The trail a recall leaves, so "why?" always has an answer."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from memories.models.memory import Memory
from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField


class Recall(models.Model):
    """One retrieval that fed an answer, a classification or a tool call: the transparency trail
    behind "why did you think that?"."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recalls"
    )
    query = CleanTextField()
    purpose = models.CharField(max_length=100)
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="recalls",
    )
    message = models.ForeignKey(
        "conversations.Message",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="recalls",
    )
    parameters = CleanJSONField(default=dict, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"], name="recall_owner_created")]

    def __str__(self) -> str:
        return f"{self.purpose}: {self.query[:60]}"


class InfluenceType(models.TextChoices):
    DISAMBIGUATION = "disambiguation"  # it said which thing a vague request meant
    PATTERN_MATCH = "pattern_match"  # a past request or task like this one
    ENTITY_REFERENCE = "entity_reference"  # it names someone or something the request names
    INTENT_VERIFICATION = "intent_verification"  # it confirmed or questioned the reading


class RecallHit(models.Model):
    """One memory a recall returned, where it ranked and why (and, for a reasoning stage, how it
    influenced the result)."""

    recall = models.ForeignKey(Recall, on_delete=models.CASCADE, related_name="hits")
    # A member may still delete a memory for good; the trail keeps the row and says so.
    memory = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, related_name="recall_hits"
    )
    rank = models.PositiveIntegerField()
    score = models.FloatField()
    components = CleanJSONField(default=dict)
    influence = CleanCharField(max_length=200, blank=True)  # why it was found, or how it shaped
    # How the memory shaped a reasoning stage (seed 003's classification_memory_references):
    # blank for a hit that was only found.
    influence_type = models.CharField(max_length=24, choices=InfluenceType.choices, blank=True)
    influence_score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["recall", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["recall", "rank"], name="recall_hit_rank_unique"),
            models.CheckConstraint(
                condition=models.Q(
                    influence_type__in=["", *(value for value, _ in InfluenceType.choices)]
                ),
                name="recall_hit_influence_type_valid",
            ),
        ]
        indexes = [models.Index(fields=["memory", "influence_type"], name="recall_hit_influence")]

    def __str__(self) -> str:
        return f"#{self.rank} {self.memory_id}"
