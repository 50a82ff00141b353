from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Narrative(models.Model):
    """An immutable one-sentence link in a chain of meaning (seed 000).

    The chain tools and the running narrative arrive with the narratives issue; the table exists
    now so that a memory can be stamped with the narrative active when it was stored.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="narratives"
    )
    summary = models.CharField(max_length=300)
    topic = models.CharField(max_length=200, blank=True)
    previous = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="continuations"
    )
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="narratives",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.summary
