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


class RecallHit(models.Model):
    """One memory a recall returned, where it ranked and why."""

    recall = models.ForeignKey(Recall, on_delete=models.CASCADE, related_name="hits")
    # A member may still delete a memory for good; the trail keeps the row and says so.
    memory = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, related_name="recall_hits"
    )
    rank = models.PositiveIntegerField()
    score = models.FloatField()
    components = CleanJSONField(default=dict)
    influence = CleanCharField(max_length=200, blank=True)

    class Meta:
        ordering = ["recall", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["recall", "rank"], name="recall_hit_rank_unique"),
        ]

    def __str__(self) -> str:
        return f"#{self.rank} {self.memory_id}"
