from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone


def content_hash(content: str) -> str:
    """Stable fingerprint of a memory's text: whitespace-folded, case-sensitive."""
    return hashlib.sha256(" ".join(content.split()).encode()).hexdigest()


class Memory(models.Model):
    """One remembered thing. Archived, never silently deleted (seed 001)."""

    class Source(models.TextChoices):
        CONVERSATION = "conversation"
        AGENT = "agent"
        EXTRACTION = "extraction"
        MIGRATION = "migration"
        MANUAL = "manual"

    class Status(models.TextChoices):
        DRAFT = "draft"  # produced by a close, waiting for the member's review
        CONFIRMED = "confirmed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories"
    )
    content = models.TextField()
    content_hash = models.CharField(max_length=64, editable=False)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.MANUAL)
    tags = models.CharField(max_length=500, blank=True, help_text="Comma-separated keywords.")
    # RESTRICT: an act with memories cannot be deleted on its own, but deleting a member
    # removes their acts and memories together.
    act = models.ForeignKey("conversations.Act", on_delete=models.RESTRICT, related_name="memories")
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memories",
    )
    narrative = models.ForeignKey(
        "narratives.Narrative",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="stamped_memories",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CONFIRMED)
    user_reviewed = models.BooleanField(default=False)
    user_edited = models.BooleanField(default=False)
    original_content = models.TextField(blank=True)
    extraction_engine = models.CharField(max_length=64, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    score = models.IntegerField(default=0)
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)
    happened_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "memories"
        indexes = [
            models.Index(fields=["owner", "act", "-created_at"], name="memory_owner_act_created"),
            models.Index(fields=["owner", "content_hash"], name="memory_owner_hash"),
            models.Index(fields=["owner", "archived_at"], name="memory_owner_archived"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    source__in=["conversation", "agent", "extraction", "migration", "manual"]
                ),
                name="memory_source_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "confirmed"]), name="memory_status_valid"
            ),
            models.CheckConstraint(condition=~Q(content=""), name="memory_content_not_empty"),
        ]

    def __str__(self) -> str:
        return f"[id:{self.pk}] {self.content[:60]}"

    def save(self, *args, **kwargs):
        self.content_hash = content_hash(self.content)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "content" in update_fields:
            kwargs["update_fields"] = {*update_fields, "content_hash"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("memories:detail", args=[self.pk])

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.split(",") if t.strip()]
