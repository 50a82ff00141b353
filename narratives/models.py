from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from talkingrock.fields import CleanCharField


class ImmutableError(Exception):
    """A narrative is a fact about what happened: it is never changed, only continued."""


class Narrative(models.Model):
    """An immutable one-sentence link in a chain of meaning (seed 000).

    ``previous`` is the link it continues; the links that continue it are ``continuations``
    (forward traversal is the reverse query, no extra column). ``starts_topic`` marks the first
    link of a topic: with no ``previous`` a new thread, with one a new topic that still points
    back to where the talk came from. The database refuses updates (narratives/sql.py).
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="narratives"
    )
    summary = CleanCharField(max_length=300)
    topic = CleanCharField(max_length=200, blank=True)
    memories = models.ManyToManyField(
        "memories.Memory", through="NarrativeMemory", related_name="narratives", blank=True
    )
    previous = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="continuations"
    )
    starts_topic = models.BooleanField(default=True)
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="narratives",
    )
    engine = models.CharField(max_length=80, blank=True)  # what wrote it: tool, ollama:…, offline
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at", "-id"], name="narrative_latest")]

    def __str__(self) -> str:
        return self.summary

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not self._state.adding:
            raise ImmutableError("A narrative cannot be changed; continue it with a new one.")
        super().save(*args, **kwargs)


class NarrativeMemory(models.Model):
    """A memory a narrative links, in the order the narrative gave them."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="links")
    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["narrative", "memory"], name="narrative_memory_once")
        ]

    def __str__(self) -> str:
        return f"narrative {self.narrative_id} → memory {self.memory_id}"
